"""Counterexamples for rejected submissions in `judge serve` (issue 46, docs/explain.md, docs/serve.md), through
the real app with a scripted judge (ScriptedJudge: WA unless the source says ``a + b``) and a scripted runner
for the searches (no processes): a rejected submission queues a search with the policy in force, run on idle
slots; its team sees it under ``counterexamples: team`` (never another team, never the public), the jury
always; the withheld case; the policy per role and per problem; the per-team limit; a rejudge to AC cancels
it; a search that gives its slot back resumes with the rest of its budget; a real submission goes first.

The problem doubles a number (tests/test_fuzz_search.py's fuzz.py); its tests' inputs are 1 (a sample),
37 and 2 (secret)."""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import Reply, make_package, ran
from serve_fixtures import CHEAP_HASHER, FIXTURES, HOUR, T0, Api, FakeClock, ScriptedJudge, feed, write_contest
from test_fuzz_search import HOOKS, ByInput, doubles, off_by_one_from

from judge.judging.jobs import JudgeJob, SourceFile
from judge.judging.prepared import Packages
from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict
from judge.serve.model.contest import load_contest
from judge.serve.model.explanations import ExplainState
from judge.serve.services.judging.explain_plan import LiveExplain
from judge.serve.site.server import ServeOptions, Server, open_server

C = "/api/contests/test"
WRONG = "x = int(input())\nprint(2 * x if x < 37 else 2 * x + 1)\n"  # WA (the scripted judge); the runner decides
TESTS = {"sample/1": (b"1\n", b"2\n"), "secret/01": (b"37\n", b"74\n"), "secret/02": (b"2\n", b"4\n")}
SMALL = HOOKS.replace("st.integers(0, 1000)", "st.integers(0, 3)")  # 0..3: every input gets tried
POLICY = "{show: team, examples: 100, seconds: 3600, per_team: 2}"
WAIT_S = 20.0


@dataclass
class Judge:
    """ScriptedJudge, and AC for every job once ``accept`` is set (a rejudge that accepts the submission)."""

    inner: ScriptedJudge
    accept: bool = False
    verdict: Verdict | None = None  # every rejection judged this instead of WA
    judged: list[str] = field(default_factory=list)

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        self.judged.append(job.label.split(" (")[0])
        if self.accept:
            job = replace(job, files=(SourceFile("x.py", b"print(a + b)\n"),))
        result = self.inner(job)
        return result if self.verdict is None or result.verdict is Verdict.AC else replace(result, verdict=self.verdict)


@dataclass
class Live:
    server: Server
    judge: Judge
    runner: ByInput
    api: Api


def open_live(
    tmp_path: Path,
    program: Callable[[int], Reply],
    *,
    policy: str = POLICY,
    double: str = "",
    hooks: str = HOOKS,
    workers: int = 1,
    extra: tuple[str, ...] = (),
    explain: bool = True,
    unsearched: str | None = None,
    log: Callable[[str], None] | None = None,
) -> Live:
    """The fixture contest with problem A = double (fuzz.py; ``double``: more of its problems.yaml entry) and
    B = sum (no fuzz.py), contest.yaml's ``counterexamples: <policy>`` (``explain``: whether the server searches
    at all: `judge serve` does not when every policy is off; ``unsearched``: why it searches none whatever the
    policy, as `judge serve --cluster`; ``log``: the server's log lines)."""
    root = write_contest(tmp_path / "contest", extra=(f"counterexamples: {policy}", *extra))
    (root / "problems.yaml").write_text(f"- {{id: double, label: A{double}}}\n- {{id: sum, label: B}}\n")
    package = make_package(root / "problems" / "double", {"name": "Double"}, TESTS, validator=False)
    (package / "fuzz.py").write_text(hooks)
    contest = load_contest(root, FIXTURES)
    judge = Judge(ScriptedJudge({p.id: p.problem for p in contest.problems}))
    runner = ByInput(program)
    env = fake_environment(runner)
    packages = Packages({p.id: p.problem for p in contest.problems}, env)
    options = ServeOptions(
        hasher=CHEAP_HASHER,
        clock=FakeClock(T0 + HOUR),
        workers=workers,
        explain=LiveExplain(env, packages) if explain else None,
        unsearched=unsearched,
    )
    if log is not None:
        options = replace(options, log=log)
    server = open_server(contest, {k: v for k, v in env.languages.items() if k == "python3"}, judge, options)
    return Live(server, judge, runner, Api.of(server))


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    found = open_live(tmp_path, off_by_one_from(37))
    yield found
    found.server.close()


