"""Rejudgings as sets the jury reviews (issue 47): a rejudge of a submission, a problem, a language, a team
or the whole contest makes a set whose judgements are held (in no document, on no board, on no feed) until
the jury applies it, or count as they come when it applies itself; its page shows before → after and the
board's change; cancelling leaves every document as it was, byte for byte (a Hypothesis property); who may
do what; the audit log. Judging is scripted: ``FlipJudge`` judges the fixture sources as ScriptedJudge does,
or the other way round once ``flipped`` (what a fixed package would do)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_fixtures import FIXTURES, HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, fake_result, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.judging.jobs import JudgeJob, SourceFile
from judge.judging.results import SubmissionResult
from judge.package.problem import Problem
from judge.serve.model.contest import load_contest
from judge.serve.site.server import Server

C = "/api/contests/test"
USERS = (None, "team1", "team2", "judge", "admin")
DOCUMENTS = ("submissions", "judgements", "runs", "scoreboard", "state", "event-feed?stream=false")


class FlipJudge:
    """ScriptedJudge's verdicts (AC when the source adds), the other way round once ``flipped``."""

    def __init__(self, problems: Mapping[str, Problem]) -> None:
        self.problems = problems
        self.flipped = False

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        if self.flipped:
            files = tuple(
                SourceFile(f.name, f.data.replace(b"a + b", b"a ~ b") if b"a + b" in f.data else f.data + b"#a + b")
                for f in job.files
            )
            job = replace(job, files=files)
        return fake_result(job, self.problems[job.problem])


def open_world(root: Path, clock: FakeClock) -> tuple[Server, Api, FlipJudge]:
    judge = FlipJudge({p.id: p.problem for p in load_contest(root, FIXTURES).problems})
    server = make_server(root, clock, judge)
    return server, Api.of(server), judge


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Server, Api, FlipJudge, FakeClock]]:
    clock = FakeClock(T0 + HOUR)
    server, api, judge = open_world(write_contest(tmp_path / "contest", rate=(50, 60)), clock)
    for user, code in (("team1", SUM_AC), ("team2", SUM_WA), ("team3", SUM_AC)):
        assert api.submit(user, files={"sum.py": code}).status_code == 201
        clock.advance(10)
    assert api.submit("team1", problem="divisor", files={"d.py": "print(1)\n"}).status_code == 201
    server.judging.run_pending()
    yield server, api, judge, clock
    server.close()


def documents(api: Api) -> dict[tuple[str | None, str], bytes]:
    """Every document, as each kind of viewer gets it, byte for byte."""
    return {(user, doc): api.get(f"{C}/{doc}", user).content for user in USERS for doc in DOCUMENTS}


def verdicts(api: Api) -> dict[str, str]:
    return {
        j["submission_id"]: j["judgement_type_id"] for j in api.get(f"{C}/judgements", "admin").json() if j["current"]
    }


def start(api: Api, user: str = "judge", **body: object) -> dict:  # type: ignore[type-arg]
    r = api.request("POST", f"{C}/rejudgings", user, json=body)
    assert r.status_code == 202, r.text
    return r.json()  # type: ignore[no-any-return]


