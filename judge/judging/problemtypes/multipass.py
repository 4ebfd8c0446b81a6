"""One test case, pass by pass: batch and interactive tests have one pass, multi-pass tests up to
``validation_passes``; then the test's verdict and score fraction."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from judge.judging.feedback import Feedback
from judge.judging.problemtypes.batch import batch_pass
from judge.judging.problemtypes.interactive import interactive_pass
from judge.judging.problemtypes.program import Context, Pass, PassSetup
from judge.judging.problemtypes.static import static_case
from judge.judging.results import CaseResult, PassDetail
from judge.judging.verdict import Verdict
from judge.package.problem import ScoreAggregation, TestCase


def _fraction(ctx: Context, test: TestCase, fb: Feedback) -> float:
    if fb.score_multiplier is not None:
        return fb.score_multiplier
    if fb.score is not None:
        scale = ctx.problem.group(test.group).score_file_max
        return fb.score / scale if scale > 0 else 1.0
    return 1.0


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
    if test.static:
        return static_case(ctx, test)
    group = ctx.problem.group(test.group)
    args = test.validator_args if test.validator_args is not None else group.validator_args
    first = PassSetup(test, 1, test.input_path, args, ctx.workdir / "feedback")
    first.feedback_dir.mkdir(parents=True, exist_ok=True)
    passes, passes_verdict, protocol_note = _run_passes(ctx, first)
    multi = ctx.problem.multi_pass
    fb = _feedback(passes[-1])
    verdict, fraction, score_note = _scored(ctx, test, passes_verdict, fb)
    messages = [*_pass_messages(passes, multi), *(m for m in (protocol_note, score_note) if m)]
    return CaseResult(
        name=test.name,
        group=test.group,
        verdict=verdict,
        fraction=min(fraction, 1.0),
        time_s=max(0.0, *(p.result.cpu_time_s for p in passes)),
        wall_time_s=max(0.0, *(p.result.wall_time_s for p in passes)),
        memory_kib=max(0, *(p.result.memory_kib for p in passes)),
        message="\n".join(messages)[:4000],
        metric=fb.metric,
        transcript="\n".join(
            p.transcript if not multi else f"--- pass {n}\n{p.transcript}"
            for n, p in enumerate(passes, 1)
            if p.transcript
        ),
        passes=len(passes),
        details=_details(ctx, passes, multi) if ctx.keep_bytes > 0 else (),
    )


def _head(path: Path, limit: int) -> tuple[bytes, int]:
    """The first ``limit`` bytes of the file at ``path`` and its size ((b"", 0) when there is none)."""
    if not path.is_file():
        return b"", 0
    with path.open("rb") as f:
        return f.read(limit), path.stat().st_size


def _details(ctx: Context, passes: list[Pass], multi: bool) -> tuple[PassDetail, ...]:
    """What each pass left for the jury (issue 47): its output and stderr (bounded), how it ended, what the
    validator said (a multi-pass validator appends to judgemessage.txt: each pass's own part)."""
    out = []
    said = ""
    for n, p in enumerate(passes, 1):
        output, output_bytes = _head(ctx.own / f"pass{n}.out", ctx.keep_bytes)
        stderr, stderr_bytes = _head(ctx.own / f"pass{n}.err", ctx.keep_bytes)
        given, given_bytes = _head(ctx.workdir / f"pass{n}.in", ctx.keep_bytes) if n > 1 else (b"", 0)
        fb = _feedback(p)
        judge_message = fb.judge_message
        if multi:
            judge_message, said = _new_text(said, fb.judge_message), fb.judge_message
        r = p.result
        out.append(
            PassDetail(
                n=n,
                verdict=p.verdict,
                output=output,
                output_bytes=max(output_bytes, r.stdout_bytes if not ctx.problem.interactive else 0),
                stderr=stderr,
                stderr_bytes=max(stderr_bytes, r.stderr_bytes),
                exit_code=r.exit_code,
                signal=r.signal,
                time_s=r.cpu_time_s,
                wall_time_s=r.wall_time_s,
                memory_kib=r.memory_kib,
                judge_message=judge_message,
                team_message=fb.team_message,
                input=given if n > 1 else None,
                input_bytes=given_bytes,
            )
        )
    return tuple(out)


def _run_passes(ctx: Context, first: PassSetup) -> tuple[list[Pass], Verdict, str]:
    """Run the passes of a test, from ``first`` on, until one decides the test: the passes, the verdict of
    the last and a note on it (an error of the multi-pass protocol)."""
    multi = ctx.problem.multi_pass
    max_passes = ctx.problem.limits.validation_passes if multi else 1
    run_pass = interactive_pass if ctx.problem.interactive else batch_pass
    passes: list[Pass] = []
    setup = first
    while True:
        p = run_pass(ctx, setup)
        passes.append(p)
        verdict, note = _after_nextpass(p, setup.n, max_passes) if multi else (p.verdict, "")
        if verdict is not None:
            return passes, verdict, note
        nextpass = _feedback(p).nextpass
        assert nextpass is not None
        stdin = ctx.workdir / f"pass{setup.n + 1}.in"
        shutil.move(nextpass, stdin)
        setup = replace(setup, n=setup.n + 1, stdin=stdin)


def _feedback(p: Pass) -> Feedback:
    return p.judgement.feedback if p.judgement is not None else Feedback()


def _after_nextpass(p: Pass, n: int, max_passes: int) -> tuple[Verdict | None, str]:
    """The verdict of multi-pass pass ``n`` and a note on it; None when pass ``n + 1`` follows (the validator
    accepted and wrote nextpass.in, and more passes are allowed)."""
    if _feedback(p).nextpass is None or p.judgement is None:
        return p.verdict, ""
    if p.judgement.verdict is not Verdict.AC:
        return Verdict.JE, "the validator wrote nextpass.in but did not accept (exit 42)"
    if p.verdict is not Verdict.AC:
        return p.verdict, ""  # the program failed (an interactive run): that is the verdict
    if n >= max_passes:
        return Verdict.JE, f"the validator asked for pass {n + 1}, but validation_passes is {max_passes}"
    return None, ""


def _scored(ctx: Context, test: TestCase, verdict: Verdict, fb: Feedback) -> tuple[Verdict, float, str]:
    """The test's verdict, its score fraction and a note, from its last pass's verdict and feedback."""
    group = ctx.problem.group(test.group)
    if verdict is not Verdict.AC:
        return verdict, 0.0, ""
    if group.aggregation is ScoreAggregation.PASS_FAIL and group.scored:
        if fb.score is not None or fb.score_multiplier is not None:
            return Verdict.JE, 0.0, "the validator wrote a score for a test of a pass-fail group (2025-09: a JE)"
    fraction = _fraction(ctx, test, fb)
    if not 0.0 <= fraction <= 1.0 + 1e-9:
        return Verdict.JE, 0.0, f"the validator's score is out of range (fraction {fraction:g} of the maximum)"
    return Verdict.AC, fraction, ""


def _pass_messages(passes: list[Pass], multi: bool) -> list[str]:
    """What the passes said, in order (of a multi-pass test: each pass's part once, numbered)."""
    messages: list[str] = []
    said = ""  # the validator's judgemessage.txt so far (multi-pass validators append to it)
    for n, p in enumerate(passes, 1):
        message = p.message
        if multi and p.judgement is not None and p.message == p.judgement.feedback.judge_message:
            message, said = _new_text(said, p.message), p.message
        if message:
            messages.append(message if not multi else f"pass {n}: {message}")
        if _feedback(p).ignored_score:
            messages.append("(the validator rejected and also wrote score.txt: the score is ignored)")
    return messages
