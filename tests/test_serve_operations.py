"""Judging while the contest runs (issue 30), through the HTTP stack: pause and resume (submissions still
accepted and queued; resume judges every held one once), hold a problem and release it, the queue, the
judging threads (a real pool, judging a submission that waits for the test), the judge's errors, the jury's
page, and who may (admins change, staff watch)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import CHEAP_HASHER, HOUR, SUM_AC, T0, Api, FakeClock, ScriptedJudge, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.cluster.workers import judge_workers
from judge.judging.jobs import JudgeJob
from judge.judging.results import SubmissionResult
from judge.serve.model.contest import load_contest
from judge.serve.site.server import ServeOptions, Server, open_server

C = "/api/contests/test"
DIVISOR = "n = int(input())\nprint(1)\n"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_contest(tmp_path / "contest", rate=(20, 60))


@pytest.fixture
def server(root: Path, clock: FakeClock) -> Iterator[Server]:
    s = make_server(root, clock)
    yield s
    s.close()


@pytest.fixture
def api(server: Server) -> Api:
    return Api.of(server)


def states(api: Api) -> dict[str, str]:
    return {q["submission_id"]: q["state"] for q in api.get(f"{C}/judging/queue", "judge").json()}


def test_pause_holds_and_resume_judges_each_once(api: Api, server: Server, clock: FakeClock) -> None:
    r = api.request("POST", f"{C}/judging/pause", "admin")
    assert r.status_code == 200 and r.json() == {"paused": True, "held_problem_ids": []}
    for team in ("team1", "team2", "team3"):
        assert api.submit(team).status_code == 201  # still accepted
    assert server.judging.run_pending() == 0
    assert states(api) == {"1": "held", "2": "held", "3": "held"}
    assert api.get(f"{C}/judging", "judge").json() == {"paused": True, "held_problem_ids": [], "queued": 3}
    clock.advance(30)
    assert api.get(f"{C}/judging/queue", "admin").json()[0]["waiting_s"] == 30.0
    assert api.request("POST", f"{C}/judging/resume", "admin").json()["paused"] is False
    assert server.judging.run_pending() == 3
    assert server.judging.run_pending() == 0
    assert states(api) == {}
    assert len(server.judging._judge_fn.calls) == 3  # type: ignore[attr-defined] - ScriptedJudge: once each
    actions = [e["action"] for e in api.get(f"{C}/audit-log", "admin").json()]
    assert actions == ["judging.resume", "judging.pause"]


def test_a_held_problem_waits_for_its_release(api: Api, server: Server) -> None:
    assert api.request("POST", f"{C}/problems/sum/hold", "admin").json()["held_problem_ids"] == ["sum"]
    assert api.submit("team1").status_code == 201
    assert api.submit("team2", problem="divisor", files={"divisor.py": DIVISOR}).status_code == 201
    assert server.judging.run_pending() == 1  # the divisor one
    assert states(api) == {"1": "held"}
    assert api.request("POST", f"{C}/problems/nope/hold", "admin").status_code == 404
    assert api.request("POST", f"{C}/problems/sum/release", "admin").json()["held_problem_ids"] == []
    assert server.judging.run_pending() == 1


def test_the_hold_survives_a_restart(root: Path, clock: FakeClock) -> None:
    first = make_server(root, clock)
    assert Api.of(first).request("POST", f"{C}/judging/pause", "admin").status_code == 200
    first.close()
    second = make_server(root, clock)
    try:
        assert Api.of(second).submit("team1").status_code == 201
        assert second.judging.run_pending() == 0
    finally:
        second.close()


def test_who_may(api: Api) -> None:
    for path in ("judging/pause", "judging/resume", "problems/sum/hold", "problems/sum/release"):
        assert api.request("POST", f"{C}/{path}").status_code == 401
        for user in ("team1", "judge"):
            assert api.request("POST", f"{C}/{path}", user).status_code == 403, (path, user)
    for path in ("judging", "judging/queue", "judging/judges", "judging/errors"):
        assert api.get(f"{C}/{path}").status_code == 401
        assert api.get(f"{C}/{path}", "team1").status_code == 403
        assert api.get(f"{C}/{path}", "judge").status_code == 200
    assert api.get(f"{C}/judging", "admin").json()["paused"] is False


def test_the_judges_errors_are_listed(root: Path, clock: FakeClock) -> None:
    contest = load_contest(root, Path(__file__).parent / "fixtures")
    server = make_server(root, clock, ScriptedJudge({p.id: p.problem for p in contest.problems}, fail=True))
    try:
        api = Api.of(server)
        assert api.submit("team1").status_code == 201
        server.judging.run_pending()
        (error,) = api.get(f"{C}/judging/errors", "judge").json()
        assert error["submission_id"] == "1" and "the executor lost its worker" in error["message"]
        assert "the executor lost its worker" in login(server, "judge").get("/admin/judging").text
    finally:
        server.close()


class Waiting:
    """A JudgeFn that judges once the test lets it."""

    def __init__(self, inner: ScriptedJudge) -> None:
        self.inner = inner
        self.go = threading.Event()

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        assert self.go.wait(60)
        return self.inner(job)


def until(check: object, what: str) -> None:
    deadline = time.monotonic() + 30  # a safety net, not a measurement
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_the_judges_page_shows_what_each_thread_does(root: Path, clock: FakeClock) -> None:
    contest = load_contest(root, Path(__file__).parent / "fixtures")
    judge = Waiting(ScriptedJudge({p.id: p.problem for p in contest.problems}))
    server = make_server(root, clock, judge)
    server.start()
    try:
        api = Api.of(server)
        assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
        server.pool.wake()

        def slot() -> dict:  # type: ignore[type-arg]
            return api.get(f"{C}/judging/judges", "judge").json()["slots"][0]

        until(lambda: slot()["status"] == "judging", "the thread takes the submission")
        assert slot()["submission_id"] == "1" and slot()["judged"] == 0
        clock.advance(12)
        assert slot()["judging_s"] == 12.0
        assert states(api) == {"1": "running"}
        page = login(server, "judge").get("/admin/judging").text
        assert "judging" in page and 'id="queued-1"' in page
        judge.go.set()
        until(lambda: slot()["judged"] == 1, "the thread finishes")
        assert slot()["status"] == "idle" and states(api) == {}
    finally:
        judge.go.set()
        server.stop()
        server.close()


def test_the_jury_page_pauses(server: Server, api: Api) -> None:
    admin = login(server, "admin")
    page = admin.get("/admin/judging").text
    assert 'id="pause"' in page and 'id="hold-sum"' in page
    r = admin.post("/admin/judging", data={"csrf": csrf_of(page), "action": "pause"})  # not confirmed: asked
    assert r.status_code == 200 and 'id="confirm-question"' in r.text and "Pause judging?" in r.text
    assert api.get(f"{C}/judging", "admin").json()["paused"] is False
    r = admin.post("/admin/judging", data={"csrf": csrf_of(page), "action": "pause", "confirmed": "yes"})
    assert r.status_code == 303 and "judging+is+paused" in r.headers["location"]
    assert 'id="paused"' in admin.get("/admin/judging?fragment=1").text
    assert api.get(f"{C}/judging", "admin").json()["paused"] is True
    r = admin.post("/admin/judging", data={"csrf": csrf_of(page), "action": "hold", "problem_id": "divisor"})
    assert r.status_code == 303 and api.get(f"{C}/judging", "admin").json()["held_problem_ids"] == ["divisor"]
    judge = login(server, "judge")
    page = judge.get("/admin/judging").text
    assert 'id="resume"' not in page
    assert judge.post("/admin/judging", data={"csrf": csrf_of(page), "action": "resume"}).status_code == 403
    assert api.get(f"{C}/judging", "admin").json()["paused"] is True


def test_a_clusters_judge_workers(root: Path, clock: FakeClock) -> None:
    """The judges page lists a Dask cluster's judge workers, as the scheduler describes them."""
    info = {
        "workers": {
            "tcp://10.0.0.2:4000": {"name": "lab-2", "resources": {"judge": 4}, "metrics": {"executing": 3}},
            "tcp://10.0.0.1:4000": {"name": "lab-1", "resources": {"judge": 2}, "last_seen": T0 + HOUR},
            "tcp://10.0.0.9:4000": {"name": "other", "resources": {}},  # not a judge worker
        }
    }
    workers = judge_workers(info)
    assert [(w.name, w.slots, w.executing) for w in workers] == [("lab-1", 2, 0), ("lab-2", 4, 3)]
    contest = load_contest(root, Path(__file__).parent / "fixtures")
    judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    options = ServeOptions(hasher=CHEAP_HASHER, clock=clock, capacity=lambda: 6, cluster_workers=lambda: workers)
    server = open_server(contest, {}, judge, options)
    try:
        doc = Api.of(server).get(f"{C}/judging/judges", "judge").json()
        assert doc["cluster_slots"] == 6
        assert [(w["name"], w["slots"], w["executing"]) for w in doc["cluster_workers"]] == [
            ("lab-1", 2, 0),
            ("lab-2", 4, 3),
        ]
        assert doc["cluster_workers"][0]["last_seen"] == "2030-01-01T11:00:00.000+00:00"
        page = login(server, "judge").get("/admin/judging").text
        assert 'id="cluster-workers"' in page and "lab-2" in page
    finally:
        server.close()
    assert judge_workers({}) == []
