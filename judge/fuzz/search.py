"""One Hypothesis run over a package's strategy: examples judged by an ``Examiner``, the first
disagreement shrunk by Hypothesis.

A *disagreement* is any verdict but AC: a wrong answer, and also TLE / MLE / RTE / OLE / PV (shrunk too).
JE (the package's own failure) and failures of ``fuzz.py`` stop the run instead.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.database import ExampleDatabase
from hypothesis.errors import HypothesisException

from judge.fuzz.hooks import FuzzHooks
from judge.fuzz.outcome import Counterexample, FuzzOutcome, FuzzStatus
from judge.fuzz.trial import Examiner, HookError, Trial
from judge.judging.verdict import Verdict


class _Disagreement(Exception):
    def __init__(self, test_input: bytes, answer: bytes, trial: Trial) -> None:
        super().__init__(f"{trial.verdict.value}: {trial.message[:200]}")
        self.test_input, self.answer, self.trial = test_input, answer, trial


class _Abort(BaseException):  # noqa: N818 - not an error of the example: Hypothesis must not catch or shrink it
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Cancelled(BaseException):  # noqa: N818 - another worker's failure made this run pointless
    pass


@dataclass
class _State:
    """What the test function saw (Hypothesis calls it many times)."""

    examples: int = 0
    runs: int = 0
    shrink_runs: int = 0
    first_failure_at: float | None = None
    shrink_deadline: float = 0.0
    passed: set[bytes] = field(default_factory=set)  # digests of inputs judged AC
    failed: dict[bytes, tuple[bytes, Trial]] = field(default_factory=dict)  # digest -> (answer, trial)


def search(
    examiner: Examiner,
    hooks: FuzzHooks,
    examples: int,
    seed: int,
    db: ExampleDatabase | None,
    key: bytes,
    shrink_time_s: float,
    on_example: Callable[[int, bytes, Trial], None] | None,
    cancelled: Callable[[], bool] = lambda: False,
    on_failure: Callable[[], None] = lambda: None,
) -> FuzzOutcome | None:
    """One Hypothesis run. None when ``cancelled()`` turned true (checked before every example)."""
    state = _State()
    stored = db is not None and next(iter(db.fetch(key)), None) is not None
    start = time.monotonic()

    def judged(test_input: bytes) -> tuple[bytes, Trial] | None:
        """The answer and the trial of an input: memoised; None for "count it as passing"."""
        digest = hashlib.blake2b(test_input, digest_size=16).digest()
        shrinking = state.first_failure_at is not None
        if not shrinking and cancelled():
            raise _Cancelled()
        if not shrinking:
            state.examples += 1
        if digest in state.passed:
            return None
        if digest in state.failed:
            return state.failed[digest]
        if shrinking and time.monotonic() > state.shrink_deadline:
            return None  # shrinking budget spent: unseen inputs pass, so the shrinker stops
        try:
            answer = examiner.answer(test_input)
            trial = examiner.judge(test_input, answer)
        except HookError as exc:
            raise _Abort(str(exc)) from None
        if shrinking:
            state.shrink_runs += 1
        else:
            state.runs += 1
            if on_example is not None:
                on_example(state.examples, test_input, trial)
        if trial.verdict is Verdict.JE:
            raise _Abort(f"judge error on a generated input: {trial.message}")
        if trial.accepted:
            state.passed.add(digest)
            return None
        state.failed[digest] = (answer, trial)
        if not shrinking:
            state.first_failure_at = time.monotonic()
            state.shrink_deadline = state.first_failure_at + shrink_time_s
            on_failure()
        return answer, trial

    def check(test_input: bytes) -> None:
        if not isinstance(test_input, bytes):
            raise _Abort(f"{hooks.path.name}: strategy() must generate bytes, not {type(test_input).__name__}")
        found = judged(test_input)
        if found is not None:  # one raise site: Hypothesis tells failures apart by where they were raised
            raise _Disagreement(test_input, *found)

    test = given(hooks.strategy)(check)
    # seed() first: it turns the database off, and the settings applied after it turn it back on.
    test = hypothesis_seed(seed)(test)
    test = settings(
        max_examples=examples,
        deadline=None,
        database=db,
        derandomize=False,
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
    )(test)
    test._hypothesis_internal_database_key = key  # type: ignore[attr-defined]  # stable across engine edits

    outcome = FuzzOutcome("", "", "", FuzzStatus.PASSED, seed, examiner.checker)
    try:
        test()
    except _Disagreement as found:
        end = state.first_failure_at or time.monotonic()
        trial = found.trial
        cex = Counterexample(found.test_input, found.answer, trial.output, trial.verdict, trial.message, False)
        return replace(
            outcome,
            status=FuzzStatus.COUNTEREXAMPLE,
            examples=state.examples,
            runs=state.runs,
            elapsed_s=end - start,
            shrink_runs=state.shrink_runs,
            replayed=stored and state.examples == 1,
            counterexample=cex,
        )
    except _Cancelled:
        return None
    except _Abort as exc:
        return replace(outcome, status=FuzzStatus.ERROR, message=exc.message, examples=state.examples)
    except HypothesisException as exc:
        return replace(outcome, status=FuzzStatus.ERROR, message=f"hypothesis: {type(exc).__name__}: {exc}")
    return replace(outcome, examples=state.examples, runs=state.runs, elapsed_s=time.monotonic() - start)
