"""A standby that takes over (issue 51; docs/deploy.md, "When the primary dies"), on one machine: two throwaway
PostgreSQL clusters, a primary and a streaming standby of it (tests/pg_cluster.py: ``pg_basebackup -R`` over
the primary's Unix socket, a replication slot, ``synchronous_commit = on`` with the standby named in
``synchronous_standby_names``: a commit waits until the standby has flushed it), and `judge serve` on a libpq
multi-host DSN naming both sockets with ``target_session_attrs=read-write``. The primary is stopped as a crash
(``pg_ctl stop -m immediate``) while a submission is being judged, the standby promoted: every submission
acknowledged before the crash is on the new primary, the same `judge serve` process (not restarted; or two
with --shared) serves the contest again and judges a new submission, an event feed open through it all
misses nothing, and nothing is judged twice.

On the session's one cluster, what a storage does when the server drops its connections (as a restart or a
failover does; ``pg_terminate_backend``): a transaction cut in the middle is StorageUnavailable (a 503), the
next one connects again, and the owner lock, which went with the old connection, is taken again, so the
database stays one process's (or the lead one shared process's).

Skipped, saying why, without PostgreSQL, psycopg or a sandbox, or where the binaries cannot make a standby."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_fixtures import PASSWORDS, SUM_AC, SUM_WA, write_contest
from test_serve_process import SLEEP, Serve, final, wait_for

from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.model.upload import pack
from judge.serve.services.core.events import RECHECK_S
from judge.serve.storage import Engine, StorageError, StorageUnavailable


@pytest.fixture
def replicated() -> Iterator[tuple[Any, Any]]:
    """A primary and its synchronous streaming standby (two clusters of their own: the test crashes one)."""
    from pg_cluster import Cluster, binaries, can_replicate

    bindir = binaries()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin nor on PATH)")
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed (pip install 'judge[postgres]')")
    why = can_replicate(bindir)
    if why is not None:
        pytest.skip(f"these PostgreSQL binaries cannot make a streaming standby: {why}")
    primary = Cluster(bindir, primary=True)
    try:
        try:
            standby = Cluster.standby_of(primary)
        except RuntimeError as exc:
            pytest.skip(f"pg_basebackup could not make a standby here: {exc}")
        try:
            yield primary, standby
        finally:
            standby.stop()
    finally:
        primary.stop()


def _one(dsn: str, query: str, *args: Any) -> Any:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        cursor = conn.execute(query, args)
        return cursor.fetchall() if cursor.description is not None else None


def _post(server: Serve, user: str, source: str) -> httpx.Response:
    import base64

    body = {
        "problem_id": "sum",
        "language_id": "python3",
        "files": [{"data": base64.b64encode(pack({"sum.py": source.encode()})).decode()}],
    }
    return httpx.post(server.url("submissions"), json=body, auth=(user, PASSWORDS[user]), timeout=60)


def _follow(server: Serve) -> tuple[list[dict[str, Any]], threading.Event]:
    """The admin's event feed, read in a thread: its events so far, and whether it ended."""
    events: list[dict[str, Any]] = []
    ended = threading.Event()

    def read() -> None:
        try:
            timeout = httpx.Timeout(60, read=None)
            with httpx.stream(
                "GET", server.url("event-feed"), auth=("admin", PASSWORDS["admin"]), timeout=timeout
            ) as r:
                for line in r.iter_lines():
                    if line.strip():
                        events.append(json.loads(line))
        except httpx.HTTPError:
            pass
        finally:
            ended.set()

    threading.Thread(target=read, name="feed", daemon=True).start()
    wait_for("the feed to start", lambda: events)
    return events, ended


def _judgement_of(feed: list[dict[str, Any]], sid: str) -> bool:
    return any(
        e["type"] == "judgements"
        and e["data"]
        and e["data"]["submission_id"] == sid
        and "judgement_type_id" in e["data"]
        and e["data"]["judgement_type_id"]
        for e in feed
    )