def test_a_set_is_held_until_applied_and_shows_its_changes(world: tuple[Server, Api, FlipJudge, FakeClock]) -> None:
    server, api, judge, _ = world
    before = documents(api)
    judge.flipped = True
    started = start(api, problem_id="sum")
    assert started["submission_ids"] == ["1", "2", "3"]
    assert server.judging.run_pending() == 3
    assert documents(api) == before  # held: nothing changed for anyone, not even the jury's API
    p = api.get(f"{C}/previews/{started['id']}", "judge").json()
    assert (p["kind"], p["state"], p["scope"], p["auto_apply"], p["created_by"]) == (
        "rejudge",
        "ready",
        {"problem": "sum"},
        False,
        "judge",
    )
    assert {(r["submission_id"], r["verdict_before"], r["verdict_after"]) for r in p["runs"]} == {
        ("1", "AC", "WA"),
        ("2", "WA", "AC"),
        ("3", "AC", "WA"),
    }
    assert {c["team_id"] for c in p["board"]} == {"team1", "team2", "team3"}  # the board's change
    page = login(server, "judge").get(f"/admin/previews/{started['id']}").text
    assert "Rejudging 1: problem sum" in page and "Apply: make its 3 judgement(s) current" in page
    r = api.request("POST", f"{C}/rejudgings/{started['id']}/apply", "judge")
    assert r.status_code == 200 and r.json() == {"submission_ids": ["1", "2", "3"], "superseded": []}
    assert verdicts(api) == {"1": "WA", "2": "AC", "3": "WA", "4": "WA"}
    js = [j for j in api.get(f"{C}/judgements?submission_id=2", "team2").json()]
    assert [(j["id"], j["current"]) for j in js] == [("2", False), ("2-2", True)]  # numbered when applied
    feed = api.get(f"{C}/event-feed?stream=false", "team2").text
    assert '"id": "2-2"' in feed or '"id":"2-2"' in feed
    board = api.get(f"{C}/scoreboard").json()
    assert next(r for r in board["rows"] if r["team_id"] == "team2")["rank"] == 1
    assert api.get(f"{C}/previews/{started['id']}", "admin").json()["state"] == "applied"
    log = [(e["action"], json.loads(e["detail"])) for e in api.get(f"{C}/audit-log", "admin").json()]
    assert ("rejudging.apply", {"rejudging": 1, "applied": [1, 2, 3], "superseded": []}) in log
    assert ("problem.rejudge", {"id": "sum", "rejudged": [1, 2, 3], "rejudging": 1}) in log


def test_a_set_that_applies_itself_counts_as_it_goes(world: tuple[Server, Api, FlipJudge, FakeClock]) -> None:
    server, api, judge, _ = world
    judge.flipped = True
    started = start(api, team_id="team1", auto_apply=True)
    assert started["submission_ids"] == ["1", "4"]
    server.judging.run_pending()
    assert verdicts(api) == {"1": "WA", "2": "WA", "3": "AC", "4": "AC"}  # team1's two, flipped at once
    p = api.get(f"{C}/previews/{started['id']}", "admin").json()
    assert p["state"] == "applied" and len(p["runs"]) == 2


@pytest.mark.parametrize(
    ("body", "members"),
    [
        ({"submission_id": "2"}, ["2"]),
        ({"language_id": "python3"}, ["1", "2", "3", "4"]),
        ({"team_id": "team3"}, ["3"]),
        ({"contest": True}, ["1", "2", "3", "4"]),
    ],
)
def test_what_a_set_rejudges(world: tuple[Server, Api, FlipJudge, FakeClock], body: dict, members: list) -> None:  # type: ignore[type-arg]
    _, api, _, _ = world
    assert start(api, "admin", **body)["submission_ids"] == members


def test_refusals(world: tuple[Server, Api, FlipJudge, FakeClock]) -> None:
    server, api, judge, _ = world
    post = api.request
    assert post("POST", f"{C}/rejudgings", None, json={"contest": True}).status_code == 401
    assert post("POST", f"{C}/rejudgings", "team1", json={"contest": True}).status_code == 403
    assert post("GET", f"{C}/rejudgings", "team1").status_code == 403
    for bad in (
        {},
        {"contest": True, "team_id": "team1"},
        {"contest": 1},
        {"team_id": 3},
        {"contest": True, "auto_apply": "y"},
    ):
        assert post("POST", f"{C}/rejudgings", "judge", json=bad).status_code == 400, bad
    for missing in ({"team_id": "nobody"}, {"problem_id": "nosuch"}, {"language_id": "cobol"}, {"submission_id": "99"}):
        assert post("POST", f"{C}/rejudgings", "judge", json=missing).status_code == 404, missing
    started = start(api, problem_id="sum")
    r = post("POST", f"{C}/rejudgings/{started['id']}/apply", "judge")
    assert r.status_code == 409 and "still judging (3 left)" in r.json()["message"]
    for user, code in ((None, 401), ("team2", 403)):
        assert post("POST", f"{C}/rejudgings/{started['id']}/apply", user).status_code == code
        assert post("POST", f"{C}/rejudgings/{started['id']}/cancel", user).status_code == code
    assert post("POST", f"{C}/rejudgings/99/apply", "judge").status_code == 404
    server.judging.run_pending()
    assert post("POST", f"{C}/rejudgings/{started['id']}/cancel", "judge").status_code == 204
    assert post("POST", f"{C}/rejudgings/{started['id']}/apply", "judge").status_code == 409  # cancelled
    assert post("POST", f"{C}/rejudgings/{started['id']}/cancel", "judge").status_code == 409
    listed = api.get(f"{C}/rejudgings", "judge").json()
    assert [(s["id"], s["state"], s["submissions"], s["changes"]) for s in listed] == [("1", "cancelled", 3, 0)]


