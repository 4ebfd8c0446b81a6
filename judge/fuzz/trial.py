"""Judging one fuzzing example: one generated input, the program built once, the package's validator.

Two ways, same verdicts:

- ``full``: the input becomes a one-test view of the package and goes through
  ``judge.judging.problemtypes.judge_test`` (batch, interactive and multi-pass alike; the package's own output
  validator decides);
- ``fast`` (batch problems whose ``fuzz.py`` defines ``accepts``): the program runs in a fresh box through
  ``judge.judging.problemtypes.run_program``, exactly as for a batch test, and ``accepts(input, answer, output)``
  stands in for the validator process. (When the package does not allow file writing, the box is sealed
  read-only for every run, so one box serves them all.)
"""

from __future__ import annotations

import queue
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from judge.fuzz.handover import RunSlots
from judge.fuzz.hooks import FuzzHooks
from judge.judging.build import Program, package_program
from judge.judging.inputcheck import InputValidator
from judge.judging.problemtypes import Context, judge_test, program_limits, run_program
from judge.judging.problemtypes.program import ProgramCall, fresh_box, program_args
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.package.problem import Problem, TestCase, program_name
from judge.runner import Runner

SHOWN_BYTES = 4000  # of a program's output kept for the report
RUN_FAILURES = (Verdict.TLE, Verdict.MLE, Verdict.RTE, Verdict.OLE)  # no answer to show


@dataclass(frozen=True)
class Trial:
    """What one example gave."""

    verdict: Verdict
    message: str
    output: bytes | None  # the team output the validator saw (None: the run failed before that)
    time_s: float  # CPU time of the program (max over passes)
    # interactive and multi-pass problems: the exchange, as the package's validator made it (full path only)
    transcript: str = ""

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.AC


# Whether an example's trial is a disagreement the search looks for (default: any verdict but AC). A caller
# may count fewer: `judge grade --explain` skips inputs equal to a test's and verdicts it does not show.
Disagrees = Callable[[bytes, Trial], bool]


def any_rejection(test_input: bytes, trial: Trial) -> bool:
    return not trial.accepted


def input_validators(problem: Problem, env: Environment, workdir: Path) -> tuple[InputValidator, ...]:
    """The package's input validators, built (raises HookError when one cannot be built)."""
    out: list[InputValidator] = []
    for k, path in enumerate(problem.input_validators):
        built = package_program(problem, path, env, workdir / f"iv{k}")
        if built.program is None:
            raise HookError(f"input validator {path.name}: {built.message}")
        out.append(InputValidator(path.name, built.program, problem.secret.input_args_for(program_name(path))))
    return tuple(out)


class HookError(Exception):
    """The package's fuzz.py failed on an input (its own bug, never the submission's)."""


def single_test_view(problem: Problem, test_input: Path, answer: Path) -> tuple[Problem, TestCase]:
    """The package with one secret test (its group settings kept) and no samples."""
    test = TestCase("secret/fuzz", test_input, answer, "secret")
    secret = replace(problem.secret, tests=(test,), subgroups=())
    return replace(problem, sample=None, secret=secret), test


