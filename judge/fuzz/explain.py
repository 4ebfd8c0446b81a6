"""``explain_submission``: a fresh, minimal input on which a rejected submission fails, never one of the
package's tests (issue 46, docs/explain.md).

It is `judge fuzz` (``fuzz_submission``) with three differences: the search looks only for the failures a
counterexample may show (``explanation.shown``) on inputs that are not a test's (``KnownInputs``: such an
input counts as passing, so the search and both shrinkers walk around it to another one); it stops when its
budget is spent (examples, and seconds through ``cancelled``); and its result is an ``Explanation``. The
counterexample is checked by the package's input validators and judged again by the package's own output
validator before it is returned (``fuzz_submission`` does both). Processes are started by the runner only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from judge.fuzz.engine import fuzz_submission
from judge.fuzz.explanation import ExplainStatus, Explanation, KnownInputs, explained, known_inputs, shown
from judge.fuzz.hooks import load_hooks
from judge.fuzz.options import EXPLAIN_SEED, ExplainBudget, FuzzOptions
from judge.fuzz.outcome import FuzzOutcome, FuzzStatus
from judge.fuzz.trial import Trial
from judge.judging.submission import Environment, Prepared
from judge.judging.verdict import Verdict

# The budget's seconds, shared out: the search (the build included) stops taking examples after this share;
# Hypothesis' shrinking may then take SHRINK_SHARE, the token stage half of that (judge.fuzz.engine). Finding
# one is what fails on slow problems (bench/explain.py: klondike, coins' crash); shrinking what was found
# rarely needs long, except where every input is large (go's boards).
SEARCH_SHARE = 0.6
SHRINK_SHARE = 0.25

Clock = Callable[[], float]


def explain_submission(
    prepared: Prepared,
    source: Path,
    env: Environment,
    verdict: Verdict,
    budget: ExplainBudget | None = None,
    *,
    seed: int = EXPLAIN_SEED,
    language: str | None = None,
    entry_point: str | None = None,
    workdir: Path | None = None,
    cancelled: Callable[[], bool] | None = None,
    clock: Clock = time.monotonic,
) -> Explanation:
    """Search for an input on which ``source`` (judged ``verdict``) fails, within ``budget``.

    Raises build.SkipLanguage like judge_submission. ``cancelled``: the caller's stop (asked before the build
    and every example): the result is then CANCELLED. ``clock``: what the budget's seconds are measured with
    (a test's own). Never raises for the package's or the judge's failures: status ERROR, with a note.
    """
    budget = budget or ExplainBudget()
    problem = prepared.problem
    start = clock()
    base = Explanation(ExplainStatus.UNAVAILABLE, problem.id, verdict, budget, seed)
    try:
        hooks = load_hooks(problem)
    except Exception as exc:  # noqa: BLE001 - PackageError and anything fuzz.py raised on import
        return _done(base, clock() - start, str(exc), ExplainStatus.ERROR)
    if hooks is None:
        return _done(base, clock() - start, f"{problem.id} has no fuzz.py")
    if not explained(verdict, explain_tle=hooks.explain_tle):
        return _done(base, clock() - start, f"{verdict.value} submissions are not explained")
    known = known_inputs(problem)
    watch = _Withheld(known, hooks.explain_tle, clock)
    stop = cancelled or _never
    search_end = start + budget.seconds * SEARCH_SHARE
    options = FuzzOptions(
        examples=budget.examples,
        seed=seed,
        jobs=1,
        use_database=False,
        shrink_time_s=budget.seconds * SHRINK_SHARE,
        language=language,
        entry_point=entry_point,
    )
    outcome = fuzz_submission(
        prepared,
        source,
        env,
        options,
        on_example=watch.seen,
        workdir=workdir,
        cancelled=lambda: stop() or clock() >= search_end,
        disagrees=watch.disagrees,
    )
    found_after_s = 0.0 if watch.found_at is None else watch.found_at - start
    return _explanation(outcome, base, known, watch.count, stop(), clock() - start, found_after_s)


def _never() -> bool:
    return False


class _Withheld:
    """What the search looks for, and the failures it walked around (from the searches' threads)."""

    def __init__(self, known: KnownInputs, explain_tle: bool, clock: Clock) -> None:
        self.known = known
        self.explain_tle = explain_tle
        self.clock = clock
        self.lock = threading.Lock()
        self.count = 0  # failures on tests' inputs
        self.found_at: float | None = None  # when the first failure to show was judged

    def failure(self, trial: Trial) -> bool:
        return shown(trial.verdict, explain_tle=self.explain_tle)

    def disagrees(self, test_input: bytes, trial: Trial) -> bool:
        return self.failure(trial) and not self.known.holds(test_input)

    def seen(self, _n: int, test_input: bytes, trial: Trial) -> None:
        if not self.failure(trial):
            return
        with self.lock:
            if self.known.holds(test_input):
                self.count += 1
            elif self.found_at is None:
                self.found_at = self.clock()


def _done(
    base: Explanation, elapsed_s: float, note: str, status: ExplainStatus = ExplainStatus.UNAVAILABLE
) -> Explanation:
    return replace(base, status=status, note=note, elapsed_s=elapsed_s)


def _explanation(
    outcome: FuzzOutcome,
    base: Explanation,
    known: KnownInputs,
    withheld: int,
    stopped: bool,
    elapsed_s: float,
    found_after_s: float,
) -> Explanation:
    out = replace(base, examples=outcome.examples, withheld=withheld, elapsed_s=elapsed_s)
    match outcome.status:
        case FuzzStatus.ERROR:
            return replace(out, status=ExplainStatus.ERROR, note=outcome.message)
        case FuzzStatus.NOT_BUILT:
            return replace(out, status=ExplainStatus.NOT_BUILT, note=outcome.message)
        case FuzzStatus.UNAVAILABLE:
            return replace(out, status=ExplainStatus.UNAVAILABLE, note=outcome.message)
        case FuzzStatus.PASSED | FuzzStatus.CANCELLED:
            if stopped:
                return replace(out, status=ExplainStatus.CANCELLED)
            if withheld:
                note = f"the program failed only on inputs equal to one of the package's tests ({withheld})"
                return replace(out, status=ExplainStatus.WITHHELD, note=note)
            when = "" if outcome.status is FuzzStatus.PASSED else ", when time was up"
            return replace(out, status=ExplainStatus.NOT_FOUND, note=f"none in {outcome.examples} examples{when}")
    cex = outcome.counterexample
    assert cex is not None
    if known.holds(cex.input):  # cannot happen (the search walks around them): never shown all the same
        return replace(out, status=ExplainStatus.WITHHELD, withheld=withheld + 1, note="equal to one of the tests")
    if not cex.confirmed:
        note = f"an input failed once ({cex.verdict.value}) but not when judged again: not shown"
        return replace(out, status=ExplainStatus.NOT_FOUND, note=note)
    return replace(
        out,
        status=ExplainStatus.FOUND,
        found_after_s=found_after_s,
        input=cex.input,
        answer=cex.answer,
        output=cex.output,
        failure=cex.verdict,
        message=cex.message,
        transcript=cex.transcript,
    )
