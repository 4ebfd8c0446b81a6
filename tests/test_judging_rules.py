"""The judging rules, with a scripted FakeRunner: no root, no bubblewrap, no processes.

Interactive verdict precedence, multi-pass, "JE is never charged", group scoring and metrics.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import FakeRunner, Reply, ScriptExhausted, accept, crash, make_package, ran, reject, unrunnable

from judge.judging.build import COMPILE_LIMITS
from judge.judging.results import SubmissionResult
from judge.judging.submission import JudgeOptions, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.package.problem import PackageError, load_problem
from judge.runner.spec import LimitHit
from judge.scoreboard.model import BoardRun
from judge.scoreboard.ranking import total_score

ONE_TEST = {"secret/01": (b"1\n", b"1\n")}


def judge(tmp_path: Path, package: Path, runner: FakeRunner) -> SubmissionResult:
    source = tmp_path / "sub.py"
    source.write_text("print(1)\n")  # its syntax check is a compile run: scripted by `compiles`, else it passes
    env = fake_environment(runner)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    prepared = prepare(load_problem(package), env, work)
    (tmp_path / "judge").mkdir()
    return judge_submission(prepared, source, env, options=JudgeOptions(workdir=tmp_path / "judge"))


def interactive(tmp_path: Path) -> Path:
    return make_package(tmp_path / "pkg", {"name": "i", "type": ["pass-fail", "interactive"]}, ONE_TEST)


# -- interactive precedence ---------------------------------------------------------------------


@pytest.mark.parametrize("program", [ran(limit=LimitHit.CPU_TIME), ran(exit_code=1), ran(signal=11)])
@pytest.mark.parametrize("validator, expected", [(reject("PV: garbage"), Verdict.PV), (reject("no"), Verdict.WA)])
def test_a_validator_that_rejected_first_beats_the_programs_failure(
    tmp_path: Path, program: Reply, validator: Reply, expected: Verdict
) -> None:
    program = Reply(program.result, program.stdout, peer_first=True)
    result = judge(tmp_path, interactive(tmp_path), FakeRunner([program], [validator]))
    assert result.verdict is expected


@pytest.mark.parametrize(
    "program, expected",
    [
        (ran(limit=LimitHit.CPU_TIME), Verdict.TLE),
        (ran(exit_code=1), Verdict.RTE),
        (ran(limit=LimitHit.MEMORY), Verdict.MLE),
    ],
)
def test_the_programs_failure_wins_when_it_ended_first(tmp_path: Path, program: Reply, expected: Verdict) -> None:
    result = judge(tmp_path, interactive(tmp_path), FakeRunner([program], [reject("no")]))
    assert result.verdict is expected


def test_a_validator_error_is_je_whatever_the_program_did(tmp_path: Path) -> None:
    program = ran(limit=LimitHit.CPU_TIME, peer_first=True)
    result = judge(tmp_path, interactive(tmp_path), FakeRunner([program], [crash(3)]))
    assert result.verdict is Verdict.JE


# -- multi-pass -----------------------------------------------------------------------------


def multipass(tmp_path: Path, passes: int = 2) -> Path:
    config = {"name": "m", "type": ["pass-fail", "multi-pass"], "limits": {"validation_passes": passes}}
    return make_package(tmp_path / "pkg", config, ONE_TEST)


def test_the_next_pass_reads_the_validators_nextpass_file(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n"), ran(b"b\n")], [accept(nextpass=b"second input\n"), accept()])
    result = judge(tmp_path, multipass(tmp_path), runner)
    assert result.verdict is Verdict.AC
    assert result.tests[0].passes == 2
    assert runner.stdins == [b"1\n", b"second input\n"]


def test_a_rejection_in_a_later_pass_is_the_verdict(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n"), ran(b"b\n")], [accept(nextpass=b"x\n"), reject("forgot")])
    result = judge(tmp_path, multipass(tmp_path), runner)
    assert result.verdict is Verdict.WA and result.tests[0].passes == 2


def test_asking_for_more_passes_than_allowed_is_the_packages_fault(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n"), ran(b"b\n")], [accept(nextpass=b"x\n"), accept(nextpass=b"y\n")])
    result = judge(tmp_path, multipass(tmp_path, passes=2), runner)
    assert result.verdict is Verdict.JE
    assert "validation_passes" in result.tests[0].message


def test_a_program_failing_in_pass_two_gets_its_verdict(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n"), ran(limit=LimitHit.CPU_TIME)], [accept(nextpass=b"x\n")])
    result = judge(tmp_path, multipass(tmp_path), runner)
    assert result.verdict is Verdict.TLE and result.tests[0].passes == 2


# -- JE is never charged ------------------------------------------------------------------------


@pytest.mark.parametrize("validator", [crash(1), unrunnable(), accept(score=150)])
def test_the_packages_or_the_judges_failure_is_je_and_not_charged(tmp_path: Path, validator: Reply) -> None:
    config = {"name": "s", "type": "scoring"}
    package = make_package(tmp_path / "pkg", config, ONE_TEST, groups={"secret": {"max_score": 100}})
    result = judge(tmp_path, package, FakeRunner([ran(b"1\n")], [validator]))
    assert result.verdict is Verdict.JE
    assert not result.verdict.charged
    assert total_score([BoardRun("ann", "s", "ann/s.py", result)]) == 0.0


def test_a_sandbox_failure_of_the_program_is_je(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg", {"name": "p"}, ONE_TEST)
    result = judge(tmp_path, package, FakeRunner([ran(sandbox_error="no slot")], []))
    assert result.verdict is Verdict.JE and not result.verdict.charged


def test_a_failed_compilation_is_ce_and_runs_nothing(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg", {"name": "p"}, ONE_TEST)
    runner = FakeRunner([], [], compiles=[ran(b"sub.py:1: SyntaxError\n", exit_code=1)])
    result = judge(tmp_path, package, runner)
    assert result.verdict is Verdict.CE and result.verdict.charged
    assert [c for c in runner.calls if not c.trusted and c.limits != runner.calls[0].limits] == []


def test_the_fake_runner_refuses_runs_it_was_not_scripted_for(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg", {"name": "p"}, ONE_TEST)
    with pytest.raises(ScriptExhausted):
        judge(tmp_path, package, FakeRunner([ran(b"1\n")], []))


# -- group scoring and metrics --------------------------------------------------------------------


def grouped(tmp_path: Path, config: dict[str, object] | None = None) -> Path:
    tests = {f"secret/{g}/{i:02d}": (b"x\n", b"x\n") for g in ("g1", "g2") for i in range(2)}
    groups = {
        "secret": {},
        "secret/g1": {"max_score": 40, "score_aggregation": "min"},
        "secret/g2": {"max_score": 60, "score_aggregation": "min"},
    }
    return make_package(tmp_path / "pkg", {"name": "g", "type": "scoring", **(config or {})}, tests, groups=groups)


def test_a_group_scores_its_worst_test_and_the_total_adds_groups(tmp_path: Path) -> None:
    validators = [accept(score=40), accept(score=20), accept(score=60), accept(score=60)]
    result = judge(tmp_path, grouped(tmp_path), FakeRunner([ran(b"x\n")] * 4, validators))
    assert result.verdict is Verdict.AC
    assert {g.name: g.score for g in result.groups if g.name != "secret"} == {"secret/g1": 20.0, "secret/g2": 60.0}
    assert result.score == 80.0 and result.max_score == 100.0


def test_a_rejected_test_zeroes_its_group_only(tmp_path: Path) -> None:
    validators = [accept(score=40), reject("no"), accept(score=60), accept(score=60)]
    result = judge(tmp_path, grouped(tmp_path), FakeRunner([ran(b"x\n")] * 4, validators))
    assert result.score == 60.0
    assert result.verdict is Verdict.WA


def test_the_metric_is_aggregated_over_the_tests(tmp_path: Path) -> None:
    package = grouped(tmp_path, {"judge": {"metric": {"name": "moves", "aggregate": "mean"}}})
    validators = [accept(score=40, metric=m) for m in (1, 3)] + [accept(score=60, metric=m) for m in (5, 7)]
    result = judge(tmp_path, package, FakeRunner([ran(b"x\n")] * 4, validators))
    assert result.metric_name == "moves" and result.metric == pytest.approx(4.0)


# -- the working directory ----------------------------------------------------------------------


@pytest.mark.parametrize("config, writable", [({}, False), ({"allow_file_writing": True}, True)])
def test_submissions_write_files_only_where_the_package_allows_it(
    tmp_path: Path, config: dict[str, bool], writable: bool
) -> None:
    """allow_file_writing (2025-09, default false): the submission's runs get a read-only box unless the
    package allows writing; compiling and the validators keep writable ones."""
    package = make_package(tmp_path / "pkg", {"name": "w", **config}, ONE_TEST, validator=False)
    runner = FakeRunner(programs=[ran(stdout=b"1\n")])
    assert judge(tmp_path, package, runner).verdict is Verdict.AC
    programs = [s for s in runner.calls if not s.trusted and s.limits != COMPILE_LIMITS]
    assert [s.box_writable for s in programs] == [writable]
    assert all(s.box_writable for s in runner.calls if s not in programs)


def test_allow_file_writing_must_be_a_boolean(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg", {"name": "w", "allow_file_writing": "yes"}, ONE_TEST)
    with pytest.raises(PackageError, match="allow_file_writing must be true or false"):
        load_problem(package)
