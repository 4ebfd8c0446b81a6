"""Several `judge serve` processes on one PostgreSQL database (issue 51, ``--shared``; docs/design.md): the
leases of the judging queue on both engines (storage/leases.py), who may open a schema beside whom, the
other processes' commits heard through LISTEN/NOTIFY, and two real `judge serve --shared` processes on one
throwaway cluster: every submission judged once, both feeds the same, and a process SIGKILLed while judging
whose job the other judges once its lease ran out."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_fixtures import HOUR, PASSWORDS, SUM_AC, SUM_WA, T0, FakeClock
from test_serve_process import SLEEP, Serve, final, wait_for

from judge.serve.model.contest import ContestInfo
from judge.serve.model.records import Lease, NewSubmission
from judge.serve.services.core.events import EventBus
from judge.serve.services.core.timeline import Timeline
from judge.serve.storage import Engine, StorageError, open_storage

LEASE_S = "2"  # the processes' --lease: a killed one's job comes back this long after its last renewal


def _submit(storage: Any, n: int) -> list[int]:
    with storage.write() as w:
        new = [NewSubmission("team1", "team1", "sum", "python3", None, float(i), b"z") for i in range(n)]
        return [w.enqueue(w.add_submission(sub).id, "submit", 1.0) for sub in new]


def _todo(storage: Any, lease: Lease | None) -> list[int]:
    """The jobs free for ``lease`` (all of them: None), in the queue's order."""
    with storage.write() as w:
        return [j.id for j in w.todo_jobs(10, (), lease)]


def test_a_claim_is_a_lease_until_it_runs_out_on_both_engines(tmp_path: Path, engine: Engine) -> None:
    """Process A takes a job until t=103: B does not get it at 101, gets it at 104; a renewal pushes the
    expiry on; a job done is nobody's; without a lease (one process alone) every job not done is given."""
    storage = engine.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        first, second = _submit(storage, 2)
        a, b = Lease("A", 100.0, 103.0), Lease("B", 101.0, 104.0)
        with storage.write() as w:
            w.take_jobs([first], a)
        assert _todo(storage, b) == [second]  # A's lease holds
        assert _todo(storage, a) == [first, second]  # its own is free for A (taken again after a NOT_NOW)
        assert _todo(storage, Lease("B", 103.5, 106.0)) == [first, second]  # ran out at 103
        with storage.write() as w:
            assert w.renew_leases([first], Lease("A", 102.0, 110.0)) == 1
            assert w.renew_leases([first], Lease("B", 102.0, 110.0)) == 0  # not B's to renew
        assert _todo(storage, Lease("B", 105.0, 108.0)) == [second]  # renewed till 110
        with storage.write() as w:
            w.take_jobs([second], Lease("B", 105.0, 108.0))
            w.finish_job(first)
            assert w.renew_leases([first], Lease("A", 106.0, 120.0)) == 0  # done: no lease to renew
        assert _todo(storage, Lease("A", 106.0, 109.0)) == []
        assert _todo(storage, None) == [second]
        with storage.read() as r:
            assert r.next_job((), (), Lease("A", 106.0, 109.0)) is None
            assert r.next_job((), (), Lease("A", 108.5, 111.0)) == ("submit", 1.0)
    finally:
        storage.close()


