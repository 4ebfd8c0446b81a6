"""Batch problems: one run of the program on the input, its output judged by the output validator
(or by the default token comparison when the package has none)."""

from __future__ import annotations

import shutil
from pathlib import Path

from judge.judging.checker import FlagError, check, parse_flags
from judge.judging.feedback import Feedback, Judgement, decide, validator_spec
from judge.judging.problemtypes.program import Context, Pass, answer_path, fresh_box, program_args, run_program
from judge.judging.verdict import Verdict
from judge.package.problem import TestCase


def validate(
    ctx: Context,
    test: TestCase,
    pass_input: Path,
    args: tuple[str, ...],
    team_output: Path,
    feedback_dir: Path,
    n: int,
) -> Judgement:
    """The judgement of ``team_output`` for pass ``n`` of ``test`` (``args``: the validator's arguments)."""
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
        answer_path=answer_path(ctx, test),
        feedback_dir=feedback_dir,
        args=ctx.problem.validator_args + args,
        team_output=team_output,
        log=log,
    )
    return decide(ctx.runner.run(spec), feedback_dir, log)


def batch_pass(ctx: Context, test: TestCase, args: tuple[str, ...], stdin: Path, feedback_dir: Path, n: int) -> Pass:
    """Pass ``n`` of a batch test: the program in a fresh box on ``stdin``, then the validator."""
    box = fresh_box(ctx.program, ctx.workdir / f"box{n}")
    out, err = ctx.workdir / f"pass{n}.out", ctx.workdir / f"pass{n}.err"
    try:
        run = run_program(
            ctx.problem, ctx.program, ctx.runner, box, stdin, out, err, extra_args=program_args(ctx.problem, test)
        )
    finally:
        shutil.rmtree(box, ignore_errors=True)
    if run.verdict is not None:
        return Pass(run.result, None, run.verdict, run.message)
    judgement = validate(ctx, test, stdin, args, run.output_file(), feedback_dir, n)
    return Pass(run.result, judgement, judgement.verdict, judgement.message)
