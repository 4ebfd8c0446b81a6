"""Batch problems: one run of the program on the input, its output judged by the output validator
(or by the default token comparison when the package has none)."""

from __future__ import annotations

from pathlib import Path

from judge.judging.checker import FlagError, check, parse_flags
from judge.judging.feedback import Feedback, Judgement, ValidatorCall, decide, validator_limits, validator_spec
from judge.judging.problemtypes.program import (
    Context,
    Pass,
    PassSetup,
    ProgramCall,
    answer_path,
    drop_box,
    program_args,
    run_box,
    run_program,
)
from judge.judging.verdict import Verdict


def validate(ctx: Context, setup: PassSetup, team_output: Path) -> Judgement:
    """The judgement of ``team_output``, the program's output in pass ``setup.n``."""
    args = ctx.problem.validator_args + setup.validator_args
    if ctx.validator is None:
        try:
            flags = parse_flags(args)
        except FlagError as exc:
            return Judgement(Verdict.JE, str(exc), Feedback())
        expected = setup.test.answer_path.read_bytes() if setup.test.answer_path else b""
        verdict = check(expected, team_output.read_bytes(), flags)
        return Judgement(Verdict.AC if verdict.accepted else Verdict.WA, verdict.message, Feedback())
    call = ValidatorCall(
        input_path=setup.stdin,
        answer_path=answer_path(ctx, setup.test),
        feedback_dir=setup.feedback_dir,
        args=args,
        team_output=team_output,
        log=ctx.workdir / f"validator{setup.n}.log",
        limits=validator_limits(ctx.problem),
    )
    return decide(ctx.runner.run(validator_spec(ctx.validator, call)), call.feedback_dir, call.log)


def batch_pass(ctx: Context, setup: PassSetup) -> Pass:
    """A pass of a batch test: the program in its box (``run_box``) on ``setup.stdin``, then the validator."""
    n = setup.n
    call = ProgramCall(
        box=run_box(ctx, ctx.own / f"box{n}", setup.test.files),
        test_input=setup.stdin,
        stdout=ctx.own / f"pass{n}.out",
        stderr=ctx.own / f"pass{n}.err",
        extra_args=program_args(ctx.problem, setup.test),
    )
    try:
        run = run_program(ctx.problem, ctx.program, ctx.runner, call, on_end=ctx.on_program_end)
    finally:
        drop_box(ctx, call.box)
    if run.verdict is not None:
        return Pass(run.result, None, run.verdict, run.message)
    judgement = validate(ctx, setup, run.output_file())
    return Pass(run.result, judgement, judgement.verdict, judgement.message)
