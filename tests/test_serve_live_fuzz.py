"""Live fuzzing in `judge serve` (issue 33, docs/live-fuzzing.md), through the real app with a scripted judge
(ScriptedJudge: AC when the source says ``a + b``) and a scripted runner for the fuzzing (no processes): a
wrong-but-accepted submission on a weak test set is caught, and its counterexample reaches the jury's
endpoint only; a fuzz job yields to a real submission and resumes with the rest of its budget; which
submissions are fuzzed at all."""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import Reply, make_package
from serve_fixtures import CHEAP_HASHER, FIXTURES, HOUR, T0, Api, FakeClock, ScriptedJudge, feed, write_contest
from test_fuzz_search import HOOKS, ByInput, doubles, off_by_one_from

from judge.judging.jobs import JudgeJob, SourceFile
from judge.judging.prepared import Packages
from judge.judging.results import SubmissionResult
from judge.serve.model.contest import load_contest
from judge.serve.model.records import Counterexample, FuzzState
from judge.serve.services.judging.fuzz_jobs import MAX_BYTES, FuzzBudget, LiveFuzz, capped
from judge.serve.site.server import ServeOptions, Server, open_server

C = "/api/contests/test"
WEAK = "x = int(input())\nprint(2 * x if x < 37 else 2 * x + 1)  # passes the tests: a + b\n"
WAIT_S = 20.0


@dataclass
class Judge:
    """ScriptedJudge, and WA for every job once ``wrong`` is set (a rejudge that is no longer AC)."""

    inner: ScriptedJudge
    wrong: bool = False
    judged: list[str] = field(default_factory=list)  # the labels of the jobs judged, in order

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        self.judged.append(job.label.split(" (")[0])
        if self.wrong:
            job = replace(job, files=(SourceFile("x.py", b"print(0)\n"),))
        return self.inner(job)


@dataclass
class Live:
    server: Server
    judge: Judge
    runner: ByInput
    found: list[Counterexample]


def open_live(tmp_path: Path, program: Callable[[int], Reply], *, workers: int = 1, examples: int = 100) -> Live:
    """The fixture contest with problem A = double (its one secret test, 1 -> 2, passes WEAK), fuzzable."""
    root = write_contest(tmp_path / "contest")
    (root / "problems.yaml").write_text("- {id: double, label: A}\n- {id: sum, label: B}\n")
    package = make_package(
        root / "problems" / "double", {"name": "Double"}, {"secret/01": (b"1\n", b"2\n")}, validator=False
    )
    (package / "fuzz.py").write_text(HOOKS)
    contest = load_contest(root, FIXTURES)
    judge = Judge(ScriptedJudge({p.id: p.problem for p in contest.problems}))
    runner = ByInput(program)
    env = fake_environment(runner)
    packages = Packages({p.id: p.problem for p in contest.problems}, env)
    found: list[Counterexample] = []
    live = LiveFuzz(env, packages, FuzzBudget(examples=examples, seconds=3600.0))
    options = ServeOptions(
        hasher=CHEAP_HASHER, clock=FakeClock(T0 + HOUR), workers=workers, fuzz=live, on_counterexample=found.append
    )
    server = open_server(contest, {k: v for k, v in env.languages.items() if k == "python3"}, judge, options)
    return Live(server, judge, runner, found)


@pytest.fixture
def weak(tmp_path: Path) -> Iterator[Live]:
    live = open_live(tmp_path, off_by_one_from(37))
    yield live
    live.server.close()


def submit(api: Api, user: str, source: str = WEAK, **extra: object) -> str:
    r = api.submit(user, "double", {"double.py": source}, **extra)
    assert r.status_code in (200, 201), r.text
    return str(r.json()["id"])


def fuzz_all(server: Server, cancelled: Callable[[], bool] = lambda: False) -> int:
    """Run every fuzz job the queue gives, in this thread; how many runs."""
    assert server.fuzz is not None
    n = 0
    while jobs := server.fuzz.claim_idle(1, set()):
        jobs[0].run(cancelled)
        n += 1
        if cancelled():
            break
    return n


