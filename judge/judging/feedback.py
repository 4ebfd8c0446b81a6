"""Output validators: how they are invoked (Kattis convention) and what their feedback directory says."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from judge.judging.build import Program
from judge.judging.verdict import Verdict
from judge.package.problem import Problem
from judge.runner.spec import Limits, RunResult, RunSpec

VALIDATOR_LIMITS = Limits(
    time_s=60.0,
    wall_time_s=60.0,
    memory_kib=4 * 1024 * 1024,
    processes=64,
    output_bytes=256 * 1024 * 1024,
    stderr_bytes=64 * 1024,
    open_files=256,
)
ACCEPT, REJECT = 42, 43


def validator_limits(problem: Problem) -> Limits:
    """An output (or static) validator's limits: ours, or the package's 2025-09 ``validation_time``,
    ``validation_memory`` and ``validation_output`` where it gives them."""
    given = problem.limits
    time_s = given.validation_time_s or VALIDATOR_LIMITS.time_s
    return replace(
        VALIDATOR_LIMITS,
        time_s=time_s,
        wall_time_s=max(time_s, VALIDATOR_LIMITS.wall_time_s),
        memory_kib=given.validation_memory_kib or VALIDATOR_LIMITS.memory_kib,
        output_bytes=given.validation_output_bytes or VALIDATOR_LIMITS.output_bytes,
    )


MESSAGE_CHARS = 4000


@dataclass(frozen=True)
class Feedback:
    """What a validator left in its feedback directory."""

    judge_message: str = ""
    team_message: str = ""
    score: float | None = None  # score.txt
    score_multiplier: float | None = None  # score_multiplier.txt
    metric: float | None = None  # metric.txt (ours)
    nextpass: Path | None = None
    error: str | None = None  # the files themselves are malformed (a JE)
    ignored_score: bool = False  # the validator rejected and also wrote score.txt / score_multiplier.txt


@dataclass(frozen=True)
class Judgement:
    """A validator's decision about one run's output."""

    verdict: Verdict  # AC, WA, PV or JE
    message: str
    feedback: Feedback


def _number(path: Path) -> tuple[float | None, str | None]:
    if not path.is_file():
        return None, None
    text = path.read_text(errors="replace").strip()
    try:
        return float(text), None
    except ValueError:
        return None, f"{path.name} does not hold a number: {text[:40]!r}"


def read_feedback(feedback_dir: Path) -> Feedback:
    def text(name: str) -> str:
        p = feedback_dir / name
        return p.read_text(errors="replace")[:MESSAGE_CHARS].strip() if p.is_file() else ""

    score, e1 = _number(feedback_dir / "score.txt")
    mult, e2 = _number(feedback_dir / "score_multiplier.txt")
    metric, e3 = _number(feedback_dir / "metric.txt")
    error = e1 or e2 or e3
    if score is not None and mult is not None:
        error = "the validator wrote both score.txt and score_multiplier.txt"
    nextpass = feedback_dir / "nextpass.in"
    return Feedback(
        judge_message=text("judgemessage.txt"),
        team_message=text("teammessage.txt"),
        score=score,
        score_multiplier=mult,
        metric=metric,
        nextpass=nextpass if nextpass.is_file() else None,
        error=error,
    )


def missing_module_hint(stderr_tail: str) -> str:
    """A sentence for the organizer when a package program could not import the project's ``reference``."""
    if "No module named 'reference" not in stderr_tail:
        return ""
    return (
        " [the package's programs import the project's `reference` package, which the judge puts on their "
        "PYTHONPATH when it can import it itself; a package copied elsewhere needs `judge export` "
        "(see docs/package-format.md)]"
    )


@dataclass(frozen=True)
class ValidatorCall:
    """One run of an output validator, as Kattis invokes it:
    ``validator input_file answer_file feedback_dir/ [args...] < team_output``."""

    input_path: Path
    answer_path: Path
    feedback_dir: Path  # its box too
    args: tuple[str, ...]
    team_output: Path | None  # None: an interactive run (its stdin is the program's stdout)
    log: Path  # its stderr; its stdout goes beside, with the suffix .out
    wall_time_s: float | None = None  # CPU and wall-clock limit (interactive); None: those of ``limits``
    limits: Limits = VALIDATOR_LIMITS  # ``validator_limits`` of the problem


def validator_spec(validator: Program, call: ValidatorCall) -> RunSpec:
    """How to start ``validator`` for ``call`` (a trusted run)."""
    limits = call.limits
    if call.wall_time_s is not None:
        limits = replace(limits, wall_time_s=call.wall_time_s, time_s=call.wall_time_s)
    return RunSpec(
        argv=(*validator.argv, str(call.input_path), str(call.answer_path), str(call.feedback_dir) + "/", *call.args),
        box=call.feedback_dir.parent,
        limits=limits,
        stdin=call.team_output,
        stdout=call.log.with_suffix(".out"),
        stderr=call.log,
        env=dict(validator.env),
        trusted=True,
        warm=validator.warm,
    )


def decide(result: RunResult, feedback_dir: Path, log: Path) -> Judgement:
    """Kattis: 42 accept, 43 reject, anything else is the judge's (the package's) failure."""
    fb = read_feedback(feedback_dir)
    stderr_tail = log.read_text(errors="replace")[-1500:].strip() if log.is_file() else ""
    if result.sandbox_error is not None:
        return Judgement(Verdict.JE, f"validator could not be run: {result.sandbox_error}", fb)
    if result.limit_hit is not None:
        return Judgement(Verdict.JE, f"validator hit its {result.limit_hit} limit", fb)
    if fb.error is not None:
        return Judgement(Verdict.JE, f"validator feedback: {fb.error}", fb)
    if result.exit_code == ACCEPT:
        return Judgement(Verdict.AC, fb.judge_message, fb)
    if result.exit_code == REJECT:
        # A rejection is a rejection: a score.txt beside it is ignored (as DOMjudge; the Kattis spec calls it a
        # judge error, which would leave the contestant's wrong answer uncharged). See docs/package-format.md.
        if fb.score is not None or fb.score_multiplier is not None:
            fb = replace(fb, score=None, score_multiplier=None, ignored_score=True)
        if fb.judge_message.startswith("PV:"):
            return Judgement(Verdict.PV, fb.judge_message[3:].strip(), fb)
        return Judgement(Verdict.WA, fb.judge_message, fb)
    how = f"signal {result.signal}" if result.signal is not None else f"status {result.exit_code}"
    detail = f": {stderr_tail}{missing_module_hint(stderr_tail)}" if stderr_tail else ""
    return Judgement(Verdict.JE, f"validator exited with {how} (expected 42 or 43){detail}", fb)
