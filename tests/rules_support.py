"""Test support for the judging rules' unit tests (tests/test_rules_*.py): judging a one-line Python
submission against a package written by ``fakes.make_package``, on a scripted ``FakeRunner``. No root, no
sandbox, no processes: nothing here calls ``make_runner``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from conftest import fake_environment
from fakes import FakeRunner, Reply

from judge.judging.build import COMPILE_LIMITS
from judge.judging.results import SubmissionResult
from judge.judging.submission import JudgeOptions, judge_submission, prepare
from judge.package.problem import load_problem
from judge.runner.spec import InteractiveResult, LimitHit, RunResult, RunSpec

ONE_TEST = {"secret/01": (b"1\n", b"1\n")}


def judge(
    tmp_path: Path,
    package: Path,
    runner: FakeRunner,
    *,
    all_tests: bool = False,
    stop_at_failure: bool = False,
    keep_bytes: int = 0,
) -> SubmissionResult:
    """Judge ``sub.py`` (its syntax check is a compile run, which the fake passes) against ``package``."""
    source = tmp_path / "sub.py"
    source.write_text("print(1)\n")
    env = fake_environment(runner)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    prepared = prepare(load_problem(package), env, work)
    (tmp_path / "judge").mkdir()
    return judge_submission(
        prepared,
        source,
        env,
        options=JudgeOptions(
            workdir=tmp_path / "judge", all_tests=all_tests, stop_at_failure=stop_at_failure, keep_bytes=keep_bytes
        ),
    )


def validator(
    exit_code: int | None = 42, files: Mapping[str, bytes] | None = None, *, limit: LimitHit | None = None
) -> Reply:
    """A validator run that ``fakes`` has no helper for: any exit, any feedback files, a limit hit."""
    result = RunResult(exit_code, None, 0.01, 0.01, 1024, 0, 0, limit_hit=limit)
    return Reply(result, None, dict(files or {}))


def program_runs(runner: FakeRunner) -> list[RunSpec]:
    """The contestant's program's runs (not its compilation, not the validators)."""
    return [c for c in runner.calls if not c.trusted and c.limits != COMPILE_LIMITS]


def validator_runs(runner: FakeRunner) -> list[RunSpec]:
    return [c for c in runner.calls if c.trusted]


class LitteringRunner(FakeRunner):
    """A ``FakeRunner`` whose program runs leave a file in their box, and which records what each program
    run's box held when it started: a box that is not fresh shows the file of an earlier run."""

    LEFT = "left-by-an-earlier-run.txt"

    def __init__(self, programs: list[Reply], validators: list[Reply]) -> None:
        super().__init__(programs, validators)
        self.boxes: list[tuple[Path, tuple[str, ...]]] = []

    def _litter(self, spec: RunSpec) -> None:
        self.boxes.append((spec.box, tuple(sorted(p.name for p in spec.box.iterdir()))))
        (spec.box / self.LEFT).write_text("state\n")

    def run(
        self,
        spec: RunSpec,
        *,
        on_start: Callable[[], object] | None = None,
        on_end: Callable[[], object] | None = None,
    ) -> RunResult:
        if not spec.trusted and spec.limits != COMPILE_LIMITS:
            self._litter(spec)
        return super().run(spec, on_start=on_start, on_end=on_end)

    def run_interactive(
        self, program: RunSpec, peer: RunSpec, transcript: Path | None = None, *, peer_rejects: int | None = None
    ) -> InteractiveResult:
        self._litter(program)
        return super().run_interactive(program, peer, transcript, peer_rejects=peer_rejects)