def test_shared_needs_a_postgresql_database(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from judge.commands.cli import main
    from judge.commands.common import UsageError
    from judge.commands.database import engine_of

    with pytest.raises(UsageError, match="--shared needs --database"):
        engine_of(argparse.Namespace(database=None, database_file=None, shared=True))
    assert main(["serve", "somewhere", "--lease", "1"]) == 2  # renewed every second: at least 2
    assert "--lease 1: at least 2 seconds" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:  # argparse's: more than 0
        main(["serve", "somewhere", "--lease", "0"])
    assert stopped.value.code == 2 and "must be more than 0 seconds" in capsys.readouterr().err
    pytest.importorskip("psycopg")
    dsn = "postgresql://judge@/regional"
    assert engine_of(argparse.Namespace(database=dsn, database_file=None, shared=True)).shared
    assert not engine_of(argparse.Namespace(database=dsn, database_file=None, shared=False)).shared


def test_a_thaw_two_processes_find_due_is_published_once(tmp_path: Path) -> None:
    """Two timelines of one database (two processes' with --shared) both find the thaw due: the second finds
    it done in the database and does not publish the frozen judgements again."""
    info = ContestInfo("t", "t", "t", start_s=T0, duration_s=HOUR, freeze_duration_s=600, thaw_s=T0 + 2 * HOUR)
    storage = open_storage(tmp_path / "contest.sqlite")
    try:
        clock = FakeClock(T0 + 3 * HOUR)
        thaws: list[float] = []
        one, two = Timeline(info, storage, clock, EventBus()), Timeline(info, storage, clock, EventBus())
        for timeline in (one, two):
            timeline.on_change(lambda w, now, thawed_from: thaws.append(thawed_from) if thawed_from else None)
        one.tick()
        two.tick()
        assert thaws == [T0 + HOUR - 600]  # once, from the freeze
        assert one.phase.thawed_at == two.phase.thawed_at == T0 + 2 * HOUR
    finally:
        storage.close()


def test_shared_processes_open_a_schema_side_by_side_and_refuse_one_alone(tmp_path: Path, dsn: str) -> None:
    shared, alone = Engine(dsn, shared=True), Engine(dsn)
    one = shared.open(tmp_path / "contest.sqlite", "contest_t")
    two = shared.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        with pytest.raises(StorageError, match="--shared"):
            alone.open(tmp_path / "contest.sqlite", "contest_t")
    finally:
        one.close()
        two.close()
    single = alone.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        with pytest.raises(StorageError, match="without --shared"):
            shared.open(tmp_path / "contest.sqlite", "contest_t")
    finally:
        single.close()


def test_one_shared_process_at_a_time_leads_and_another_takes_over_when_it_is_gone(tmp_path: Path, dsn: str) -> None:
    """The idle work (rejudge previews, fuzzing, ...: claims in memory) is one process's at a time."""
    shared = Engine(dsn, shared=True)
    first = shared.open(tmp_path / "contest.sqlite", "contest_t")
    second = shared.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        assert first.leads() and first.leads()
        assert not second.leads()
        first.close()
        wait_for("the second to take the lead", second.leads)  # it tries again every few seconds
    finally:
        first.close()
        second.close()
    alone = Engine(dsn).open(tmp_path / "contest.sqlite", "contest_t")
    try:
        assert alone.leads()
    finally:
        alone.close()


def test_a_shared_storage_hears_of_another_processes_commit_not_of_a_rollback(tmp_path: Path, dsn: str) -> None:
    shared = Engine(dsn, shared=True)
    writer = shared.open(tmp_path / "contest.sqlite", "contest_t")
    listener = shared.open(tmp_path / "contest.sqlite", "contest_t")
    heard = threading.Event()
    calls: list[int] = []
    try:
        listening = threading.Event()
        listener.on_change(listening.set)  # called once when its listener connects (what it may have missed)
        assert listening.wait(60)

        def heard_one() -> None:
            calls.append(1)
            heard.set()

        listener.on_change(heard_one)
        with pytest.raises(RuntimeError), writer.write() as w:
            w.set_meta("x", "rolled back")
            raise RuntimeError("no commit")
        with writer.write() as w:
            w.set_meta("x", "committed")
        assert heard.wait(60)  # the commit's NOTIFY (the rollback's was never sent)
        with listener.read() as r:
            assert r.get_meta("x") == "committed"
    finally:
        writer.close()
        listener.close()


def _feed(server: Serve) -> list[dict[str, Any]]:
    r = httpx.get(server.url("event-feed"), params={"stream": "false"}, auth=("admin", PASSWORDS["admin"]), timeout=60)
    assert r.status_code == 200, r.text
    return [json.loads(line) for line in r.text.splitlines() if line.strip()]


def _judged_once(servers: list[Serve], sids: list[str]) -> dict[str, str]:
    """Each submission's one judgement's verdict, the same on every server."""
    out = {}
    for sid in sids:
        seen = [server.get(f"judgements?submission_id={sid}") for server in servers]
        assert all(s == seen[0] for s in seen), seen
        (j,) = seen[0]
        out[sid] = j["judgement_type_id"]
    return out


def test_two_shared_processes_judge_once_agree_and_survive_a_sigkill(
    contest: Path, tmp_path: Path, servers: list[Serve], dsn: str
) -> None:
    options = ("--database", dsn, "--shared", "--lease", LEASE_S)
    a = Serve(contest, tmp_path / "a.log", *options)
    servers.append(a)
    b = Serve(contest, tmp_path / "b.log", *options)
    servers.append(b)
    sids = [a.submit("team1", SUM_AC), b.submit("team2", SUM_WA), a.submit("team3", SUM_AC)]
    for sid in sids:
        wait_for(f"submission {sid}", lambda sid=sid: final(a, sid) and final(b, sid))  # type: ignore[misc]
    assert _judged_once([a, b], sids) == {sids[0]: "AC", sids[1]: "WA", sids[2]: "AC"}
    # one order of events: every line (and its token) the same from either process
    wait_for("both feeds to hold every judgement", lambda: _feed(a) == _feed(b) and len(_feed(a)) > 0)
    assert _feed(a) == _feed(b)

    # an admin's live change on one process is in force on the other (its phase read again when it hears of it)
    admin = ("admin", PASSWORDS["admin"])
    r = httpx.patch(f"{a.base}/contests/test", json={"id": "test", "duration": "6:00:00"}, auth=admin, timeout=60)
    assert r.status_code == 200, r.text

    def duration(server: Serve) -> str:
        return str(httpx.get(f"{server.base}/contests/test", auth=admin, timeout=60).json()["duration"])

    assert duration(a) == "6:00:00.000"
    wait_for("B to hear of the new duration", lambda: duration(b) == "6:00:00.000")

    # an account disabled on one process cannot log in on the other (its people read again when it hears of it)
    def status(server: Serve, user: str) -> int:
        return httpx.get(server.url("account"), auth=(user, PASSWORDS[user]), timeout=60).status_code

    assert status(b, "team3") == 200
    r = httpx.post(f"{a.base}/contests/test/accounts/team3/disable", auth=admin, timeout=60)
    assert r.status_code == 200, r.text
    assert status(a, "team3") != 200
    wait_for("B to refuse the disabled account", lambda: status(b, "team3") != 200)

    # a slow submission (a worker busy for seconds): whichever process took it is SIGKILLed while judging it
    slow = a.submit("team1", SLEEP)
    started = wait_for("judging to start", lambda: a.get(f"judgements?submission_id={slow}"))
    assert "judgement_type_id" not in started[0]
    holder = a if _lease_owner(dsn, slow).startswith(f"{a.proc.pid}-") else b
    other = b if holder is a else a
    assert _lease_owner(dsn, slow).startswith(f"{holder.proc.pid}-")
    assert holder.kill(signal.SIGKILL) == -signal.SIGKILL
    # the other judges it once the lease ran out, into the judgement already made, once
    (j,) = wait_for(f"submission {slow} judged by the other", lambda: final(other, slow))
    assert j["id"] == started[0]["id"] and j["judgement_type_id"] == "TLE"
    assert _lease_owner(dsn, slow).startswith(f"{other.proc.pid}-")
    assert len(other.get("judgements")) == 4 and len(other.get("submissions")) == 4
    # a third process joins and reads the same log
    c = Serve(contest, tmp_path / "c.log", *options)
    servers.append(c)
    wait_for("the same feed on a new process", lambda: _feed(c) == _feed(other))
    # a process without --shared is refused while they run
    alone = tmp_path / "alone.log"
    with pytest.raises(AssertionError, match="judge serve exited"):
        servers.append(Serve(contest, alone, "--database", dsn))
    assert "--shared" in alone.read_text()
    assert other.kill(signal.SIGTERM) == 143 and c.kill(signal.SIGTERM) == 143


def _lease_owner(dsn: str, submission_id: str) -> str:
    """Who holds the lease of the submission's job (``pid-token``: JudgingSetup.leases), read from PostgreSQL."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT lease_owner FROM contest_test.jobs WHERE submission_id = %s", (int(submission_id),)
        ).fetchone()
    return str(row[0]) if row and row[0] else ""


@pytest.fixture
def contest(tmp_path: Path, sandbox_runner: Any) -> Path:
    import time

    from serve_fixtures import write_contest

    from judge.serve.model.times import format_time

    return write_contest(tmp_path / "contest", start=format_time(time.time() - 60))


def _add_on_the_page(server: Serve, form: dict[str, str]) -> None:
    """An admin of the site adds a contest on /site/contests/new (Site.add_new)."""
    import re

    from serve_site_fixtures import SITE_PASSWORDS

    with httpx.Client(base_url=server.base.removesuffix("/api"), timeout=60) as web:
        token = re.search(r'name="csrf" value="([^"]+)"', web.get("/login").text)
        assert token is not None
        login = {"csrf": token.group(1), "username": "admin", "password": SITE_PASSWORDS["admin"]}
        assert web.post("/login", data=login).status_code == 303
        token = re.search(r'name="csrf" value="([^"]+)"', web.get("/site/contests/new").text)
        assert token is not None
        r = web.post("/site/contests/new", data={"csrf": token.group(1), **form})
        assert r.status_code == 303 and r.headers["location"].startswith("/site?done=added"), r.text


def test_a_contest_added_live_on_one_shared_process_is_served_by_the_other(
    tmp_path: Path, servers: list[Serve], dsn: str, sandbox_runner: Any
) -> None:
    """Two `judge serve SITE --shared` processes: a contest added on A's page is served by B without a restart
    (its pages, the API), a submission to it on B is judged once, seen the same on both; hidden on B, A hides
    it too."""
    import base64
    import time

    from serve_site_fixtures import SITE_PASSWORDS, write_site

    from judge.serve.model.times import format_time
    from judge.serve.model.upload import pack

    root = write_site(tmp_path / "site", {"main": {"problems": ("sum",)}})
    options = ("--database", dsn, "--shared", "--lease", LEASE_S)
    a = Serve(root, tmp_path / "a.log", *options)
    servers.append(a)
    b = Serve(root, tmp_path / "b.log", *options)
    servers.append(b)
    admin = ("admin", SITE_PASSWORDS["admin"])

    def contests(server: Serve, auth: tuple[str, str] = admin) -> list[str]:
        return [c["id"] for c in httpx.get(f"{server.base}/contests", auth=auth, timeout=60).json()]

    assert contests(b) == ["main"]
    start = format_time(time.time() - 60)
    form = {"id": "lab", "name": "Lab", "start": start, "duration": "2:00:00", "freeze": "0:00:00"}
    _add_on_the_page(a, {**form, "problem-sum": "on"})
    assert contests(a) == ["lab", "main"]
    wait_for("B to serve the contest added on A", lambda: contests(b) == ["lab", "main"])
    team = ("team2", SITE_PASSWORDS["team2"])
    page = httpx.get(f"{b.base.removesuffix('/api')}/contests/lab/problems", auth=team, timeout=60)
    assert page.status_code in (200, 303), page.text  # the contest's pages are B's too (not a 404)
    body = {
        "problem_id": "sum",
        "language_id": "python3",
        "files": [{"data": base64.b64encode(pack({"sum.py": SUM_AC.encode()})).decode()}],
    }
    r = httpx.post(f"{b.base}/contests/lab/submissions", json=body, auth=team, timeout=60)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]

    def judgements(server: Serve) -> list[dict[str, Any]]:
        url = f"{server.base}/contests/lab/judgements?submission_id={sid}"
        return list(httpx.get(url, auth=admin, timeout=60).json())

    def judged(server: Serve) -> list[dict[str, Any]]:
        js = judgements(server)
        return js if js and all("judgement_type_id" in j for j in js) else []

    (j,) = wait_for("the submission judged", lambda: judged(a) and judged(b))
    assert j["judgement_type_id"] == "AC" and judged(a) == judged(b) == [j]  # once, the same on both

    # hidden on B: A hides it from the teams too (the registry read again)
    with httpx.Client(base_url=b.base.removesuffix("/api"), timeout=60) as web:
        import re

        token = re.search(r'name="csrf" value="([^"]+)"', web.get("/login").text)
        assert token is not None
        login = {"csrf": token.group(1), "username": "admin", "password": SITE_PASSWORDS["admin"]}
        assert web.post("/login", data=login).status_code == 303
        token = re.search(r'name="csrf" value="([^"]+)"', web.get("/site").text)
        assert token is not None
        r = web.post("/site/contests/lab/change", data={"csrf": token.group(1), "action": "hide"})
        assert r.status_code == 303, r.text
    assert contests(b, team) == ["main"]
    wait_for("A to hide the contest hidden on B", lambda: contests(a, team) == ["main"])
    for server in (a, b):
        assert "Traceback" not in server.log.read_text()


def test_two_shared_processes_count_failed_logins_together(
    contest: Path, tmp_path: Path, servers: list[Serve], dsn: str
) -> None:
    """`--account-lockout 4/600`: two failures on A and two on B lock the account on both (one count in the
    database), the right password too; another account is not locked."""
    options = ("--database", dsn, "--shared", "--account-lockout", "4/600")
    a = Serve(contest, tmp_path / "a.log", *options)
    servers.append(a)
    b = Serve(contest, tmp_path / "b.log", *options)
    servers.append(b)

    def status(server: Serve, user: str, password: str) -> int:
        return httpx.get(server.url("account"), auth=(user, password), timeout=60).status_code

    assert [status(a, "team1", "guess") for _ in range(2)] == [401, 401]
    assert [status(b, "team1", "guess") for _ in range(2)] == [401, 401]
    assert status(a, "team1", PASSWORDS["team1"]) == 429 and status(b, "team1", PASSWORDS["team1"]) == 429
    assert status(b, "team2", PASSWORDS["team2"]) == 200
