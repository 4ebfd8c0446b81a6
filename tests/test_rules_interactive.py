"""The judging rules of interactive problems, through a scripted FakeRunner (no root, no sandbox,
sub-second): the verdict precedence of Kattis/DOMjudge (docs/package-format.md, "Interactive problems")
beyond what tests/test_judging_rules.py covers, and how the program and the validator are connected."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeRunner, Reply, accept, make_package, ran, reject, unrunnable
from rules_support import ONE_TEST, LitteringRunner, judge, program_runs, validator, validator_runs

from judge.judging.problemtypes.interactive import VALIDATOR_EXTRA_WALL_S
from judge.judging.verdict import Verdict
from judge.runner.spec import LimitHit


def interactive(tmp_path: Path, tests: dict[str, tuple[bytes, bytes]] = ONE_TEST, **extra: object) -> Path:
    config = {"name": "i", "type": ["pass-fail", "interactive"], "limits": {"time_limit": 2}, **extra}
    return make_package(tmp_path / "pkg", config, tests)


def first(reply: Reply) -> Reply:
    """``reply``, with the validator ending before the program."""
    return Reply(reply.result, reply.stdout, peer_first=True)


def test_an_accepted_interaction_is_ac_with_its_transcript(tmp_path: Path) -> None:
    result = judge(tmp_path, interactive(tmp_path), FakeRunner([ran()], [accept("found it")]))
    assert result.verdict is Verdict.AC
    assert result.tests[0].message == "found it"
    assert result.tests[0].transcript == "> (scripted)"


def test_a_protocol_violation_is_pv_and_charged(tmp_path: Path) -> None:
    result = judge(tmp_path, interactive(tmp_path), FakeRunner([ran()], [reject("PV: asked 11 questions")]))
    assert result.verdict is Verdict.PV and result.verdict.charged
    assert result.tests[0].message == "asked 11 questions"


@pytest.mark.parametrize(
    "program, verdict",
    [
        (ran(limit=LimitHit.CPU_TIME), Verdict.TLE),
        (ran(limit=LimitHit.WALL_TIME), Verdict.TLE),
        (ran(signal=11), Verdict.RTE),
    ],
)
def test_a_validator_stopped_while_waiting_for_a_failed_program_is_not_a_judge_error(
    tmp_path: Path, program: Reply, verdict: Verdict
) -> None:
    """The program failed first; the judge then stopped the validator, still reading (at its wall-clock
    limit): the program's verdict, not the validator's JE."""
    runner = FakeRunner([program], [validator(None, limit=LimitHit.WALL_TIME)])
    result = judge(tmp_path, interactive(tmp_path), runner)
    assert result.verdict is verdict


def test_a_validator_that_hits_its_limit_while_the_program_is_fine_is_je(tmp_path: Path) -> None:
    runner = FakeRunner([ran()], [validator(None, limit=LimitHit.WALL_TIME)])
    result = judge(tmp_path, interactive(tmp_path), runner)
    assert result.verdict is Verdict.JE and not result.verdict.charged


def test_a_program_the_sandbox_could_not_run_is_je_whatever_the_validator_said(tmp_path: Path) -> None:
    runner = FakeRunner([ran(sandbox_error="no slot")], [reject("no answer")])
    assert judge(tmp_path, interactive(tmp_path), runner).verdict is Verdict.JE


def test_a_validator_the_sandbox_could_not_run_is_je(tmp_path: Path) -> None:
    runner = FakeRunner([first(ran(signal=9))], [unrunnable()])
    assert judge(tmp_path, interactive(tmp_path), runner).verdict is Verdict.JE


@pytest.mark.parametrize(
    "program, verdict",
    [
        (ran(signal=11), Verdict.RTE),
        (ran(exit_code=1), Verdict.RTE),
        (ran(limit=LimitHit.CPU_TIME), Verdict.TLE),
        (ran(limit=LimitHit.OUTPUT), Verdict.OLE),
    ],
)
def test_an_acceptance_does_not_cover_a_program_that_then_failed(
    tmp_path: Path, program: Reply, verdict: Verdict
) -> None:
    """Only a validator's rejection (WA, PV) outranks the program's failure when the validator ended
    first; its acceptance does not."""
    result = judge(tmp_path, interactive(tmp_path), FakeRunner([first(program)], [accept()]))
    assert result.verdict is verdict


def test_the_program_and_the_validator_are_connected_by_pipes(tmp_path: Path) -> None:
    runner = FakeRunner([ran()], [accept()])
    package = interactive(tmp_path)
    assert judge(tmp_path, package, runner).verdict is Verdict.AC
    (program,) = program_runs(runner)
    (peer,) = validator_runs(runner)
    assert program.stdin is None and program.stdout is None  # the validator's pipes
    assert peer.stdin is None
    *_, given, answer, feedback = peer.argv
    assert Path(given).resolve() == (package / "data" / "secret" / "01.in").resolve()
    assert feedback.endswith("/")
    assert program.limits.wall_time_s > program.limits.time_s == 2
    assert peer.limits.wall_time_s == program.limits.wall_time_s + VALIDATOR_EXTRA_WALL_S


def test_each_test_gets_a_fresh_box_where_programs_may_write_it(tmp_path: Path) -> None:
    tests = {"secret/01": (b"1\n", b""), "secret/02": (b"2\n", b"")}
    runner = LitteringRunner([ran(), ran()], [accept(), accept()])
    assert judge(tmp_path, interactive(tmp_path, tests, allow_file_writing=True), runner).verdict is Verdict.AC
    assert len({box for box, _ in runner.boxes}) == 2
    assert [held for _, held in runner.boxes] == [("sub.py",)] * 2


def test_a_box_the_program_may_not_write_is_shared_by_the_tests(tmp_path: Path) -> None:
    """Sealed by the runner (no run can change it): one box for the submission's runs."""
    tests = {"secret/01": (b"1\n", b""), "secret/02": (b"2\n", b"")}
    runner = FakeRunner([ran(), ran()], [accept(), accept()])
    assert judge(tmp_path, interactive(tmp_path, tests), runner).verdict is Verdict.AC
    runs = program_runs(runner)
    assert len(runs) == 2 and runs[0].box == runs[1].box and not any(r.box_writable for r in runs)