@pytest.mark.slow
@pytest.mark.parametrize("shared", [False, True], ids=["one-process", "two-shared-processes"])
def test_the_standby_takes_over_nothing_acknowledged_is_lost_nothing_judged_twice(
    tmp_path: Path, sandbox_runner: Any, servers: list[Serve], replicated: tuple[Any, Any], shared: bool
) -> None:
    """One `judge serve`, or two with --shared (a submission sent to one, the next to the other)."""
    primary, standby = replicated
    # the standby streams, and the primary's commits wait for it (sync_state 'sync')
    wait_for(
        "the standby to stream synchronously",
        lambda: (
            _one(primary.dsn(), "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'")
            == [("sync",)]
        ),
    )
    assert _one(primary.dsn(), "SELECT slot_name, active FROM pg_replication_slots") == [("standby", True)]
    _one(primary.dsn(), "CREATE DATABASE regional")
    dsn = (
        f"postgresql://judge@/regional?host={primary.root},{standby.root}&port=5432"
        "&target_session_attrs=read-write&connect_timeout=5"
    )
    contest = write_contest(tmp_path / "contest", start=format_time(time.time() - 60))
    options = ("--database", dsn, *(("--shared", "--lease", "2") if shared else ()))
    server = Serve(contest, tmp_path / "serve.log", *options)
    servers.append(server)
    other = server
    if shared:
        other = Serve(contest, tmp_path / "other.log", *options)
        servers.append(other)

    feed, feed_ended = _follow(server)  # an event feed open through the failover
    judged = [server.submit("team1", SUM_AC), server.submit("team2", SUM_WA)]
    for sid in judged:
        wait_for(f"submission {sid}", lambda sid=sid: final(server, sid))  # type: ignore[misc]
    slow = server.submit("team3", SLEEP)  # judging takes seconds (TLE by the wall clock)
    queued = other.submit("team1", SUM_AC)  # waits for it (one worker), or the other process's worker judges it
    started = wait_for("judging to start", lambda: server.get(f"judgements?submission_id={slow}"))
    assert "judgement_type_id" not in started[0]
    acknowledged = [*judged, slow, queued]  # each answered 201: committed on the primary and flushed on the standby

    browser = httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=60)  # a team's browser
    login = re.search(r'name="csrf" value="([^"]+)"', browser.get("/login").text)
    assert login is not None

    primary.crash()
    # no primary: a submission is refused with a server error, and nothing is stored
    during = _post(server, "team2", SUM_AC)
    assert during.status_code == 503, during.text  # not a 500 "judge's bug" (StorageUnavailable is a Refused)
    assert "try again" in during.json()["message"] and during.headers["retry-after"] == "5"
    assert str(primary.root) not in during.text  # the client is not told where the database is
    # the pages: from memory where they can be (200), else the same 503 as a page; never a 500
    for path in ("/", "/scoreboard", "/login"):
        page = httpx.get(f"http://127.0.0.1:{server.port}{path}", headers={"accept": "text/html"}, timeout=60)
        assert page.status_code in (200, 503), (path, page.status_code, page.text[:300])
    # a login sent from the form: refused the same way (a session cannot be stored)
    r = browser.post("/login", data={"csrf": login[1], "username": "team1", "password": PASSWORDS["team1"]})
    assert r.status_code == 503, (r.status_code, r.text[:300])
    browser.close()
    # the outage lasts while every open feed tries to read the log again (each RECHECK_S) and the slow
    # submission's result cannot be stored: both wait (a wait, not a measurement: shorter only tests less)
    time.sleep(2 * RECHECK_S)
    standby.promote()
    assert _one(standby.dsn("regional"), "SELECT pg_is_in_recovery()") == [(False,)]
    on_new = _one(standby.dsn("regional"), "SELECT id FROM contest_test.submissions ORDER BY id")
    assert [str(row[0]) for row in on_new] == acknowledged  # every acknowledged one, and the refused one not

    # the same process, not restarted: it reconnects (libpq finds the new primary) and judges what was left
    def resubmit() -> str | None:
        r = _post(other, "team2", SUM_AC)
        return str(r.json()["id"]) if r.status_code == 201 else None

    later = wait_for("a submission to be taken again", resubmit)
    for sid in (slow, queued):
        wait_for(f"submission {sid} after the failover", lambda sid=sid: final(server, sid))  # type: ignore[misc]
    submissions = [s["id"] for s in server.get("submissions")]
    assert len(submissions) == 5 and submissions[:4] == acknowledged
    for sid in submissions:
        wait_for(f"submission {sid}", lambda sid=sid: final(server, sid) and final(other, sid))  # type: ignore[misc]
    verdicts = {}
    for sid in submissions:
        (j,) = final(server, sid)  # one judgement each: nothing judged twice
        assert final(other, sid) == [j]  # the other process (if any) says the same
        verdicts[sid] = j["judgement_type_id"]
    assert [verdicts[sid] for sid in submissions] == ["AC", "WA", "TLE", "AC", "AC"]
    (j_slow,) = final(server, slow)
    assert j_slow["id"] == started[0]["id"]  # the judgement begun before the crash, finished once
    # the database agrees: one judgement per submission
    rows = _one(standby.dsn("regional"), "SELECT submission_id, count(*) FROM contest_test.judgements GROUP BY 1")
    assert sorted(n for _, n in rows) == [1] * 5
    # the feed opened before the crash is still open and carries what came after, each event once, in order
    wait_for("the open feed to carry the last judgement", lambda: _judgement_of(feed, later))
    assert not feed_ended.is_set()
    tokens = [int(e["token"]) for e in feed]
    assert tokens == sorted(set(tokens))
    assert [e["data"]["id"] for e in feed if e["type"] == "submissions" and e["data"]] == submissions
    # the new primary is this process's alone, as the old one was: its owner lock was taken again there, so a
    # second `judge serve` without --shared is refused (before the fix it started: two processes, one database)
    # (from a copy of the contest folder: another machine's, whose folder lock does not see this one's)
    elsewhere = shutil.copytree(contest, tmp_path / "elsewhere", ignore=shutil.ignore_patterns("*.lock"))
    second = tmp_path / "second.log"
    with pytest.raises(AssertionError, match="judge serve exited"):
        servers.append(Serve(elsewhere, second, "--database", dsn))
    assert "in use by another `judge serve`" in second.read_text()
    for log in ("serve.log", "other.log") if shared else ("serve.log",):
        text = (tmp_path / log).read_text()
        assert "Traceback" not in text  # the outage said in one line, not a traceback
        for loop in ("contest clock", "judging queue"):  # and once by each loop that retries, not every second
            assert f"{loop}: StorageUnavailable" not in text, text
            assert text.count(f"{loop}: the database is unreachable") <= 1, text
    if shared:
        assert other.kill(signal.SIGTERM) == 143
    assert server.kill(signal.SIGTERM) == 143