def submit(api: Api, user: str, source: str = WRONG, problem: str = "double", **extra: object) -> str:
    r = api.submit(user, problem, {f"{problem}.py": source}, **extra)
    assert r.status_code in (200, 201), r.text
    return str(r.json()["id"])


def search_all(server: Server, cancelled: Callable[[], bool] = lambda: False) -> int:
    """Run every search the queue gives, in this thread; how many runs."""
    assert server.explain is not None
    n = 0
    while jobs := server.explain.claim_idle(1, set()):
        jobs[0].run(cancelled)
        n += 1
        if cancelled():
            break
    return n


def cex(api: Api, sid: str, user: str | None) -> tuple[int, dict[str, object]]:
    r = api.get(f"{C}/submissions/{sid}/counterexample", user)
    return r.status_code, r.json()


def b64(doc: dict[str, object], key: str) -> bytes:
    value = doc[key]
    assert isinstance(value, str)
    return base64.b64decode(value)


def test_the_team_sees_its_counterexample_the_jury_too_nobody_else(live: Live) -> None:
    server, api = live.server, live.api
    sid = submit(api, "team1")
    assert server.judging.run_pending() == 1
    status, doc = cex(api, sid, "team1")
    assert status == 200 and doc == {"submission_id": sid, "problem_id": "double", "status": "queued", "verdict": "WA"}
    before = {user: feed(api, user) for user in (None, "team1", "team2", "judge")}
    assert search_all(server) == 1
    status, doc = cex(api, sid, "team1")
    assert status == 200 and doc["status"] == "found" and doc["failure"] == "WA", doc
    # the secret test's 37 fails too, and is never shown: the search walks around it to the next one
    assert (b64(doc, "input"), b64(doc, "answer"), b64(doc, "output")) == (b"38\n", b"76\n", b"77\n")
    assert "policy" not in doc and "withheld" not in doc and "team_shown" not in doc  # the jury's only
    files = doc["files"]
    assert isinstance(files, dict) and set(files) == {"input", "answer", "output"}
    for part, data in (("input", b"38\n"), ("answer", b"76\n"), ("output", b"77\n")):
        r = api.get(files[part], "team1")
        assert r.status_code == 200 and r.content == data, part
        assert r.headers["content-disposition"].endswith(
            f"submission-{sid}.{dict(input='in', answer='ans', output='out')[part]}"
        )
        assert r.headers["x-content-type-options"] == "nosniff"
    for jury in ("judge", "admin"):
        status, full = cex(api, sid, jury)
        assert status == 200 and b64(full, "input") == b"38\n"
        assert full["policy"] == {"show": "team", "examples": 100, "seconds": 3600.0, "per_team": 2}
        assert full["team_shown"] is True and full["state"] == "done" and full["team_id"] == "team1"
        assert isinstance(full["withheld"], int)
    assert b"37\n" in live.runner.stdins  # the secret test's input was tried (and failed), and is not shown
    assert {user: feed(api, user) for user in before} == before  # nothing on anyone's feed
    # another team, the public, a submission with none and one that does not exist: one and the same 404
    other = submit(api, "team2", "print(a + b)\n")  # AC: no search
    server.judging.run_pending()
    refusals = set()
    for user, asked in (("team2", sid), (None, sid), ("team2", other), ("team1", other), ("team1", "999")):
        r = api.get(f"{C}/submissions/{asked}/counterexample", user)
        refusals.add((r.status_code, r.text.replace(asked, "ID")))
        r = api.get(f"{C}/submissions/{asked}/counterexample/input", user)
        refusals.add((r.status_code, r.text.replace(asked, "ID")))
    assert len(refusals) == 1 and next(iter(refusals))[0] == 404, refusals
    assert api.get(f"{C}/submissions/{sid}/counterexample/nothing", "team1").status_code == 404


