"""A language's time factor (issue 30, DOMjudge's ``time_factor``): a job with ``time_factor`` runs the
program under the problem's time limit times the factor (its wall limit follows), on a scripted runner;
and `judge serve` gives its jobs the contest's factor for their language, shows it in the API's languages
and on the problem page."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import FakeRunner, accept, make_package, ran
from rules_support import program_runs
from serve_fixtures import FIXTURES, HOUR, T0, Api, FakeClock, ScriptedJudge, make_server, write_contest
from spec_shapes import LANGUAGE, LANGUAGES, errors
from test_serve_pages import login

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