def _cut(dsn: str) -> None:
    """Every connection of the database ended by the server (what a crash or a promotion does to them)."""
    import psycopg
    from pg_cluster import db_name

    name = db_name(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            # waits (up to 10 s) until each backend has exited, as after a crash: its advisory locks are gone then
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )


def test_a_storage_whose_connections_are_cut_says_unavailable_then_takes_its_lock_again(
    tmp_path: Path, dsn: str
) -> None:
    storage = Engine(dsn).open(tmp_path / "contest.sqlite", "contest_t")
    try:
        with storage.write() as w:
            w.set_meta("x", "1")
        with pytest.raises(StorageUnavailable) as cut, storage.write() as w:
            w.set_meta("x", "2")
            _cut(dsn)
            w.set_meta("y", "3")  # the connection is gone: nothing of this transaction is stored
        assert isinstance(cut.value, Refused) and cut.value.status == 503 and "contest_t" in str(cut.value)
        assert "contest_t" not in cut.value.message  # the client's words name no server
        with storage.read() as r:  # a new connection
            assert (r.get_meta("x"), r.get_meta("y")) == ("1", None)
        # the owner lock went with the owner connection, and was taken again before that read
        with pytest.raises(StorageError, match="in use by another `judge serve`"):
            Engine(dsn).open(tmp_path / "contest.sqlite", "contest_t")
        _cut(dsn)  # idle connections only: the next transaction replaces them, and takes the lock again
        with storage.read() as r:
            assert r.get_meta("x") == "1"
        with pytest.raises(StorageError, match="in use by another `judge serve`"):
            Engine(dsn).open(tmp_path / "contest.sqlite", "contest_t")
        # cut again, and another process opens the database before this one's next transaction: this one is
        # fenced off (each transaction refused, saying why), not a second writer beside it
        _cut(dsn)
        other = Engine(dsn).open(tmp_path / "other" / "contest.sqlite", "contest_t")
        try:
            for _ in range(2):
                with pytest.raises(StorageUnavailable, match="in use by another `judge serve`"), storage.read() as r:
                    r.get_meta("x")
        finally:
            other.close()
    finally:
        storage.close()


def test_a_shared_storage_leads_again_after_its_connections_are_cut(tmp_path: Path, dsn: str) -> None:
    """The lead lock went with the cut connection: the storage must not go on believing it leads (a second
    leader would do the idle work twice) nor stop leading for good (nobody would do it): its next transaction
    takes the owner lock again on a new connection, and the lead with it."""
    shared = Engine(dsn, shared=True)
    storage = shared.open(tmp_path / "contest.sqlite", "contest_t")
    other = None
    try:
        assert storage.leads()
        _cut(dsn)
        with storage.read() as r:  # its connections are found cut, and made again
            r.get_meta("x")
        wait_for("the lead taken again", storage.leads)
        other = shared.open(tmp_path / "contest.sqlite", "contest_t")
        assert not other.leads()  # one leader: the lock is really held again, on a live connection
        with pytest.raises(StorageError, match="in use by another"):  # and the shared owner lock too
            Engine(dsn).open(tmp_path / "contest.sqlite", "contest_t")
    finally:
        storage.close()
        if other is not None:
            other.close()
