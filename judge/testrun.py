"""Judging one test case: batch, interactive, multi-pass (and our exit-code / argv extensions).

Each run of the contestant's program gets a fresh box; processes are started by the runner only.
"""

from __future__ import annotations

import shutil
import signal
from dataclasses import dataclass
from pathlib import Path

from judge.build import Program
from judge.checker import FlagError, check, parse_flags
from judge.feedback import Feedback, Judgement, decide, validator_spec
from judge.model import LimitHit, Limits, RunResult, RunSpec, limit_verdict
from judge.problem import AnswerMode, InputMode, Problem, ScoreAggregation, TestCase
from judge.results import CaseResult
from judge.runner import Runner
from judge.verdict import Verdict

TRANSCRIPT_LINES = 40
STDERR_CHARS = 600


@dataclass(frozen=True)
class Context:
    problem: Problem
    program: Program
    validator: Program | None  # None = the default token comparison
    runner: Runner
    workdir: Path  # scratch space of this test; removed by the caller


def program_limits(problem: Problem, program: Program) -> Limits:
    return Limits(
        time_s=problem.limits.time_s,
        wall_time_s=problem.limits.wall_time_s,
        memory_kib=problem.limits.memory_kib,
        processes=program.processes,
        output_bytes=problem.limits.output_bytes,
        open_files=program.open_files,
    )


def fresh_box(ctx: Context, name: str) -> Path:
    box = ctx.workdir / name
    shutil.copytree(ctx.program.files, box, ignore=shutil.ignore_patterns("compile.log"))
    return box


def _program_spec(
    ctx: Context,
    box: Path,
    test: TestCase,
    pass_input: Path,
    stdin: Path | None,
    stdout: Path | None,
    stderr: Path,
) -> RunSpec:
    extra = test.args if test.args is not None else ctx.problem.group(test.group).args  # 2025-09 `args`
    argv = (*ctx.program.argv, *extra)
    if ctx.problem.input_mode is InputMode.ARGS:
        argv = (*argv, *pass_input.read_text(errors="replace").split())
        stdin = None
    return RunSpec(
        argv=argv,
        box=box,
        limits=program_limits(ctx.problem, ctx.program),
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        env=dict(ctx.program.env),
        mounts=ctx.program.mounts,
        address_space_limit=ctx.program.address_space_limit,
        box_writable=ctx.problem.allow_file_writing,
    )


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


def _answer_path(ctx: Context, test: TestCase) -> Path:
    if test.answer_path is not None:
        return test.answer_path
    empty = ctx.workdir / "empty.ans"
    empty.touch()
    return empty


def _validate(
    ctx: Context,
    test: TestCase,
    pass_input: Path,
    args: tuple[str, ...],
    team_output: Path,
    feedback_dir: Path,
    n: int,
) -> Judgement:
    if ctx.validator is None:
        try:
            flags = parse_flags(ctx.problem.validator_args + args)
        except FlagError as exc:
            return Judgement(Verdict.JE, str(exc), Feedback())
        expected = test.answer_path.read_bytes() if test.answer_path else b""
        verdict = check(expected, team_output.read_bytes(), flags)
        return Judgement(Verdict.AC if verdict.accepted else Verdict.WA, verdict.message, Feedback())
    log = ctx.workdir / f"validator{n}.log"
    spec = validator_spec(
        ctx.validator,
        input_path=pass_input,
        answer_path=_answer_path(ctx, test),
        feedback_dir=feedback_dir,
        args=ctx.problem.validator_args + args,
        team_output=team_output,
        log=log,
    )
    return decide(ctx.runner.run(spec), feedback_dir, log)


def _fraction(ctx: Context, test: TestCase, fb: Feedback) -> float:
    if fb.score_multiplier is not None:
        return fb.score_multiplier
    if fb.score is not None:
        scale = ctx.problem.group(test.group).score_file_max
        return fb.score / scale if scale > 0 else 1.0
    return 1.0


@dataclass
class _Pass:
    result: RunResult
    judgement: Judgement | None  # None when the run itself failed
    verdict: Verdict
    message: str
    transcript: str = ""


def _batch_pass(ctx: Context, test: TestCase, args: tuple[str, ...], stdin: Path, feedback_dir: Path, n: int) -> _Pass:
    box = fresh_box(ctx, f"box{n}")
    out, err = ctx.workdir / f"pass{n}.out", ctx.workdir / f"pass{n}.err"
    result = ctx.runner.run(_program_spec(ctx, box, test, stdin, stdin, out, err))
    shutil.rmtree(box, ignore_errors=True)
    if ctx.problem.answer_mode is AnswerMode.EXIT_CODE and result.exited and result.exit_code is not None:
        out.write_text(f"{result.exit_code}\n")
        verdict: Verdict | None = None
    else:
        verdict = limit_verdict(result)
    if verdict is not None:
        return _Pass(result, None, verdict, describe_failure(result, verdict, err))
    if not out.exists():
        out.touch()
    judgement = _validate(ctx, test, stdin, args, out, feedback_dir, n)
    return _Pass(result, judgement, judgement.verdict, judgement.message)


