"""The sandbox self-test: doctor runs it and names a failure; run/verify/grade stop before judging (exit 3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import judge.commands.common
from judge.commands.cli import main
from judge.judging.selftest import self_test
from judge.languages.table import toolchain
from judge.runner import Runner
from judge.runner.api import SandboxRunner
from judge.runner.spec import RunResult, RunSpec

FIXTURES = Path(__file__).parent / "fixtures"


class BrokenTrusted(SandboxRunner):
    """A real runner whose trusted runs (validators) fail as they did in a container's PID namespace."""

    def __init__(self, real: Runner) -> None:
        self.__dict__.update(real.__dict__)

    def run(self, spec: RunSpec, **hooks: Callable[[], object] | None) -> RunResult:
        if spec.trusted:
            return RunResult(None, None, 0.0, 0.0, 0, 0, 0, sandbox_error="the launcher ended (simulated)")
        return super().run(spec, **hooks)


@pytest.fixture
def runner(sandbox_runner: Runner) -> Runner:
    return sandbox_runner


def test_self_test_runs_a_program_through_every_start_path_and_a_validator(runner: Runner) -> None:
    result = self_test(runner, toolchain())
    names = [c.name for c in result.checks]
    assert result.ok, result.failure()
    assert names[-1] == "output validator"
    assert [n for n in names if n.startswith("program")] == [f"program ({p})" for p, _ in runner.start_paths()]
    if runner.info.mode == "box server":
        assert names[:2] == ["program (box server)", "program (bwrap per run)"]


def test_a_validator_that_cannot_run_fails_the_self_test(runner: Runner) -> None:
    result = self_test(BrokenTrusted(runner), toolchain())
    assert not result.ok
    assert result.failure().startswith("output validator: ")
    assert "simulated" in result.failure()
    assert all(c.ok for c in result.checks if c.name.startswith("program"))


@pytest.mark.parametrize(
    "command",
    [
        ["verify", str(FIXTURES / "divisor")],
        ["run", str(FIXTURES / "divisor"), str(FIXTURES / "divisor/submissions/accepted/trial.py")],
        ["grade", str(FIXTURES), "--problems", str(FIXTURES)],
    ],
)
def test_commands_stop_with_exit_3_when_validators_cannot_run(
    command: list[str],
    runner: Runner,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(judge.commands.common, "make_runner", lambda backend: BrokenTrusted(runner))
    if command[0] == "grade":
        command = [*command, "--out", str(tmp_path / "board")]
    assert main(command) == 3
    err = capsys.readouterr().err
    assert "the sandbox cannot run programs and validators here, so nothing was judged" in err
    assert "output validator" in err and "Traceback" not in err
    assert not (tmp_path / "board").exists()


def test_doctor_names_the_failure_and_exits_non_zero(
    runner: Runner, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(judge.commands.common, "make_runner", lambda backend: BrokenTrusted(runner))
    assert main(["doctor"]) == 1
    out = capsys.readouterr()
    assert "output validator" in out.out and "FAILED" in out.out and "simulated" in out.err


def test_doctor_passes_here(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    assert "FAILED" not in capsys.readouterr().out
