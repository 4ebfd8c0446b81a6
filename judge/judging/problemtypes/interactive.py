"""Interactive problems: the program and the output validator run at once, connected by pipes; the
verdict follows the Kattis/DOMjudge precedence (docs/package-format.md, "Interactive problems")."""

from __future__ import annotations

import shutil
from pathlib import Path

from judge.judging.feedback import decide, validator_spec
from judge.judging.problemtypes.program import (
    Context,
    Pass,
    answer_path,
    describe_failure,
    fresh_box,
    program_args,
    program_spec,
)
from judge.judging.verdict import Verdict, limit_verdict
from judge.package.problem import TestCase
from judge.runner.spec import LimitHit

TRANSCRIPT_LINES = 40
VALIDATOR_EXTRA_WALL_S = 10  # the validator's wall-clock limit: the program's, plus this


def interactive_pass(
    ctx: Context, test: TestCase, args: tuple[str, ...], stdin: Path, feedback_dir: Path, n: int
) -> Pass:
    """Pass ``n`` of an interactive test; ``stdin`` is this pass's input (the validator's ``input_file``)."""
    assert ctx.validator is not None
    box = fresh_box(ctx.program, ctx.workdir / f"box{n}")
    err = ctx.workdir / f"pass{n}.err"
    transcript = ctx.workdir / f"pass{n}.transcript"
    program = program_spec(ctx.problem, ctx.program, box, program_args(ctx.problem, test), stdin, None, None, err)
    log = ctx.workdir / f"validator{n}.log"
    peer = validator_spec(
        ctx.validator,
        input_path=stdin,  # multi-pass: this pass's input (the previous pass's nextpass.in)
        answer_path=answer_path(ctx, test),
        feedback_dir=feedback_dir,
        args=ctx.problem.validator_args + args,
        team_output=None,
        log=log,
        wall_time_s=program.limits.wall_time_s + VALIDATOR_EXTRA_WALL_S,
    )
    try:
        both = ctx.runner.run_interactive(program, peer, transcript)
    finally:
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
        return Pass(both.program, judgement, run_verdict, describe_failure(both.program, run_verdict, err), shown)
    if judgement.verdict is Verdict.JE:
        return Pass(both.program, judgement, Verdict.JE, judgement.message, shown)
    if both.peer_exited_first and judgement.verdict in (Verdict.WA, Verdict.PV):
        return Pass(both.program, judgement, judgement.verdict, judgement.message, shown)
    if run_verdict is not None and run_verdict is not Verdict.RTE:
        return Pass(both.program, judgement, run_verdict, describe_failure(both.program, run_verdict, err), shown)
    if run_verdict is Verdict.RTE:
        return Pass(both.program, judgement, Verdict.RTE, describe_failure(both.program, Verdict.RTE, err), shown)
    return Pass(both.program, judgement, judgement.verdict, judgement.message, shown)