def _interactive_pass(
    ctx: Context, test: TestCase, args: tuple[str, ...], stdin: Path, feedback_dir: Path, n: int
) -> _Pass:
    assert ctx.validator is not None
    box = fresh_box(ctx, f"box{n}")
    err = ctx.workdir / f"pass{n}.err"
    transcript = ctx.workdir / f"pass{n}.transcript"
    program = _program_spec(ctx, box, test, stdin, None, None, err)
    log = ctx.workdir / f"validator{n}.log"
    peer = validator_spec(
        ctx.validator,
        input_path=stdin,  # multi-pass: this pass's input (the previous pass's nextpass.in)
        answer_path=_answer_path(ctx, test),
        feedback_dir=feedback_dir,
        args=ctx.problem.validator_args + args,
        team_output=None,
        log=log,
        wall_time_s=program.limits.wall_time_s + 10,
    )
    both = ctx.runner.run_interactive(program, peer, transcript)
    shutil.rmtree(box, ignore_errors=True)
    lines = transcript.read_text(errors="replace").splitlines()[:TRANSCRIPT_LINES] if transcript.exists() else []
    shown = "\n".join(lines)
    judgement = decide(both.peer, feedback_dir, log)
    run_verdict = limit_verdict(both.program)
    # Kattis/DOMjudge precedence (docs/package-format.md, "Interactive problems").
    if (
        judgement.verdict is Verdict.JE
        and run_verdict is not None
        and run_verdict is not Verdict.JE
        and not both.peer_exited_first
        and both.peer.limit_hit is LimitHit.WALL_TIME
    ):
        # the program failed first; the judge then stopped the validator (still reading its output)
        return _Pass(both.program, judgement, run_verdict, describe_failure(both.program, run_verdict, err), shown)
    if judgement.verdict is Verdict.JE:
        return _Pass(both.program, judgement, Verdict.JE, judgement.message, shown)
    if both.peer_exited_first and judgement.verdict in (Verdict.WA, Verdict.PV):
        return _Pass(both.program, judgement, judgement.verdict, judgement.message, shown)
    if run_verdict is not None and run_verdict is not Verdict.RTE:
        return _Pass(both.program, judgement, run_verdict, describe_failure(both.program, run_verdict, err), shown)
    if run_verdict is Verdict.RTE:
        return _Pass(both.program, judgement, Verdict.RTE, describe_failure(both.program, Verdict.RTE, err), shown)
    return _Pass(both.program, judgement, judgement.verdict, judgement.message, shown)


def _new_text(before: str, now: str) -> str:
    """What a pass added to a feedback file that validators are asked to append to (judgemessage.txt)."""
    if before and now.startswith(before):
        return now[len(before) :].strip()
    return now


def judge_test(ctx: Context, test: TestCase) -> CaseResult:
    """Run every pass of one test and decide its verdict and score fraction.

    Multi-pass (Kattis spec, as DOMjudge and BAPCtools run it): pass 1 reads the test's ``.in``; a pass
    whose validator accepts and leaves ``nextpass.in`` is followed by another, whose input (the program's
    stdin, and the validator's ``input_file``) is that file, moved out of the feedback directory. Every
    other file of the feedback directory persists across the passes of the test; the answer file is the
    test's ``.ans`` throughout. ``nextpass.in`` after pass ``validation_passes`` (more passes than
    allowed), or with a rejection, is a judge error.
    """
    group = ctx.problem.group(test.group)
    feedback_dir = ctx.workdir / "feedback"
    feedback_dir.mkdir(parents=True, exist_ok=True)
    stdin = test.input_path
    multi = ctx.problem.multi_pass
    max_passes = ctx.problem.limits.validation_passes if multi else 1
    cpu = wall = 0.0
    memory = 0
    messages: list[str] = []
    transcripts: list[str] = []
    run_pass = _interactive_pass if ctx.problem.interactive else _batch_pass
    said = ""  # the validator's judgemessage.txt so far (multi-pass validators append to it)
    n = 0
    while True:
        n += 1
        args = test.validator_args if test.validator_args is not None else group.validator_args
        p = run_pass(ctx, test, args, stdin, feedback_dir, n)
        cpu, wall = max(cpu, p.result.cpu_time_s), max(wall, p.result.wall_time_s)
        memory = max(memory, p.result.memory_kib)
        message = p.message
        if multi and p.judgement is not None and p.message == p.judgement.feedback.judge_message:
            message, said = _new_text(said, p.message), p.message
        if message:
            messages.append(message if not multi else f"pass {n}: {message}")
        if p.transcript:
            transcripts.append(p.transcript if not multi else f"--- pass {n}\n{p.transcript}")
        fb = p.judgement.feedback if p.judgement is not None else Feedback()
        if fb.ignored_score:
            messages.append("(the validator rejected and also wrote score.txt: the score is ignored)")
        verdict, fraction = p.verdict, 0.0
        if multi and fb.nextpass is not None and p.judgement is not None:
            if p.judgement.verdict is not Verdict.AC:
                verdict = Verdict.JE
                messages.append("the validator wrote nextpass.in but did not accept (exit 42)")
            elif verdict is Verdict.AC:
                if n >= max_passes:
                    verdict = Verdict.JE
                    messages.append(f"the validator asked for pass {n + 1}, but validation_passes is {max_passes}")
                else:
                    stdin = ctx.workdir / f"pass{n + 1}.in"
                    shutil.move(fb.nextpass, stdin)
                    continue
        if verdict is Verdict.AC and group.aggregation is ScoreAggregation.PASS_FAIL and group.scored:
            if fb.score is not None or fb.score_multiplier is not None:
                messages.append("the validator wrote a score for a test of a pass-fail group (2025-09: a JE)")
                verdict = Verdict.JE
        if verdict is Verdict.AC:
            fraction = _fraction(ctx, test, fb)
            if not 0.0 <= fraction <= 1.0 + 1e-9:
                messages.append(f"the validator's score is out of range (fraction {fraction:g} of the maximum)")
                verdict, fraction = Verdict.JE, 0.0
        return CaseResult(
            name=test.name,
            group=test.group,
            verdict=verdict,
            fraction=min(fraction, 1.0),
            time_s=cpu,
            wall_time_s=wall,
            memory_kib=memory,
            message="\n".join(messages)[:4000],
            metric=fb.metric,
            transcript="\n".join(transcripts),
            passes=n,
        )