def test_failing_only_on_the_tests_inputs_is_withheld(tmp_path: Path) -> None:
    wrong_on_tests = lambda n: ran(b"%d\n" % (2 * n + 1)) if n in (1, 2) else doubles(n)  # noqa: E731
    live = open_live(tmp_path, wrong_on_tests, hooks=SMALL)
    try:
        sid = submit(live.api, "team1")
        live.server.judging.run_pending()
        search_all(live.server)
        assert {b"1\n", b"2\n"} <= set(live.runner.stdins)  # both tried, both failed, neither shown
        status, doc = cex(live.api, sid, "team1")
        assert status == 200 and doc["status"] == "withheld" and "input" not in doc and "files" not in doc
        assert live.api.get(f"{C}/submissions/{sid}/counterexample/input", "team1").status_code == 404
        status, full = cex(live.api, sid, "judge")
        assert full["status"] == "withheld" and "input" not in full and full["withheld"] >= 2
        with live.server.storage.read() as r:
            (search,) = r.explanations()
        assert search.result is not None and search.result.input is None  # nothing of those inputs is kept
    finally:
        live.server.close()


@pytest.mark.parametrize(
    ("policy", "double", "searched", "team_sees"),
    [
        ("team", "", True, True),
        ("jury", "", True, False),
        ("off", "", False, False),
        ("team", ", counterexamples: jury", True, False),  # problems.yaml's view wins
        ("team", ", counterexamples: off", False, False),
        ("off", ", counterexamples: team", True, True),
    ],
)
def test_the_policy_per_role_and_per_problem(
    tmp_path: Path, policy: str, double: str, searched: bool, team_sees: bool
) -> None:
    live = open_live(tmp_path, off_by_one_from(37), policy=policy, double=double)
    try:
        server, api = live.server, live.api
        sid = submit(api, "team1")
        server.judging.run_pending()
        assert (server.explain is not None) is searched
        if searched:
            assert search_all(server) == 1
        with server.storage.read() as r:
            assert len(r.explanations()) == int(searched)
        assert cex(api, sid, "team1")[0] == (200 if team_sees else 404)
        assert cex(api, sid, "judge")[0] == (200 if searched else 404)
        assert cex(api, sid, None)[0] == 404
    finally:
        live.server.close()


def test_the_per_team_limit(tmp_path: Path) -> None:
    live = open_live(tmp_path, off_by_one_from(37), policy="{show: team, examples: 100, per_team: 1}")
    try:
        server, api = live.server, live.api
        first, second = submit(api, "team1"), submit(api, "team1", WRONG + "# again\n")
        elsewhere = submit(api, "team2")
        server.judging.run_pending()
        assert search_all(server) == 3
        assert cex(api, first, "team1")[1]["status"] == "found"
        status, doc = cex(api, second, "team1")  # found too, but the team has had its one
        assert status == 200 and {k: doc[k] for k in ("status", "per_team")} == {"status": "limit", "per_team": 1}
        assert not {"input", "answer", "output", "files", "message"} & set(doc)
        assert api.get(f"{C}/submissions/{second}/counterexample/input", "team1").status_code == 404
        assert cex(api, elsewhere, "team2")[1]["status"] == "found"  # the limit is per team
        status, full = cex(api, second, "judge")  # the jury sees them all
        assert full["status"] == "found" and full["team_shown"] is False and b64(full, "input") == b"38\n"
    finally:
        live.server.close()


def test_a_rejudge_to_ac_cancels_the_search_open_or_ended(live: Live) -> None:
    server, api = live.server, live.api
    queued, ended = submit(api, "team1"), submit(api, "team2")
    server.judging.run_pending()
    assert server.explain is not None
    (job,) = [j for j in server.explain.claim_idle(2, set()) if j.submission_id == int(ended)]
    job.run(lambda: False)
    assert cex(api, ended, "team2")[1]["status"] == "found"
    live.judge.accept = True
    for sid in (queued, ended):
        assert api.request("POST", f"{C}/submissions/{sid}/rejudge", "judge").status_code < 300
    assert server.judging.run_pending() == 2
    for sid, team in ((queued, "team1"), (ended, "team2")):
        assert cex(api, sid, team)[0] == 404  # the team no longer sees it
        status, full = cex(api, sid, "judge")
        assert status == 200 and full["status"] == "cancelled" and full["cancelled"] == "judgement 2: AC, not searched"
    assert server.explain.claim_idle(2, set()) == [] and search_all(server) == 0
    live.judge.accept = False  # rejected again (same package): searched again
    assert api.request("POST", f"{C}/submissions/{queued}/rejudge", "judge").status_code < 300
    server.judging.run_pending()
    assert cex(api, queued, "team1")[1]["status"] == "queued"