class _Boxes:
    """Fresh boxes for the fast path, made and removed by a helper thread while the program runs.

    A box is a copy of the program's files (``judge.judging.problemtypes.program.fresh_box``); one is kept ready
    ahead, and used ones are removed behind. Both are asked for once a run has started (``refill``), so
    that the copying and removing overlap that run, not the start of the next one (nor another search's).
    Called from one thread (the examiner's).

    ``sealed``: the package does not allow file writing, so every run gets its box sealed read-only for
    the program (judge.runner): no run can change it, and the one box is used for every run (no copying,
    no removing, no helper thread).
    """

    def __init__(self, program: Program, folder: Path, *, sealed: bool = False) -> None:
        self.program = program
        self.folder = folder
        self.reuse = sealed
        self.shared: Path | None = None  # the one box, once made (``sealed`` only)
        self.count = 0
        self.tasks: queue.SimpleQueue[tuple[str, Path] | None] = queue.SimpleQueue()
        self.ready: queue.SimpleQueue[Path | OSError] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.asked = False  # a box has been asked for that take() has not had yet
        self.used: list[Path] = []  # to remove at the next refill

    def _ask(self) -> None:
        self.count += 1
        self.tasks.put(("make", self.folder / f"box{self.count}"))
        self.asked = True

    def take(self) -> Path:
        if self.reuse:
            if self.shared is None:
                self.shared = fresh_box(self.program, self.folder / "shared")
            return self.shared
        if self.thread is None:
            self.thread = threading.Thread(target=self._work, name="judge-fuzz-boxes", daemon=True)
            self.thread.start()
        if not self.asked:  # the first box, or the last run did not start
            self._ask()
        box = self.ready.get()
        self.asked = False
        if isinstance(box, OSError):
            raise box
        return box

    def refill(self) -> None:
        """A run has started: make the next box, remove the used ones."""
        if self.thread is None:
            return
        if not self.asked:
            self._ask()
        while self.used:
            self.tasks.put(("remove", self.used.pop()))

    def throw(self, box: Path) -> None:
        if box != self.shared:
            self.used.append(box)

    def _work(self) -> None:
        while (task := self.tasks.get()) is not None:
            what, path = task
            if what == "make":
                try:
                    self.ready.put(fresh_box(self.program, path))
                except OSError as exc:  # disk full, say: raised in the caller's thread
                    self.ready.put(exc)
            else:
                shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """Stop the helper; remove every box it made."""
        if self.shared is not None:
            shutil.rmtree(self.shared, ignore_errors=True)
            self.shared = None
        if self.thread is not None:
            while self.used:
                self.tasks.put(("remove", self.used.pop()))
            self.tasks.put(None)
            self.thread.join()
            self.thread = None
            while not self.ready.empty():
                box = self.ready.get()
                if isinstance(box, Path):
                    shutil.rmtree(box, ignore_errors=True)


@dataclass(frozen=True)
class TrialSetup:
    """What every example of one fuzzing run is judged with (shared by the run's examiners)."""

    problem: Problem
    program: Program  # the submission, built once
    validator: Program | None  # the package's output validator (None: the default output comparison)
    runner: Runner
    hooks: FuzzHooks
    use_accepts: bool = True  # judge with fuzz.py's accepts() where it has one (batch problems)
    input_validators: tuple[InputValidator, ...] = ()  # run on every example when given
    # How many submission runs may be under way at once, over all the run's examiners.
    run_slots: RunSlots = field(default_factory=RunSlots)
    disagrees: Disagrees = any_rejection  # what the search and the shrinkers look for


