"""`judge serve` stopped (SIGTERM, as Ctrl-C) while clients hold event feeds open: the feeds end as responses
do, the process stops without waiting out uvicorn's graceful timeout and logs no traceback, and a client
resumes from its last token on the next server (a restart, or another `--shared` process) with nothing lost.
A feed waiting out a database outage ends too."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_fixtures import HOUR, PASSWORDS, SUM_AC, T0, FakeClock, make_server, write_contest
from serve_live import listening
from serve_site_fixtures import write_site
from test_serve_process import DEADLINE_S, Serve, contest, final, wait_for  # noqa: F401 - the fixture

from judge.runner import Runner
from judge.serve.http.api.feed import BATCH
from judge.serve.http.app import create_app
from judge.serve.services.board import feed
from judge.serve.services.core.events import publish
from judge.serve.storage import StorageUnavailable

ADMIN = ("admin", PASSWORDS["admin"])


class HeldFeed:
    """A client holding ``GET event-feed`` open in a thread of its own: the lines it got, and how it ended."""

    def __init__(self, url: str, auth: tuple[str, str] | None) -> None:
        self.lines: list[dict[str, Any]] = []
        self.ended = False  # the response ended as HTTP says (its last chunk came)
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._read, args=(url, auth), daemon=True)
        self._thread.start()

    def _read(self, url: str, auth: tuple[str, str] | None) -> None:
        try:
            with httpx.stream("GET", url, auth=auth, timeout=DEADLINE_S) as r:
                assert r.status_code == 200, r.read()
                for line in r.iter_lines():
                    if line.strip():
                        self.lines.append(json.loads(line))
            self.ended = True
        except Exception as exc:  # noqa: BLE001 - what the client saw: asserted by the test
            self.error = exc

    def join(self) -> None:
        self._thread.join(timeout=DEADLINE_S)
        assert not self._thread.is_alive(), "the feed is still open"


def full_feed(server: Serve, since: str | None = None) -> list[dict[str, Any]]:
    params = {"stream": "false"} if since is None else {"stream": "false", "since_token": since}
    r = httpx.get(server.url("event-feed"), params=params, auth=ADMIN, timeout=60)
    assert r.status_code == 200, r.text
    return [json.loads(line) for line in r.text.splitlines() if line.strip()]


@pytest.mark.parametrize("shared", [False, True], ids=["sqlite", "postgresql-shared"])
def test_sigterm_ends_open_feeds_cleanly_and_promptly(
    contest: Path,  # noqa: F811 - the fixture
    tmp_path: Path,
    servers: list[Serve],
    request: pytest.FixtureRequest,
    shared: bool,
) -> None:
    options = ("--database", request.getfixturevalue("dsn"), "--shared") if shared else ()
    server = Serve(contest, tmp_path / "serve.log", *options)
    servers.append(server)
    other = Serve(contest, tmp_path / "other.log", *options) if shared else None
    if other is not None:
        servers.append(other)
    sid = server.submit("team1", SUM_AC)
    feeds = [HeldFeed(server.url("event-feed"), auth) for auth in (ADMIN, None)]  # the jury's and the public's
    wait_for("the feeds to send the submission", lambda: all(any(e["id"] == sid for e in f.lines) for f in feeds))

    assert server.kill(signal.SIGTERM) == 143  # as every stop (uvicorn raises the signal again once stopped)
    for f in feeds:
        f.join()
        assert f.error is None and f.ended, f.error  # not "peer closed connection ... incomplete chunked read"
    log = server.log.read_text()
    # uvicorn did not wait out its graceful timeout for the feeds, then cancel them with a traceback each
    assert "Cancel" not in log and "Traceback" not in log and "ERROR" not in log, log
    assert "judge serve: stopping: open event feeds end" in log, log
    assert "Application shutdown complete" in log

    # the jury's client resumes from its last token on the next server: every event, once
    if other is None:
        other = Serve(contest, tmp_path / "again.log")
        servers.append(other)
    held = feeds[0].lines
    sid2 = other.submit("team2", SUM_AC)
    wait_for("the new submission's judgement", lambda: final(other, sid2))
    rest = full_feed(other, since=held[-1]["token"])
    assert any(e["id"] == sid2 for e in rest)
    assert full_feed(other)[: len(held) + len(rest)] == held + rest
    assert other.kill(signal.SIGTERM) == 143


def test_sigterm_ends_the_open_feeds_of_every_contest_of_a_site(
    tmp_path: Path, sandbox_runner: Runner, servers: list[Serve]
) -> None:
    server = Serve(write_site(tmp_path / "site"), tmp_path / "serve.log")  # contests main and practice
    servers.append(server)
    feeds = [HeldFeed(f"{server.base}/contests/{cid}/event-feed", ADMIN) for cid in ("main", "practice")]
    wait_for("the feeds to send", lambda: all(f.lines for f in feeds))
    assert server.kill(signal.SIGTERM) == 143
    for f in feeds:
        f.join()
        assert f.error is None and f.ended, f.error
    log = server.log.read_text()
    assert "Cancel" not in log and "Traceback" not in log and "ERROR" not in log, log


def test_a_feed_waiting_out_a_database_outage_ends_when_the_server_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An open feed whose read is refused (the database unreachable: a failover) waits and reads again; when
    the server stops meanwhile it ends (before, it went on waiting and reading till uvicorn cut it)."""
    server = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + HOUR))
    refused = threading.Event()

    def away(*args: object) -> object:
        refused.set()
        raise StorageUnavailable("db1: the database server cannot be reached: connection refused")

    try:
        with listening(create_app(server)) as (host, port):
            held = HeldFeed(f"http://{host}:{port}/api/contests/test/event-feed", ADMIN)
            wait_for("the feed to send", lambda: held.lines)
            monkeypatch.setattr(feed, "next_lines", away)
            server.bus.notify()  # a change: the feed reads it, and is refused
            wait_for("the feed's read to be refused", refused.is_set)
            server.begin_stop()
            held.join()
            assert held.ended and held.error is None, held.error
    finally:
        server.begin_stop()
        server.close()


def test_a_feed_catching_up_ends_at_a_batch_when_the_server_stops(tmp_path: Path) -> None:
    """A feed with more to send than one batch (a client resuming far behind) ends after the batch it is
    sending when the server stops, rather than reading on till uvicorn cuts it; the client resumes from the
    batch's last token."""
    server = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + HOUR))
    with server.storage.write() as w:
        for i in range(BATCH + 100):
            publish(w, "clarifications", f"c{i}", {"id": f"c{i}", "text": "x"}, now=T0)
    server.bus.notify()
    try:
        with listening(create_app(server)) as (host, port):
            server.begin_stop()  # as it would be in the middle of its catching up
            held = HeldFeed(f"http://{host}:{port}/api/contests/test/event-feed", ADMIN)
            held.join()
            assert held.ended and held.error is None, held.error
            assert [int(e["token"]) for e in held.lines] == list(range(1, BATCH + 1))
    finally:
        server.close()
