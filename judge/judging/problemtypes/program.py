"""Running the contestant's program once: its box, limits and command line, and our two extensions.

The one place where the batch-run rules live (docs/package-format.md, "Our extensions"):

- ``input: args``: the input's whitespace-separated tokens become command-line arguments (no stdin);
- ``answer: exit_code``: a program that exits (with any status) answers with its exit status, which
  becomes the team output ``<status>\\n``; only a limit or a signal is a failure then.

Used by every problem type (``judge.judging.problemtypes.batch``, ``.interactive``, ``.multipass``) and by the
fuzzer's in-process fast path (``judge.fuzz.trial``). Processes are started by the runner only.
"""

from __future__ import annotations

import shutil
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from judge.judging.build import Program
from judge.judging.feedback import Judgement
from judge.judging.verdict import Verdict, limit_verdict
from judge.package.problem import AnswerMode, InputMode, Problem, TestCase
from judge.runner import Runner
from judge.runner.spec import LimitHit, Limits, RunResult, RunSpec

STDERR_CHARS = 600


@dataclass(frozen=True)
class Context:
    problem: Problem
    program: Program
    validator: Program | None  # None = the default token comparison
    runner: Runner
    workdir: Path  # scratch space of this test (the validators' files); removed by the caller
    static_validator: Program | None = None  # 2025-09: judges the static validation test cases
    # called once a batch pass's program has ended, before its result is collected and its output judged
    # (the fuzzer gives its run slot back then: Runner.run's ``on_end``)
    on_program_end: Callable[[], object] | None = None
    keep_bytes: int = 0  # keep each pass's output and stderr, their first this many bytes (0: none; issue 47)
    # the one box of every run when the program may not write it (the problem does not allow file writing: the
    # runner seals it, so no run can change it) and the test brings no files; None: a fresh box per run
    sealed_box: Path | None = None
    # where the program's own files of this test go (its stdout and stderr, its fresh boxes): on disk, never on a
    # tmpfs, where a page it writes counts against its memory limit (docs/sandbox.md); None: ``workdir``
    program_dir: Path | None = None

    @property
    def own(self) -> Path:
        """The folder of the program's own files of this test (``program_dir``, else ``workdir``)."""
        return self.program_dir if self.program_dir is not None else self.workdir


@dataclass(frozen=True)
class PassSetup:
    """What pass ``n`` (from 1) of a test is given: its input (the program's stdin and the validator's
    ``input_file``: the test's ``.in``, then the previous pass's ``nextpass.in``), the validator's arguments
    and the feedback directory, kept across the passes of the test."""

    test: TestCase
    n: int
    stdin: Path
    validator_args: tuple[str, ...]
    feedback_dir: Path


@dataclass
class Pass:
    """What one pass of a test gave (one run of the program, and the validator's judgement)."""

    result: RunResult
    judgement: Judgement | None  # None when the run itself failed
    verdict: Verdict
    message: str
    transcript: str = ""


def program_limits(problem: Problem, program: Program) -> Limits:
    return Limits(
        time_s=problem.limits.time_s,
        wall_time_s=problem.limits.wall_time_s,
        memory_kib=problem.limits.memory_kib,
        processes=program.processes,
        output_bytes=problem.limits.output_bytes,
        open_files=program.open_files,
    )


def fresh_box(program: Program, box: Path, files: Path | None = None) -> Path:
    """A new box at ``box``: a copy of the program's files (its compile log left out), then the test's
    ``.files`` (2025-09), over them when a name collides, as the spec says."""
    shutil.copytree(program.files, box, ignore=shutil.ignore_patterns("compile.log"))
    if files is not None:
        shutil.copytree(files, box, dirs_exist_ok=True)
    return box


def run_box(ctx: Context, box: Path, files: Path | None) -> Path:
    """The box of one run of the contestant's program: ``ctx.sealed_box`` when there is one and the test brings no
    ``.files``, else a fresh one at ``box`` (``fresh_box``). ``drop_box`` after the run."""
    if ctx.sealed_box is not None and files is None:
        return ctx.sealed_box
    return fresh_box(ctx.program, box, files)


def drop_box(ctx: Context, box: Path) -> None:
    """A run's box removed, unless it is the sealed one the runs share."""
    if box != ctx.sealed_box:
        shutil.rmtree(box, ignore_errors=True)


def program_args(problem: Problem, test: TestCase) -> tuple[str, ...]:
    """The test's extra command-line arguments (2025-09 ``args``: the test's, else its group's)."""
    return test.args if test.args is not None else problem.group(test.group).args


@dataclass(frozen=True)
class ProgramCall:
    """One run of the contestant's program: its box, its input, where its output goes, and what changes for
    this run only."""

    box: Path
    test_input: Path  # the input: the program's stdin, or its arguments under ``input: args``
    stdout: Path | None  # None: an interactive run (stdin and stdout are the validator's pipes)
    stderr: Path | None
    extra_args: tuple[str, ...] = ()  # the test's (or its group's) ``args``
    limits: Limits | None = None  # None: the problem's (``program_limits``)
    input_data: bytes | None = None  # the input, when the caller has it in memory (the fuzzer)


