"""Interactive problems: the program and the output validator run at once, connected by pipes; the
verdict follows the Kattis/DOMjudge precedence (docs/package-format.md, "Interactive problems")."""

from __future__ import annotations

from pathlib import Path

from judge.judging.feedback import REJECT, Judgement, ValidatorCall, decide, validator_limits, validator_spec
from judge.judging.problemtypes.program import (
    Context,
    Pass,
    PassSetup,
    ProgramCall,
    answer_path,
    describe_failure,
    drop_box,
    program_args,
    program_spec,
    run_box,
)
from judge.judging.verdict import Verdict, limit_verdict
from judge.runner.spec import InteractiveResult, LimitHit

TRANSCRIPT_LINES = 40
VALIDATOR_EXTRA_WALL_S = 10  # the validator's wall-clock limit: the program's, plus this


def interactive_pass(ctx: Context, setup: PassSetup) -> Pass:
    """A pass of an interactive test; ``setup.stdin`` is this pass's input (the validator's ``input_file``)."""
    assert ctx.validator is not None
    n = setup.n
    err = ctx.own / f"pass{n}.err"
    transcript = ctx.workdir / f"pass{n}.transcript"
    call = ProgramCall(
        box=run_box(ctx, ctx.own / f"box{n}", setup.test.files),
        test_input=setup.stdin,
        stdout=None,
        stderr=err,
        extra_args=program_args(ctx.problem, setup.test),
    )
    program = program_spec(ctx.problem, ctx.program, call)
    log = ctx.workdir / f"validator{n}.log"
    peer = ValidatorCall(
        input_path=setup.stdin,  # multi-pass: this pass's input (the previous pass's nextpass.in)
        answer_path=answer_path(ctx, setup.test),
        feedback_dir=setup.feedback_dir,
        args=ctx.problem.validator_args + setup.validator_args,
        team_output=None,
        log=log,
        wall_time_s=program.limits.wall_time_s + VALIDATOR_EXTRA_WALL_S,
        limits=validator_limits(ctx.problem),
    )
    try:
        both = ctx.runner.run_interactive(program, validator_spec(ctx.validator, peer), transcript, peer_rejects=REJECT)
    finally:
        drop_box(ctx, call.box)
    lines = transcript.read_text(errors="replace").splitlines()[:TRANSCRIPT_LINES] if transcript.exists() else []
    shown = "\n".join(lines)
    judgement = decide(both.peer, setup.feedback_dir, log)
    verdict, message = _precedence(both, judgement, err)
    return Pass(both.program, judgement, verdict, message, shown)


def _precedence(both: InteractiveResult, judgement: Judgement, err: Path) -> tuple[Verdict, str]:
    """The pass's verdict and message from what the program and the validator did: the Kattis/DOMjudge
    precedence (docs/package-format.md, "Interactive problems")."""
    run_verdict = limit_verdict(both.program)
    if (
        judgement.verdict is Verdict.JE
        and run_verdict is not None
        and run_verdict is not Verdict.JE
        and not both.peer_first
        and both.peer.limit_hit is LimitHit.WALL_TIME
    ):
        # the program failed first; the judge then stopped the validator (still reading its output)
        return run_verdict, describe_failure(both.program, run_verdict, err)
    if judgement.verdict is Verdict.JE:
        return Verdict.JE, judgement.message
    if both.peer_first and judgement.verdict in (Verdict.WA, Verdict.PV):
        return judgement.verdict, judgement.message
    if run_verdict is not None:  # the program's own failure: a limit, a crash (or the sandbox's, JE)
        return run_verdict, describe_failure(both.program, run_verdict, err)
    return judgement.verdict, judgement.message