class Examiner:
    """Judges examples one after another in ``workdir`` (which it owns)."""

    def __init__(self, setup: TrialSetup, workdir: Path) -> None:
        problem, program = setup.problem, setup.program
        self.problem = problem
        self.program = program
        self.validator = setup.validator
        self.runner = setup.runner
        self.hooks = setup.hooks
        self.workdir = workdir
        self.fast_path = setup.use_accepts and setup.hooks.accepts is not None
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._limits = program_limits(problem, program)
        self._boxes = _Boxes(program, workdir / "boxes", sealed=not problem.allow_file_writing)
        (workdir / "boxes").mkdir(exist_ok=True)
        self._input = workdir / "fuzz.in"
        self._answer = workdir / "fuzz.ans"
        self._view = single_test_view(problem, self._input, self._answer)  # the example as a test
        self._extra_args = program_args(*self._view)
        self.input_validators = setup.input_validators
        self.run_slots = setup.run_slots
        self.disagrees = setup.disagrees

    def close(self) -> None:
        self._boxes.close()

    @property
    def checker(self) -> str:
        if self.fast_path:
            return "fuzz.py accepts()"
        return "the output validator" if self.validator is not None else "the default output comparison"

    def answer(self, test_input: bytes) -> bytes:
        try:
            ans = self.hooks.answer(test_input)
        except Exception as exc:  # noqa: BLE001 - the package's code
            raise HookError(f"{self.hooks.path.name}: answer() failed: {type(exc).__name__}: {exc}") from exc
        if isinstance(ans, str):
            ans = ans.encode()
        if not isinstance(ans, bytes):
            raise HookError(f"{self.hooks.path.name}: answer() must return bytes, not {type(ans).__name__}")
        return ans

    def judge(self, test_input: bytes, answer: bytes) -> Trial:
        for validator in self.input_validators:
            problem = validator.check(test_input, self.runner, self.workdir)
            if problem is not None:
                raise HookError(f"{self.hooks.path.name} generated an invalid input ({problem})")
        return self.fast(test_input, answer) if self.fast_path else self.full(test_input, answer)

    # ------------------------------------------------------------------ the package's validator

    def full(self, test_input: bytes, answer: bytes) -> Trial:
        case_dir = self.workdir / "case"
        self._input.write_bytes(test_input)
        self._answer.write_bytes(answer)
        view, test = self._view
        shutil.rmtree(case_dir, ignore_errors=True)
        case_dir.mkdir()
        try:
            with self.run_slots.run() as turn:
                turn()  # several processes, no single start to wait for: hand over at once
                # one run of the submission (batch): the slot is given back when it ends, so that the next
                # search's submission runs while this one's output is judged (the validator process)
                ended = turn.ended if not (self.problem.interactive or self.problem.multi_pass) else None
                ctx = Context(view, self.program, self.validator, self.runner, case_dir, on_program_end=ended)
                result = judge_test(ctx, test)
            output = _last_output(case_dir, result.passes) if result.verdict not in RUN_FAILURES else None
            transcript = result.transcript
            if self.problem.interactive and result.transcript:
                output = result.transcript.encode()
            elif self.problem.multi_pass:
                transcript = _passes(case_dir, test_input, result.passes)
        finally:
            shutil.rmtree(case_dir, ignore_errors=True)
        return Trial(result.verdict, result.message, output, result.time_s, transcript)

    # ------------------------------------------------------------------ in-process check

    def fast(self, test_input: bytes, answer: bytes) -> Trial:
        """The program run as for the example's batch test (``run_program``), then ``accepts()``."""
        assert self.hooks.accepts is not None
        box = self._boxes.take()
        try:
            with self.run_slots.run() as turn:

                def started() -> None:  # the program is running: hand the run slot over, refill boxes
                    turn()
                    self._boxes.refill()

                call = ProgramCall(
                    box=box,
                    test_input=self._input,
                    stdout=self.workdir / "fast.out",
                    stderr=self.workdir / "fast.err",
                    extra_args=self._extra_args,
                    limits=self._limits,
                    input_data=test_input,
                )
                run = run_program(
                    self.problem,
                    self.program,
                    self.runner,
                    call,
                    on_start=started,
                    on_end=turn.ended,  # the next search's run may start while this one's result is collected
                )
        finally:
            self._boxes.throw(box)
        if run.verdict is not None:
            return Trial(run.verdict, run.message, None, run.result.cpu_time_s)
        output = run.output_bytes()
        try:
            ok = bool(self.hooks.accepts(test_input, answer, output))
        except Exception as exc:  # noqa: BLE001 - the package's code
            raise HookError(f"{self.hooks.path.name}: accepts() failed: {type(exc).__name__}: {exc}") from exc
        verdict = Verdict.AC if ok else Verdict.WA
        message = "" if ok else f"rejected by {self.hooks.path.name} accepts()"
        return Trial(verdict, message, output[:SHOWN_BYTES], run.result.cpu_time_s)


def _last_output(case_dir: Path, passes: int) -> bytes | None:
    """The team output of the last pass (the problem types keep it as pass<n>.out until the case is removed)."""
    path = case_dir / f"pass{passes}.out"
    if not path.is_file():
        return None
    with path.open("rb") as f:
        return f.read(SHOWN_BYTES)


def _shown(data: bytes, size: int) -> str:
    text = data[:SHOWN_BYTES].decode("utf-8", errors="replace")
    return text + (f"\n... ({size - SHOWN_BYTES} more bytes)" if size > SHOWN_BYTES else "")


def _shown_file(path: Path) -> str | None:
    if not path.is_file():
        return None
    with path.open("rb") as f:
        return _shown(f.read(SHOWN_BYTES), path.stat().st_size)


def _passes(case_dir: Path, test_input: bytes, passes: int) -> str:
    """A multi-pass batch test's exchange: each pass's input (the first: the test's; the next ones: the
    ``nextpass.in`` the validator wrote) and the program's output in it, as far as the passes went."""
    parts: list[str] = []
    for n in range(1, passes + 1):
        given = _shown(test_input, len(test_input)) if n == 1 else _shown_file(case_dir / f"pass{n}.in")
        if given is not None:
            parts.append(f"--- pass {n}: input{' (the test)' if n == 1 else ' (from the validator)'}\n{given}")
        output = _shown_file(case_dir / f"pass{n}.out")
        if output is not None:
            parts.append(f"--- pass {n}: the program's output\n{output}")
    return "\n".join(parts)
