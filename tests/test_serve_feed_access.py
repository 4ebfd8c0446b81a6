"""An event feed opened with an account's credentials ends when the account's access changes (issue 43): a
password reset (the organizer's remedy for a leaked password) or a disabled account. Before, the feed kept
streaming that team's private events: an answer sent to it afterwards, and during the freeze its new
submission's judgement. Through a real server on a loopback port (httpx's ASGI transport does not stream)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_fixtures import HOUR, PASSWORDS, T0, FakeClock, make_server, write_contest
from serve_live import listening

from judge.serve.http.app import create_app
from judge.serve.site.server import Server

C = "/api/contests/test"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    server = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + HOUR))
    try:
        with listening(create_app(server)) as (host, port):
            try:
                yield server, f"http://{host}:{port}"
            finally:
                server.stopping.set()  # the feeds still open end, and the server with them
                server.bus.wake()
    finally:
        server.close()


class Feed:
    """A streaming event feed read by a thread of its own: the lines as they come, and whether it ended."""

    def __init__(self, base: str, user: str) -> None:
        self.lines: list[dict[str, Any]] = []
        self.ended = threading.Event()
        self._arrived = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(base, user), daemon=True)
        self._thread.start()

    def _read(self, base: str, user: str) -> None:
        try:
            with httpx.stream("GET", f"{base}{C}/event-feed", auth=(user, PASSWORDS[user]), timeout=60) as r:
                assert r.status_code == 200
                for line in r.iter_lines():
                    if line.strip():
                        with self._arrived:
                            self.lines.append(json.loads(line))
                            self._arrived.notify_all()
        finally:
            self.ended.set()
            with self._arrived:
                self._arrived.notify_all()

    def wait_for(self, found: Any) -> dict[str, Any]:
        """The first line for which ``found(line)`` holds (waiting for it)."""
        with self._arrived:
            while True:
                hit = next((x for x in self.lines if found(x)), None)
                if hit is not None:
                    return hit
                assert not self.ended.is_set(), "the feed ended"
                self._arrived.wait(1.0)

    def texts(self) -> list[str]:
        return [str((x.get("data") or {}).get("text")) for x in self.lines if x["type"] == "clarifications"]


def admin(base: str, method: str, path: str, **kw: Any) -> httpx.Response:
    return httpx.request(method, f"{base}{C}/{path}", auth=("admin", PASSWORDS["admin"]), timeout=30, **kw)


def tell(base: str, team: str, text: str) -> None:
    r = admin(base, "POST", "clarifications", json={"text": text, "to_team_ids": [team]})
    assert r.status_code == 201, r.text


@pytest.mark.timeout(60)
@pytest.mark.parametrize("change", ["accounts/team1/reset-password", "accounts/team1/disable"])
def test_a_feed_ends_when_its_account_is_reset_or_disabled(served: tuple[Server, str], change: str) -> None:
    server, base = served
    mine, other = Feed(base, "team1"), Feed(base, "team2")
    tell(base, "team1", "before the change")
    tell(base, "team2", "for team2, before")
    mine.wait_for(lambda x: x["type"] == "clarifications")
    other.wait_for(lambda x: x["type"] == "clarifications")

    assert admin(base, "POST", change).status_code == 200
    tell(base, "team1", "private: after the change")
    tell(base, "team2", "for team2, after")
    other.wait_for(lambda x: (x.get("data") or {}).get("text") == "for team2, after")  # its feed goes on
    assert mine.ended.wait(30), "team1's feed still streams after its access changed"
    assert "private: after the change" not in mine.texts()
    assert mine.texts() == ["before the change"]
    assert not other.ended.is_set()
    # its old credentials no longer open one
    r = httpx.get(f"{base}{C}/event-feed", auth=("team1", PASSWORDS["team1"]), params={"stream": "false"})
    assert r.status_code == 401
