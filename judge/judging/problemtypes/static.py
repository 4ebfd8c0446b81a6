"""A group's static validation test case (2025-09): the static validator looks at the submission itself.

It runs (trusted, with the output validator's limits) in a copy of the submission's box (its files, what
compiling made, the included files) as ``static_validator language entry_point feedback_dir/ [args...]``
and judges as an output validator does: 42 accepts, 43 rejects, ``score.txt`` / ``score_multiplier.txt``
give the score (relative to the test case's maximum, ``static_validation_score``). The submission does not
run here. See docs/package-format.md, "Static validation".
"""

from __future__ import annotations

import shutil

from judge.judging.feedback import decide, validator_limits
from judge.judging.problemtypes.program import Context, fresh_box
from judge.judging.results import CaseResult
from judge.judging.verdict import Verdict
from judge.package.problem import TestCase
from judge.runner.spec import RunSpec


def _failed(test: TestCase, verdict: Verdict, message: str) -> CaseResult:
    return CaseResult(test.name, test.group, verdict, 0.0, 0.0, 0.0, 0, message)


def static_case(ctx: Context, test: TestCase) -> CaseResult:
    """The verdict and score fraction of ``test``, a static validation test case."""
    static = ctx.problem.group(test.group).static
    assert static is not None
    if ctx.static_validator is None:
        return _failed(test, Verdict.JE, "the static validator was not built")
    box = fresh_box(ctx.program, ctx.workdir / "static-box")
    feedback = ctx.workdir / "feedback"
    feedback.mkdir(parents=True, exist_ok=True)
    log = ctx.workdir / "static.log"
    language = ctx.program.format_code or ctx.program.language
    argv = (*ctx.static_validator.argv, language, ctx.program.entry_point, f"{feedback}/", *static.args)
    try:
        result = ctx.runner.run(
            RunSpec(
                argv=argv,
                box=box,
                limits=validator_limits(ctx.problem),
                stdout=log.with_suffix(".out"),
                stderr=log,
                env=dict(ctx.static_validator.env),
                trusted=True,
                warm=ctx.static_validator.warm,
            )
        )
    finally:
        shutil.rmtree(box, ignore_errors=True)
    judgement = decide(result, feedback, log)
    fb = judgement.feedback
    if judgement.verdict is not Verdict.AC:
        return _failed(test, judgement.verdict, judgement.message)
    if static.pass_fail and (fb.score is not None or fb.score_multiplier is not None):
        return _failed(test, Verdict.JE, "the static validator wrote a score for a pass-fail static test case")
    fraction = 1.0
    if fb.score_multiplier is not None:
        fraction = fb.score_multiplier
    elif fb.score is not None:
        fraction = fb.score / static.max_score if static.max_score > 0 else 1.0
    if not 0.0 <= fraction <= 1.0 + 1e-9:
        return _failed(test, Verdict.JE, f"the static validator's score is out of range ({fraction:g} of the maximum)")
    return CaseResult(
        test.name, test.group, Verdict.AC, min(fraction, 1.0), 0.0, result.wall_time_s, 0, judgement.message
    )
