"""One test case, pass by pass: batch and interactive tests have one pass, multi-pass tests up to
``validation_passes``; then the test's verdict and score fraction."""

from __future__ import annotations

import shutil

from judge.judging.feedback import Feedback
from judge.judging.problemtypes.batch import batch_pass
from judge.judging.problemtypes.interactive import interactive_pass
from judge.judging.problemtypes.program import Context
from judge.judging.results import CaseResult
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
    run_pass = interactive_pass if ctx.problem.interactive else batch_pass
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
