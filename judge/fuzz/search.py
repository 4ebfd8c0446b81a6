"""One Hypothesis run over a package's strategy: examples judged by an ``Examiner``, the first
disagreement shrunk by Hypothesis.

A *disagreement* is any verdict but AC: a wrong answer, and also TLE / MLE / RTE / OLE / PV (shrunk too);
a caller may look for fewer (``TrialSetup.disagrees``). JE (the package's own failure) and failures of
``fuzz.py`` stop the run instead.
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


class _Cancelled(BaseException):  # noqa: N818 - another worker's failure made this run pointless, or the caller's stop
    pass


OnExample = Callable[[int, bytes, Trial], None]  # (examples so far, the input, what it gave)


@dataclass(frozen=True)
class SearchPlan:
    """What one Hypothesis run tries: how many examples from which seed, where failures are replayed from and
    recorded, and how long the first disagreement may be shrunk."""

    examples: int
    seed: int
    database: ExampleDatabase | None  # None: neither replay nor record
    key: bytes  # the submission's key in ``database``
    shrink_time_s: float


def _never() -> bool:
    return False


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class SearchEvents:
    """What one Hypothesis run tells the caller, and asks it (from the run's thread)."""

    on_example: OnExample | None = None  # after each example it judged (not those judged while shrinking)
    cancelled: Callable[[], bool] = _never  # asked before every example: True ends the run (status CANCELLED)
    on_failure: Callable[[], None] = _nothing  # the first disagreement was found: shrinking starts


@dataclass
class _Examples:
    """The test function Hypothesis calls many times: it judges each distinct input once and remembers what
    it saw."""

    examiner: Examiner
    shrink_time_s: float
    events: SearchEvents
    examples: int = 0
    runs: int = 0
    shrink_runs: int = 0
    first_failure_at: float | None = None
    shrink_deadline: float = 0.0
    passed: set[bytes] = field(default_factory=set)  # digests of inputs judged AC
    failed: dict[bytes, tuple[bytes, Trial]] = field(default_factory=dict)  # digest -> (answer, trial)

    def check(self, test_input: bytes) -> None:
        """The test: raises _Disagreement when the submission disagrees with the reference on ``test_input``."""
        if not isinstance(test_input, bytes):
            name = self.examiner.hooks.path.name
            raise _Abort(f"{name}: strategy() must generate bytes, not {type(test_input).__name__}")
        found = self.judged(test_input)
        if found is not None:  # one raise site: Hypothesis tells failures apart by where they were raised
            raise _Disagreement(test_input, *found)

    def judged(self, test_input: bytes) -> tuple[bytes, Trial] | None:
        """The answer and the trial of an input: memoised; None for "count it as passing"."""
        digest = hashlib.blake2b(test_input, digest_size=16).digest()
        shrinking = self.first_failure_at is not None
        if not shrinking and self.events.cancelled():
            raise _Cancelled()
        if not shrinking:
            self.examples += 1
        if digest in self.passed:
            return None
        if digest in self.failed:
            return self.failed[digest]
        if shrinking and time.monotonic() > self.shrink_deadline:
            return None  # shrinking budget spent: unseen inputs pass, so the shrinker stops
        answer, trial = self._judge(test_input, shrinking)
        if not self.examiner.disagrees(test_input, trial):  # AC (or what the caller does not look for)
            self.passed.add(digest)
            return None
        self.failed[digest] = (answer, trial)
        if not shrinking:
            self.first_failure_at = time.monotonic()
            self.shrink_deadline = self.first_failure_at + self.shrink_time_s
            self.events.on_failure()
        return answer, trial

    def _judge(self, test_input: bytes, shrinking: bool) -> tuple[bytes, Trial]:
        """Run the submission on an input not seen yet, and count the run."""
        try:
            answer = self.examiner.answer(test_input)
            trial = self.examiner.judge(test_input, answer)
        except HookError as exc:
            raise _Abort(str(exc)) from None
        if shrinking:
            self.shrink_runs += 1
        else:
            self.runs += 1
            if self.events.on_example is not None:
                self.events.on_example(self.examples, test_input, trial)
        if trial.verdict is Verdict.JE:
            raise _Abort(f"judge error on a generated input: {trial.message}")
        return answer, trial


def _hypothesis_test(examples: _Examples, plan: SearchPlan) -> Callable[[], None]:
    """``examples.check`` as a Hypothesis test over the package's strategy, as ``plan`` says."""

    def check(test_input: bytes) -> None:  # a plain function of the one argument the strategy draws
        examples.check(test_input)

    test = given(examples.examiner.hooks.strategy)(check)
    # seed() first: it turns the database off, and the settings applied after it turn it back on.
    test = hypothesis_seed(plan.seed)(test)
    test = settings(
        max_examples=plan.examples,
        deadline=None,
        database=plan.database,
        derandomize=False,
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
    )(test)
    test._hypothesis_internal_database_key = plan.key  # type: ignore[attr-defined]  # stable across engine edits
    return test


def search(examiner: Examiner, plan: SearchPlan, events: SearchEvents) -> FuzzOutcome:
    """One Hypothesis run. CANCELLED (with the examples judged so far) when ``events.cancelled()`` turned true
    (asked before every example, never while shrinking a disagreement)."""
    seen = _Examples(examiner, plan.shrink_time_s, events)
    stored = plan.database is not None and next(iter(plan.database.fetch(plan.key)), None) is not None
    start = time.monotonic()
    test = _hypothesis_test(seen, plan)
    outcome = FuzzOutcome("", "", "", FuzzStatus.PASSED, plan.seed, examiner.checker)
    try:
        test()
    except _Disagreement as found:
        end = seen.first_failure_at or time.monotonic()
        trial = found.trial
        cex = Counterexample(
            found.test_input, found.answer, trial.output, trial.verdict, trial.message, False, trial.transcript
        )
        return replace(
            outcome,
            status=FuzzStatus.COUNTEREXAMPLE,
            examples=seen.examples,
            runs=seen.runs,
            elapsed_s=end - start,
            shrink_runs=seen.shrink_runs,
            replayed=stored and seen.examples == 1,
            counterexample=cex,
        )
    except _Cancelled:
        elapsed = time.monotonic() - start
        return replace(outcome, status=FuzzStatus.CANCELLED, examples=seen.examples, runs=seen.runs, elapsed_s=elapsed)
    except _Abort as exc:
        return replace(outcome, status=FuzzStatus.ERROR, message=exc.message, examples=seen.examples)
    except HypothesisException as exc:
        return replace(outcome, status=FuzzStatus.ERROR, message=f"hypothesis: {type(exc).__name__}: {exc}")
    return replace(outcome, examples=seen.examples, runs=seen.runs, elapsed_s=time.monotonic() - start)