def test_a_wrong_but_accepted_submission_is_caught_and_only_the_jury_sees_it(weak: Live) -> None:
    server, api = weak.server, Api.of(weak.server)
    sid = submit(api, "team1")
    assert server.judging.run_pending() == 1
    assert api.get(f"{C}/judgements", "team1").json()[0]["judgement_type_id"] == "AC"  # the tests are weak
    before = {user: feed(api, user) for user in (None, "team1", "team2", "judge", "admin")}
    assert fuzz_all(server) == 1
    assert [(c.submission_id, c.input, c.answer, c.output, c.verdict) for c in weak.found] == [
        (int(sid), b"37\n", b"74\n", b"75\n", "WA")
    ]  # the hook the pages' notification uses
    for jury in ("judge", "admin"):
        listed = api.get(f"{C}/counterexamples", jury).json()
        assert [(c["submission_id"], c["team_id"], c["verdict"]) for c in listed] == [(sid, "team1", "WA")]
        one = api.get(f"{C}/counterexamples/{listed[0]['id']}", jury).json()
        assert base64.b64decode(one["input"]) == b"37\n" and base64.b64decode(one["output"]) == b"75\n"
        jobs = api.get(f"{C}/fuzzing/jobs", jury).json()
        assert [(j["submission_id"], j["state"], j["counterexample_id"]) for j in jobs] == [
            (sid, "counterexample", listed[0]["id"])
        ]
        double = next(p for p in api.get(f"{C}/fuzzing", jury).json() if p["problem_id"] == "double")
        assert double == {
            "problem_id": "double",
            "fuzzable": True,
            "fuzzed": 1,
            "survived": 0,
            "counterexamples": 1,
            "errors": 0,
            "queued": 0,
            "running": 0,
        }
    refusals = set()
    for path in ("fuzzing", "fuzzing/jobs", "counterexamples", f"counterexamples/{listed[0]['id']}"):
        assert api.get(f"{C}/{path}").status_code == 401, path
        for team in ("team1", "team2"):
            r = api.get(f"{C}/{path}", team)
            refusals.add((r.status_code, r.text))
    assert len(refusals) == 1 and next(iter(refusals))[0] == 403
    assert {user: feed(api, user) for user in before} == before  # nothing on anyone's feed
    for user in ("team1", None):  # nor in the submission or judgement objects anyone reads
        for path in ("submissions", "judgements"):
            assert "fuzz" not in api.get(f"{C}/{path}", user).text.lower()


def test_a_correct_submission_survives_its_budget(tmp_path: Path) -> None:
    live = open_live(tmp_path, doubles, examples=30)
    try:
        api = Api.of(live.server)
        submit(api, "team2")
        live.server.judging.run_pending()
        fuzz_all(live.server)
        with live.server.storage.read() as r:
            (job,) = r.fuzz_jobs()
            assert (job.state, job.examples_done, job.attempts) == (FuzzState.SURVIVED, 30, 1)
            assert r.counterexamples() == []
        assert live.found == []
    finally:
        live.server.close()


def test_a_job_that_yields_resumes_with_the_rest_of_its_budget(tmp_path: Path) -> None:
    live = open_live(tmp_path, doubles, examples=60)
    try:
        api = Api.of(live.server)
        submit(api, "team1")
        live.server.judging.run_pending()
        fuzz_all(live.server, cancelled=lambda: len(live.runner.stdins) >= 10)
        with live.server.storage.read() as r:
            (job,) = r.fuzz_jobs()
        assert (job.state, job.attempts) == (FuzzState.QUEUED, 1) and 10 <= job.examples_done < 60
        fuzz_all(live.server)
        with live.server.storage.read() as r:
            (done,) = r.fuzz_jobs()
        assert (done.state, done.attempts, done.examples_done) == (FuzzState.SURVIVED, 2, 60)
    finally:
        live.server.close()