def program_spec(problem: Problem, program: Program, call: ProgramCall) -> RunSpec:
    """How to start the program for ``call`` (``input: args`` applied here; the input's tokens are read from
    ``call.input_data`` when given, else from the file)."""
    argv = (*program.argv, *call.extra_args)
    stdin = call.test_input if call.stdout is not None else None
    if problem.input_mode is InputMode.ARGS:
        data = call.input_data
        text = data.decode(errors="replace") if data is not None else call.test_input.read_text(errors="replace")
        argv = (*argv, *text.split())
        stdin = None
    return RunSpec(
        argv=argv,
        box=call.box,
        limits=call.limits if call.limits is not None else program_limits(problem, program),
        stdin=stdin,
        stdout=call.stdout,
        stderr=call.stderr,
        env=dict(program.env),
        mounts=program.mounts,
        address_space_limit=program.address_space_limit,
        box_writable=problem.allow_file_writing,
    )


@dataclass(frozen=True)
class ProgramRun:
    """One run of the program on one input, before anyone looked at its output."""

    result: RunResult
    verdict: Verdict | None  # what the run earned by itself (None: it answered)
    message: str  # why it failed ("" when it answered)
    output: Path  # where the program's stdout went
    exit_answer: bytes | None = None  # under ``answer: exit_code``: the answer, ``<status>\n``

    def output_file(self) -> Path:
        """The team output as a file (under ``answer: exit_code``, the exit status written there)."""
        if self.exit_answer is not None:
            self.output.write_bytes(self.exit_answer)
        elif not self.output.exists():
            self.output.touch()
        return self.output

    def output_bytes(self) -> bytes:
        """The team output."""
        if self.exit_answer is not None:
            return self.exit_answer
        return self.output.read_bytes() if self.output.exists() else b""


def run_program(
    problem: Problem,
    program: Program,
    runner: Runner,
    call: ProgramCall,
    *,
    on_start: Callable[[], object] | None = None,
    on_end: Callable[[], object] | None = None,
) -> ProgramRun:
    """Run the program in ``call.box`` on ``call.test_input`` (stdin, or arguments under ``input: args``).

    The program's stdout goes to ``call.stdout``; under ``answer: exit_code`` an exit status is the answer
    (see ``ProgramRun.output_file`` / ``output_bytes``). The box is left as the run left it.
    ``on_start``, ``on_end``: see ``Runner.run``. ``call.input_data``: the input, when the caller has it in
    memory: then ``call.test_input`` is written here, and only when the program reads it (not under ``input: args``).
    """
    output, stderr = call.stdout, call.stderr
    assert output is not None, "an interactive run goes through program_spec and Runner.run_interactive"
    if call.input_data is not None and problem.input_mode is not InputMode.ARGS:
        call.test_input.write_bytes(call.input_data)
    result = runner.run(program_spec(problem, program, call), on_start=on_start, on_end=on_end)
    if problem.answer_mode is AnswerMode.EXIT_CODE and result.exited and result.exit_code is not None:
        return ProgramRun(result, None, "", output, f"{result.exit_code}\n".encode())
    verdict = limit_verdict(result)
    if verdict is not None:
        return ProgramRun(result, verdict, describe_failure(result, verdict, stderr), output)
    return ProgramRun(result, None, "", output)


def describe_failure(result: RunResult, verdict: Verdict, stderr: Path | None) -> str:
    if verdict is Verdict.TLE:
        what = "wall-clock" if result.limit_hit is LimitHit.WALL_TIME else "CPU"
        text = f"{what} time limit exceeded ({result.cpu_time_s:.2f} s CPU, {result.wall_time_s:.2f} s wall)"
    elif verdict is Verdict.MLE:
        text = f"memory limit exceeded ({result.memory_kib} KiB)"
    elif verdict is Verdict.OLE:
        text = "output limit exceeded"
    elif verdict is Verdict.JE:
        text = f"judge error: {result.sandbox_error}"
    elif result.limit_hit is LimitHit.PROCESSES:
        text = "too many processes or threads"
    elif result.signal is not None:
        try:
            name = signal.Signals(result.signal).name
        except ValueError:
            name = str(result.signal)
        text = f"killed by signal {name}"
    else:
        text = f"exit status {result.exit_code}"
    if stderr is not None and stderr.is_file() and verdict is Verdict.RTE:
        tail = stderr.read_text(errors="replace")[-STDERR_CHARS:].strip()
        if tail:
            text += "\n" + tail
    return text


def answer_path(ctx: Context, test: TestCase) -> Path:
    """The test's answer file (an empty one in the test's workdir when it has none)."""
    if test.answer_path is not None:
        return test.answer_path
    empty = ctx.workdir / "empty.ans"
    empty.touch()
    return empty