def test_who_is_searched(live: Live) -> None:
    server, api = live.server, live.api
    team = submit(api, "team1")
    by_admin = submit(api, "admin", team_id="team2")  # the jury's test for a team
    before = submit(api, "admin", team_id="team3", time="2030-01-01T09:00:00Z")  # before the start
    ignored = submit(api, "team2")
    assert api.request("POST", f"{C}/submissions/{ignored}/ignore", "judge").status_code < 300
    no_fuzz = submit(api, "team3", "print(0)\n", problem="sum")  # WA on a problem without fuzz.py
    server.judging.run_pending()
    with server.storage.read() as r:
        assert [str(e.submission_id) for e in r.explanations()] == [team]
    assert by_admin and before and no_fuzz


def test_a_policy_change_applies_to_later_searches_only(tmp_path: Path) -> None:
    live = open_live(tmp_path, off_by_one_from(37))
    first = submit(live.api, "team1")
    live.server.judging.run_pending()
    live.server.close()
    root = tmp_path / "contest"
    yaml = (root / "contest.yaml").read_text().replace(f"counterexamples: {POLICY}", "counterexamples: jury")
    (root / "contest.yaml").write_text(yaml)
    live = open_live(tmp_path, off_by_one_from(37), policy="jury")
    try:
        second = submit(live.api, "team1", WRONG + "# again\n")
        live.server.judging.run_pending()
        assert search_all(live.server) == 2
        assert cex(live.api, first, "team1")[1]["status"] == "found"  # queued under `team`
        assert cex(live.api, second, "team1")[0] == 404  # queued under `jury`
        assert cex(live.api, second, "judge")[1]["policy"] == {
            "show": "jury", "examples": 1000, "seconds": 60.0, "per_team": 20
        }  # fmt: skip
    finally:
        live.server.close()


def test_a_search_that_gives_its_slot_back_resumes_with_the_rest_of_its_budget(tmp_path: Path) -> None:
    live = open_live(tmp_path, doubles)  # never fails: the whole budget of 100 examples is spent
    try:
        sid = submit(live.api, "team1")
        live.server.judging.run_pending()
        search_all(live.server, cancelled=lambda: len(live.runner.stdins) >= 10)
        with live.server.storage.read() as r:
            (search,) = r.explanations()
        assert (search.state, search.attempts) == (ExplainState.QUEUED, 1) and 10 <= search.examples_done < 100
        assert cex(live.api, sid, "team1")[1]["status"] == "queued"
        search_all(live.server)
        with live.server.storage.read() as r:
            (done,) = r.explanations()
        assert (done.state, done.attempts, done.examples_done) == (ExplainState.DONE, 2, 100)
        status, doc = cex(live.api, sid, "team1")
        assert doc["status"] == "not_found" and doc["examples"] == 100
        assert cex(live.api, sid, "judge")[1]["note"] == "none in 100 examples"
    finally:
        live.server.close()


def test_nothing_is_searched_while_judging_is_paused_or_the_problem_held(live: Live) -> None:
    server, api = live.server, live.api
    submit(api, "team1")
    server.judging.run_pending()
    assert server.explain is not None and len(server.explain.claim_idle(1, set())) == 1
    assert api.request("POST", f"{C}/problems/double/hold", "admin").status_code < 300
    assert server.explain.claim_idle(1, set()) == []
    assert api.request("POST", f"{C}/problems/double/release", "admin").status_code < 300
    assert api.request("POST", f"{C}/judging/pause", "admin").status_code < 300
    assert server.explain.claim_idle(1, set()) == []