def test_who_is_fuzzed_and_a_rejudge_that_is_not_ac_cancels(weak: Live) -> None:
    server, api = weak.server, Api.of(weak.server)
    team = submit(api, "team1")
    by_admin = submit(api, "admin", team_id="team2")  # the jury's test for a team
    before = submit(api, "admin", team_id="team3", time="2030-01-01T09:00:00Z")  # before the start
    ignored = submit(api, "team2")
    assert api.request("POST", f"{C}/submissions/{ignored}/ignore", "judge").status_code < 300
    server.judging.run_pending()
    with server.storage.read() as r:
        assert [str(j.submission_id) for j in r.fuzz_jobs()] == [team]
    assert by_admin and before
    weak.judge.wrong = True
    assert api.request("POST", f"{C}/submissions/{team}/rejudge", "judge").status_code < 300
    server.judging.run_pending()
    with server.storage.read() as r:
        (job,) = r.fuzz_jobs()
    assert job.state is FuzzState.CANCELLED and "no longer accepted" in job.message
    assert fuzz_all(server) == 0


def test_nothing_is_fuzzed_while_judging_is_paused_or_the_problem_held(weak: Live) -> None:
    server, api = weak.server, Api.of(weak.server)
    submit(api, "team1")
    server.judging.run_pending()
    assert server.fuzz is not None and len(server.fuzz.claim_idle(1, set())) == 1
    assert api.request("POST", f"{C}/problems/double/hold", "admin").status_code < 300
    assert server.fuzz.claim_idle(1, set()) == []
    assert api.request("POST", f"{C}/problems/double/release", "admin").status_code < 300
    assert api.request("POST", f"{C}/judging/pause", "admin").status_code < 300
    assert server.fuzz.claim_idle(1, set()) == []
    assert api.request("POST", f"{C}/judging/resume", "admin").status_code < 300
    assert len(server.fuzz.claim_idle(1, set())) == 1


def test_a_real_submission_arriving_while_fuzzing_runs_is_judged_first(tmp_path: Path) -> None:
    """The pool's order, not timing: the fuzz run's first example waits until the second submission is
    queued; the run then yields before its next example, the submission is judged, and the job resumes."""
    started, release = threading.Event(), threading.Event()
    order: list[str] = []

    def program(n: int) -> Reply:
        if not started.is_set():
            started.set()
            release.wait(WAIT_S)
        order.append("fuzz example")
        return doubles(n)

    live = open_live(tmp_path, program, examples=40)
    judged = threading.Event()

    def judge(job: JudgeJob) -> SubmissionResult:
        result = live.judge(job)
        order.append(job.label.split(" (")[0])
        judged.set()
        return result

    live.server.judging._judge_fn = judge  # noqa: SLF001 - to see the order in which the pool runs things
    try:
        api = Api.of(live.server)
        first = submit(api, "team1")
        live.server.start()
        assert started.wait(WAIT_S)  # the first submission was judged (AC) and its fuzz job runs
        judged.clear()
        second = submit(api, "team2", "print(0)\n")  # WA: no fuzz job of its own
        release.set()
        assert judged.wait(WAIT_S)
        for _ in range(int(WAIT_S / 0.01)):
            with live.server.storage.read() as r:
                (job,) = r.fuzz_jobs()
            if job.state is FuzzState.SURVIVED:
                break
            threading.Event().wait(0.01)
        assert job.state is FuzzState.SURVIVED and job.attempts == 2 and job.examples_done == 40
        judged_at = order.index(f"submission {second}")
        assert order[:2] == [f"submission {first}", "fuzz example"]  # one example, then it yielded
        assert judged_at == 2 and order[judged_at + 1 :] == ["fuzz example"] * (len(order) - 3)
    finally:
        live.server.stop()
        live.server.close()


def test_a_counterexample_is_cut_to_the_size_stored() -> None:
    big = b"7" * (MAX_BYTES + 5)
    assert capped(big) == (big[:MAX_BYTES], True)
    assert capped(big[:MAX_BYTES]) == (big[:MAX_BYTES], False) and capped(None) == (None, False)
