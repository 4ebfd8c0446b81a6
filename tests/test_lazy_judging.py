"""Lazy judging (a pass-fail contest's): judging stops at the first failed test, since the verdict is then
known; the rules through the scripted FakeRunner, and which jobs `judge serve` judges lazily."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeRunner, accept, make_package, ran, reject
from rules_support import judge, program_runs
from serve_fixtures import T0, Api, FakeClock, make_server, write_contest

from judge.judging.verdict import Verdict
from judge.serve.services.judging.queue import Claimed


def scoring(tmp_path: Path) -> Path:
    """A scoring problem (ours are): groups secret/g1 and secret/g2 of two tests each, worth 50 each; a
    rejection does not stop judging by itself."""
    tests = {f"secret/{g}/{i:02d}": (b"x\n", b"x\n") for g in ("g1", "g2") for i in range(2)}
    groups = {"secret": {}, "secret/g1": {"max_score": 50}, "secret/g2": {"max_score": 50}}
    return make_package(tmp_path / "pkg", {"name": "s", "type": "scoring"}, tests, groups=groups)


def test_a_scoring_problem_is_judged_to_the_end_unless_judging_stops_at_a_failure(tmp_path: Path) -> None:
    full = FakeRunner([ran(b"x\n")] * 4, [accept(), reject("no"), accept(), accept()])
    result = judge(tmp_path / "full", scoring(tmp_path / "full"), full)
    assert (result.verdict, len(program_runs(full)), result.score) == (Verdict.WA, 4, 75.0)  # g1 by the mean

    lazy = FakeRunner([ran(b"x\n")] * 2, [accept(), reject("no")])  # a third run would find no reply
    result = judge(tmp_path / "lazy", scoring(tmp_path / "lazy"), lazy, stop_at_failure=True)
    assert result.verdict is Verdict.WA and [t.name for t in result.tests] == ["secret/g1/00", "secret/g1/01"]
    assert len(program_runs(lazy)) == 2


def test_an_accepted_submission_is_judged_on_every_test_either_way(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"x\n")] * 4, [accept()] * 4)
    result = judge(tmp_path, scoring(tmp_path), runner, stop_at_failure=True)
    assert (result.verdict, len(result.tests), result.score) == (Verdict.AC, 4, 100.0)


def test_all_tests_still_runs_what_lazy_judging_skips_and_marks_it(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"x\n")] * 4, [reject("no"), accept(), accept(), accept()])
    result = judge(tmp_path, scoring(tmp_path), runner, stop_at_failure=True, all_tests=True)
    assert [t.skipped for t in result.tests] == [False, True, True, True] and result.verdict is Verdict.WA


@pytest.mark.parametrize(
    ("kind", "extra", "lazy"),
    [("pass-fail", (), True), ("pass-fail", ("judge_all_tests: true",), False), ("score", (), False)],
)
def test_serve_judges_lazily_in_a_pass_fail_contest(
    tmp_path: Path, kind: str, extra: tuple[str, ...], lazy: bool
) -> None:
    server = make_server(write_contest(tmp_path / "c", scoreboard_type=kind, extra=extra), FakeClock(T0 + 60))
    try:
        assert Api.of(server).submit("team1").status_code == 201
        (claimed,) = server.judging.claim(1)
        assert isinstance(claimed, Claimed)
        assert server.judging.job(claimed).stop_at_failure is lazy
    finally:
        server.close()