def test_a_real_submission_arriving_while_a_search_runs_is_judged_first(tmp_path: Path) -> None:
    """The pool's order, not timing: the search's first example waits until the second submission is queued;
    the search then gives its slot back (before its next example is drawn), the submission is judged, and
    the search resumes."""
    started, release = threading.Event(), threading.Event()
    order: list[str] = []

    def program(n: int) -> Reply:
        if not started.is_set():
            started.set()
            release.wait(WAIT_S)
        order.append("example")
        return doubles(n)

    live = open_live(tmp_path, program)
    judged = threading.Event()

    def judge(job: JudgeJob) -> SubmissionResult:
        result = live.judge(job)
        order.append(job.label.split(" (")[0])
        judged.set()
        return result

    live.server.judging._judge_fn = judge  # noqa: SLF001 - to see the order in which the pool runs things
    try:
        first = submit(live.api, "team1")
        live.server.start()
        assert started.wait(WAIT_S)  # the first submission was judged (WA) and its search runs
        judged.clear()
        second = submit(live.api, "team2", "print(a + b)\n")  # AC: no search of its own
        release.set()
        assert judged.wait(WAIT_S)
        for _ in range(int(WAIT_S / 0.01)):
            with live.server.storage.read() as r:
                (search,) = r.explanations()
            if search.state is ExplainState.DONE:
                break
            threading.Event().wait(0.01)
        assert search.state is ExplainState.DONE and search.attempts == 2 and search.examples_done == 100
        judged_at = order.index(f"submission {second}")
        # one example, or two: the search is pipelined as `judge grade --explain`'s (its second search may have
        # drawn an example before the first one's run ended); then it gave its slot back
        assert order[0] == f"submission {first}" and judged_at in (2, 3)
        assert set(order[1:judged_at]) == {"example"} and set(order[judged_at + 1 :]) == {"example"}
    finally:
        live.server.stop()
        live.server.close()


@pytest.mark.parametrize(("verdict", "explain_tle", "searched"), [
    (Verdict.RTE, False, True), (Verdict.TLE, False, False), (Verdict.TLE, True, True), (Verdict.MLE, False, False),
    (Verdict.CE, False, False),
])  # fmt: skip
def test_which_verdicts_are_searched(tmp_path: Path, verdict: Verdict, explain_tle: bool, searched: bool) -> None:
    """WA, RTE and PV; TLE only where the package's fuzz.py says EXPLAIN_TLE (a time-out may be the load)."""
    hooks = HOOKS + ("\nEXPLAIN_TLE = True\n" if explain_tle else "")
    live = open_live(tmp_path, off_by_one_from(37), hooks=hooks)
    try:
        live.judge.verdict = verdict
        sid = submit(live.api, "team1")
        live.server.judging.run_pending()
        with live.server.storage.read() as r:
            assert len(r.explanations()) == int(searched)
        assert cex(live.api, sid, "team1")[0] == (200 if searched else 404)
    finally:
        live.server.close()


def test_a_verdict_awaiting_verification_keeps_its_counterexample_the_jurys(tmp_path: Path) -> None:
    """Issue 47's verification: a judgement no judge verified yet is the jury's only, so the counterexample,
    which tells the verdict, is too; once verified, the team sees it (found when merging issues 46 and 47)."""
    from test_serve_pages import csrf_of, login

    live = open_live(tmp_path, off_by_one_from(37), extra=("verification_required: true",))
    try:
        server, api = live.server, live.api
        sid = submit(api, "team1")
        assert server.judging.run_pending() == 1
        search_all(server)
        assert cex(api, sid, "judge")[0] == 200
        assert cex(api, sid, "team1")[0] == 404
        assert api.get(f"{C}/submissions/{sid}/counterexample/input", "team1").status_code == 404
        judge = login(server, "judge")
        page = judge.get("/admin/verification").text
        assert judge.post(f"/admin/verification/{sid}", data={"csrf": csrf_of(page)}).status_code == 303
        status, doc = cex(api, sid, "team1")
        assert status == 200 and doc["status"] == "found", doc
    finally:
        live.server.close()