def test_a_submission_judged_again_since_is_left_as_it_is(world: tuple[Server, Api, FlipJudge, FakeClock]) -> None:
    server, api, judge, _ = world
    judge.flipped = True
    held = start(api, problem_id="sum")
    server.judging.run_pending()
    judge.flipped = False
    start(api, submission_id="2", auto_apply=True)  # judged once more since, applied at once: WA again
    server.judging.run_pending()
    r = api.request("POST", f"{C}/rejudgings/{held['id']}/apply", "admin").json()
    assert r == {"submission_ids": ["1", "3"], "superseded": ["2"]}
    assert verdicts(api) == {"1": "WA", "2": "WA", "3": "WA", "4": "WA"}


def test_the_pages_start_review_and_apply_a_set(world: tuple[Server, Api, FlipJudge, FakeClock]) -> None:
    server, api, judge, _ = world
    judge.flipped = True
    b = login(server, "judge")
    token = csrf_of(b.get("/admin/rejudgings").text)
    r = b.post("/admin/rejudgings", data={"csrf": token, "scope": "problem:sum", "confirmed": "yes"})
    assert r.status_code == 303 and r.headers["location"].startswith("/admin/previews/1?message=rejudging+1")
    server.judging.run_pending()
    page = b.get("/admin/previews/1").text
    assert 'id="run-2" class="changes"' in page and "Apply" in page and "Held by" in b.get("/admin/submissions/2").text
    assert 'id="rejudging-1"' in b.get("/admin/rejudgings").text
    r = b.post("/admin/previews/1/apply", data={"csrf": token, "confirmed": "yes"})
    assert r.status_code == 303 and "applied" in r.headers["location"]
    assert verdicts(api)["2"] == "AC"
    # a submission's own, applying itself (the box ticked)
    judge.flipped = False
    r = b.post("/admin/submissions/2/rejudge", data={"csrf": token, "confirmed": "yes", "auto_apply": "1"})
    assert r.status_code == 303 and "applies+itself" in r.headers["location"]
    server.judging.run_pending()
    assert verdicts(api)["2"] == "WA"
    team = login(server, "team1")
    assert team.get("/admin/rejudgings").status_code == 403
    assert team.post("/admin/rejudgings", data={"csrf": token, "scope": "contest:"}).status_code == 403


# ------------------------------------------------------------------------------------------ cancel: a property

SOURCES = st.lists(st.tuples(st.sampled_from(["team1", "team2", "team3"]), st.booleans()), min_size=1, max_size=5)
SCOPES = st.sampled_from(
    [{"problem_id": "sum"}, {"team_id": "team2"}, {"language_id": "python3"}, {"contest": True}, {"submission_id": "1"}]
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SOURCES, SCOPES, st.integers(0, 5), st.booleans())
def test_cancel_restores_every_document_byte_for_byte(
    subs: list[tuple[str, bool]],
    scope: dict,
    judged: int,
    frozen: bool,  # type: ignore[type-arg]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clock = FakeClock(T0 + (4.5 if frozen else 1) * HOUR)  # in the freeze, or not
        server, api, judge = open_world(write_contest(Path(tmp) / "contest", rate=(50, 60)), clock)
        try:
            for team, ok in subs:
                assert api.submit(team, files={"sum.py": SUM_AC if ok else SUM_WA}).status_code == 201
                clock.advance(7)
            server.judging.run_pending()
            before = documents(api)
            judge.flipped = True
            started = start(api, **scope)
            for _ in range(judged):  # some of the set judged, maybe all, maybe one in the middle
                claimed = server.judging.claim(1)
                for c in claimed:
                    server.judging.complete(c, server.judging.judge(c))
            in_flight = server.judging.claim(1)  # (the clock stands still: the board's documents say the time)
            assert api.request("POST", f"{C}/rejudgings/{started['id']}/cancel", "judge").status_code == 204
            for c in in_flight:  # finished after the cancel: kept nowhere
                assert server.judging.complete(c, server.judging.judge(c)) is False
            assert server.judging.run_pending() == 0
            assert documents(api) == before
        finally:
            server.close()
