"""A language's time factor (issue 30, DOMjudge's ``time_factor``): a job with ``time_factor`` runs the
program under the problem's time limit times the factor (its wall limit follows), on a scripted runner;
and `judge serve` gives its jobs the contest's factor for their language, shows it in the API's languages
and on the problem page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import FakeRunner, accept, make_package, ran
from rules_support import program_runs
from serve_fixtures import FIXTURES, HOUR, T0, Api, FakeClock, ScriptedJudge, feed, make_server, write_contest
from spec_shapes import LANGUAGE, LANGUAGES, errors
from test_serve_pages import csrf_of, login

from judge.judging.jobs import JudgeJob, SourceFile, judge_job
from judge.judging.prepared import Packages
from judge.package.problem import load_problem
from judge.serve.model.contest import ContestError, load_contest

C = "/api/contests/test"


@pytest.mark.parametrize("factor", [1.0, 2.5])
def test_a_jobs_time_factor_scales_the_time_limit(tmp_path: Path, factor: float) -> None:
    package = make_package(
        tmp_path / "pkg", {"name": "t", "limits": {"time_limit": 2}}, {"secret/01": (b"1\n", b"1\n")}
    )
    runner = FakeRunner([ran()], [accept()])
    env = fake_environment(runner)
    problem = load_problem(package)
    packages = Packages({problem.id: problem}, env)
    try:
        job = JudgeJob(
            problem.id, problem.content_hash, "python3", (SourceFile("a.py", b"print(1)\n"),), time_factor=factor
        )
        result = judge_job(job, packages, env)
    finally:
        packages.close()
    assert result.verdict.value == "AC"
    (run,) = program_runs(runner)
    assert run.limits.time_s == 2 * factor
    assert run.limits.wall_time_s == 1.5 * 2 * factor + 2


def test_serve_gives_the_contests_factor(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "c", extra=("languages: [{id: python3, time_factor: 1.5}]",))
    contest = load_contest(root, FIXTURES)
    judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    server = make_server(root, FakeClock(T0 + HOUR), judge)
    try:
        api = Api.of(server)
        assert api.get(f"{C}/languages/python3").json()["time_factor"] == 1.5
        assert errors(LANGUAGE, api.get(f"{C}/languages/python3").json()) != []  # DOMjudge's, not the spec's
        # strict (DOMjudge's ?strict=true; check-api.sh -a strict=1): the spec's properties only
        assert errors(LANGUAGES, api.get(f"{C}/languages?strict=1").json()) == []
        assert errors(LANGUAGE, api.get(f"{C}/languages/python3?strict=true").json()) == []
        assert api.submit("team1").status_code == 201
        server.judging.run_pending()
        assert [j.time_factor for j in judge.calls] == [1.5]
        page = login(server, "team1").get("/problems/sum/").text
        assert "× 1.5" in page and "1.5 s" in page
    finally:
        server.close()


def test_no_factor_is_one(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "c")
    contest = load_contest(root, FIXTURES)
    judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    server = make_server(root, FakeClock(T0 + HOUR), judge)
    try:
        api = Api.of(server)
        assert "time_factor" not in api.get(f"{C}/languages/python3").json()
        assert api.submit("team1").status_code == 201
        server.judging.run_pending()
        assert [j.time_factor for j in judge.calls] == [1.0]
    finally:
        server.close()


@pytest.mark.parametrize(
    "line",
    [
        "languages: {python3: 1.5}",
        "languages: [{id: python3, time_factor: 0}]",
        "languages: [{id: python3, time_factor: true}]",
        "languages: [{id: python3}, {id: python3}]",
        "languages: [{time_factor: 2}]",
    ],
)
def test_bad_factors_are_one_line(tmp_path: Path, line: str) -> None:
    with pytest.raises(ContestError, match="languages"):
        load_contest(write_contest(tmp_path / "c", extra=(line,)), FIXTURES)


# ---------------------------------------------------------------------------------- changed live (issue 43)


def patch_factor(api: Api, user: str | None, body: object, language: str = "python3"):  # type: ignore[no-untyped-def]
    return api.request("PATCH", f"{C}/languages/{language}", user, json=body)


def test_an_admin_changes_a_factor_live_and_the_next_judgement_uses_it(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "c", extra=("languages: [{id: python3, time_factor: 1.5}]",))
    contest = load_contest(root, FIXTURES)
    judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    server = make_server(root, FakeClock(T0 + HOUR), judge)
    try:
        api = Api.of(server)
        assert api.submit("team1").status_code == 201
        server.judging.run_pending()  # judged under contest.yaml's factor
        assert api.submit("team2").status_code == 201  # waiting when the factor changes
        r = patch_factor(api, "admin", {"id": "python3", "time_factor": 3})
        assert r.status_code == 200, r.text
        assert r.json() == {**api.get(f"{C}/languages/python3").json(), "time_factor": 3.0}
        server.judging.run_pending()
        assert [j.time_factor for j in judge.calls] == [1.5, 3.0]
        assert api.request("POST", f"{C}/submissions/1/rejudge", "admin").status_code == 202
        server.judging.run_pending()
        assert [j.time_factor for j in judge.calls] == [1.5, 3.0, 3.0]  # a rejudge too
        (entry,) = [e for e in api.get(f"{C}/audit-log", "admin").json() if e["action"] == "language.time_factor"]
        assert entry["username"] == "admin"
        assert json.loads(entry["detail"]) == {"language_id": "python3", "time_factor": 3.0, "was": 1.5}
        languages = [e["data"] for e in feed(api) if e["type"] == "languages"]
        assert [lang["time_factor"] for lang in languages] == [1.5, 3.0]  # published on the event feed
        assert "× 3.0" in login(server, "team1").get("/problems/sum/").text
    finally:
        server.close()
    again = make_server(root, FakeClock(T0 + HOUR), judge)  # a restart keeps it (contest.yaml is not rewritten)
    try:
        assert Api.of(again).get(f"{C}/languages/python3").json()["time_factor"] == 3.0
        assert "time_factor: 1.5" in (root / "contest.yaml").read_text()
    finally:
        again.close()


@pytest.mark.parametrize(
    ("user", "language", "body", "status", "said"),
    [
        (None, "python3", {"time_factor": 2}, 401, ""),
        ("team1", "python3", {"time_factor": 2}, 403, "only admins"),
        ("judge", "python3", {"time_factor": 2}, 403, "only admins"),
        ("admin", "cobol", {"time_factor": 2}, 404, "no language 'cobol'"),
        ("admin", "python3", {"time_factor": 0}, 400, "from 0.1 to 100"),
        ("admin", "python3", {"time_factor": "2"}, 400, "from 0.1 to 100"),
        ("admin", "python3", {"time_factor": True}, 400, "from 0.1 to 100"),
        ("admin", "python3", {}, 400, "time_factor` or `allow_submit` is required"),
        ("admin", "python3", {"allow_submit": "no"}, 400, "allow_submit must be true or false"),
        ("admin", "python3", {"time_factor": 2, "name": "x"}, 400, "name: cannot be changed"),
        ("admin", "python3", {"id": "java", "time_factor": 2}, 409, "not this language's"),
        ("admin", "python3", [2], 400, "JSON object"),
    ],
)
def test_a_bad_factor_change_is_refused_and_changes_nothing(  # type: ignore[no-untyped-def]
    tmp_path: Path, user, language: str, body: object, status: int, said: str
) -> None:
    server = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + HOUR))
    try:
        api = Api.of(server)
        r = patch_factor(api, user, body, language)
        assert r.status_code == status, r.text
        assert said in r.json()["message"]
        assert "time_factor" not in api.get(f"{C}/languages/python3").json()
        assert api.get(f"{C}/audit-log", "admin").json() == []
    finally:
        server.close()


def test_the_contest_page_changes_a_factor(tmp_path: Path) -> None:
    server = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + HOUR))
    try:
        admin = login(server, "admin")
        page = admin.get("/admin/contest").text
        assert 'id="factor-python3"' in page and "× 1.0" in page
        data = {"csrf": csrf_of(page), "action": "time_factor", "language_id": "python3", "time_factor": "2.5"}
        r = admin.post("/admin/contest", data=data)
        assert r.status_code == 303, r.text
        shown = admin.get(r.headers["location"]).text
        assert "the time factor of python3 is changed" in shown and "× 2.5" in shown
        assert Api.of(server).get(f"{C}/languages/python3").json()["time_factor"] == 2.5
        bad = admin.post("/admin/contest", data={**data, "time_factor": "fast"})
        assert bad.status_code == 400 and "from 0.1 to 100" in bad.text
        # a judge sees the factors, without the form, and cannot post it
        judge = login(server, "judge")
        page = judge.get("/admin/contest").text
        assert 'id="factor-python3"' in page and 'value="time_factor"' not in page
        r = judge.post("/admin/contest", data={**data, "csrf": csrf_of(page), "time_factor": "9"})
        assert r.status_code == 403
        assert Api.of(server).get(f"{C}/languages/python3").json()["time_factor"] == 2.5
    finally:
        server.close()
