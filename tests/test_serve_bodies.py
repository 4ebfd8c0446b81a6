"""Request bodies (issue 43): a body larger than the ordinary limit (64 KiB) is refused before it is read
unless the caller may send it (a package upload: admins; a submission, a print-out, an import: accounts),
and a body must arrive within a deadline. Before, both package-upload routes read up to 64 MiB from anyone
before refusing them (24 anonymous connections took the server from 245 to 1,656 MiB). Through a real
server on a loopback port and raw sockets: the request's headers and a little of its body are sent, and
the refusal must arrive while the rest is still unsent."""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, PASSWORDS, T0, FakeClock, make_server, write_contest
from serve_live import listening
from test_serve_pages import csrf_of, login

from judge.serve.http.app import create_app
from judge.serve.http.forms import BodyDeadlines
from judge.serve.site.server import Server

C = "/api/contests/test"
BIG = 64 * 1024 * 1024  # the Content-Length claimed: a package's limit
DEADLINE_S = 1.0  # the test server's deadline for a body (the refusal is waited for, however long it takes)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Server, int]]:
    server = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + HOUR))
    app = create_app(server, deadlines=BodyDeadlines(seconds=DEADLINE_S, package_seconds=DEADLINE_S))
    try:
        with listening(app) as (_, port):
            yield server, port
    finally:
        server.close()


def basic(user: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{PASSWORDS[user]}".encode()).decode()


def started(port: int, head: str, first: bytes) -> socket.socket:
    """A connection that sent ``head`` (the request line and headers) and the first bytes of a body."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(head.encode() + b"\r\n" + first)
    return sock


def answer(sock: socket.socket) -> tuple[int, bytes]:
    """The status and the whole answer, read until the server closes the connection (it must: the rest of
    the body is never sent, and the connection cannot be used for another request)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    assert data.startswith(b"HTTP/1.1 "), data[:200]
    return int(data.split(b" ", 2)[1]), data


def upload_head(path: str, extra: str = "", length: int = BIG) -> str:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/zip\r\n"
        f"Content-Length: {length}\r\n{extra}"
    )


@pytest.mark.timeout(120)
@pytest.mark.parametrize("user, status", [(None, 401), ("team1", 403), ("judge", 403)])
def test_a_big_api_upload_is_refused_before_its_body_is_read(
    served: tuple[Server, int], user: str | None, status: int
) -> None:
    _, port = served
    auth = "" if user is None else f"Authorization: {basic(user)}\r\n"
    sock = started(port, upload_head(f"{C}/problems/sum/package", auth), b"PK" * 512)
    got, data = answer(sock)
    assert got == status and b"connection: close" in data.lower()


@pytest.mark.timeout(120)
def test_the_public_sends_no_large_body(served: tuple[Server, int]) -> None:
    """A submission's body (larger than the ordinary one) from nobody: the 401 before it is read."""
    _, port = served
    head = f"POST {C}/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 300000\r\n"
    got, data = answer(started(port, head, b'{"problem_id": '))
    assert got == 401 and b"connection: close" in data.lower()


@pytest.mark.timeout(120)
def test_a_big_page_upload_is_refused_before_its_form_is_read(served: tuple[Server, int]) -> None:
    server, port = served
    path = "/admin/problems/sum/package"
    form = "Content-Type: multipart/form-data; boundary=b\r\n"
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{form}Content-Length: {BIG}\r\n"
    got, data = answer(started(port, head, b"--b\r\n"))  # nobody: to the login, nothing read
    assert got == 303 and b"location: /login" in data.lower() and b"connection: close" in data.lower()
    team = login(server, "team1")  # a team's session (made through the app: the same database)
    cookie = f"Cookie: judge_session={team.cookies['judge_session']}\r\n"
    got, data = answer(started(port, head + cookie, b"--b\r\n"))
    assert got == 403 and b"only admins may upload packages" in data and b"connection: close" in data.lower()


@pytest.mark.timeout(120)
def test_an_admins_upload_is_read_and_a_body_that_stops_times_out(served: tuple[Server, int]) -> None:
    server, port = served
    # an admin's upload is read and reaches the service (which, judging nowhere here, makes no versions)
    auth = f"Authorization: {basic('admin')}\r\nConnection: close\r\n"
    got, data = answer(started(port, upload_head(f"{C}/problems/sum/package", auth, 4), b"junk"))
    assert got == 409 and b"makes no package versions" in data, data
    # a body that stops coming: a 408 once the deadline has passed, and the connection closed
    for path, user, kind in ((f"{C}/problems/sum/package", "admin", "zip"), (f"{C}/clarifications", "team1", "json")):
        head = upload_head(path, f"Authorization: {basic(user)}\r\n", 1000).replace("zip", kind)
        got, data = answer(started(port, head, b"PK"))
        assert got == 408 and b"did not arrive within 1 s" in data and b"connection: close" in data.lower(), data
    # and a page's form: a logged-in team's print-out that never ends
    team = login(server, "team1")
    token = csrf_of(team.get("/print").text)
    cookie = f"Cookie: judge_session={team.cookies['judge_session']}\r\n"
    head = (
        "POST /print HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: 5000\r\n{cookie}"
    )
    got, data = answer(started(port, head, f"csrf={token}&text=abc".encode()))
    assert got == 408 and b"did not arrive within 1 s" in data, data
