"""The one outbound HTTP client of LTI (issue 48, services/lti/client.py): a real loopback server answers it; a
server that never answers is an LtiHttpError (its timeout), not a hang; a reply larger than the cap is refused;
called on an event loop's thread it refuses to run at all."""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from judge.serve.services.lti import client
from judge.serve.services.lti.client import LtiHttpError, UrlHttp


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        body = b"x" * (client.MAX_REPLY_BYTES + 10) if self.path == "/huge" else json.dumps({"keys": []}).encode()
        self.send_response(404 if self.path == "/missing" else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_reply_is_read_with_its_status_and_headers(server: str) -> None:
    reply = UrlHttp(timeout_s=10).request("GET", f"{server}/jwks", {"Accept": "application/json"})
    assert reply.ok and reply.json() == {"keys": []} and reply.headers["content-type"] == "application/json"
    missing = UrlHttp(timeout_s=10).request("GET", f"{server}/missing", {})
    assert missing.status == 404 and not missing.ok


def test_a_reply_over_the_cap_is_refused(server: str) -> None:
    with pytest.raises(LtiHttpError, match="larger than"):
        UrlHttp(timeout_s=10).request("GET", f"{server}/huge", {})


def test_a_server_that_never_answers_is_an_error_not_a_hang() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection (the kernel's backlog), never answers
    try:
        with pytest.raises(LtiHttpError, match="timed out"):
            UrlHttp(timeout_s=0.5).request("GET", f"http://127.0.0.1:{listener.getsockname()[1]}/jwks", {})
    finally:
        listener.close()


def test_it_never_runs_on_an_event_loops_thread(server: str) -> None:
    async def on_loop() -> None:
        UrlHttp().request("GET", f"{server}/jwks", {})

    with pytest.raises(RuntimeError, match="event loop"):
        asyncio.run(on_loop())


def test_only_http_urls() -> None:
    with pytest.raises(LtiHttpError, match="not an http"):
        UrlHttp().request("GET", "file:///etc/passwd", {})
