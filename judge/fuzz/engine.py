"""``fuzz_submission``: build the submission once, search with one or more Hypothesis runs
(judge.fuzz.search), then shrink the counterexample's tokens (judge.fuzz.tokens) and confirm it with the
package's own checks. The example database lives under the project's cache folder.
"""

from __future__ import annotations

import gc
import random
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from judge.fuzz.handover import RunSlots
from judge.fuzz.hooks import load_hooks
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import Counterexample, FuzzOutcome, FuzzStatus
from judge.fuzz.search import OnExample, SearchEvents, SearchPlan, search
from judge.fuzz.tokens import Found, shrink_tokens
from judge.fuzz.trial import (
    RUN_FAILURES,
    Disagrees,
    Examiner,
    HookError,
    Trial,
    TrialSetup,
    any_rejection,
    input_validators,
)
from judge.judging.build import build, detect_language
from judge.judging.inputcheck import InputValidator
from judge.judging.submission import Environment, Prepared
from judge.runner.workdirs import held_or_given

_never = SearchEvents().cancelled  # a caller that never cancels
SWITCH_INTERVAL_S = 0.0002  # the interpreter's switch interval the fuzzing commands set (see below)


def default_cache_dir(problem_path: Path, configured: Path | None = None) -> Path:
    """``configured`` (the command layer's ``$JUDGE_CACHE``), else ``.judge-cache`` in the enclosing git
    work tree, else in the cwd."""
    if configured is not None:
        return configured
    for parent in (problem_path.resolve(), *problem_path.resolve().parents):
        if (parent / ".git").exists():
            return parent / ".judge-cache"
    return Path.cwd() / ".judge-cache"


def database_key(problem_id: str, source: Path) -> bytes:
    return b"judge-fuzz\0" + problem_id.encode() + b"\0" + str(source.resolve()).encode()


def tune_for_fuzzing() -> None:
    """For the fuzzing commands, once, when everything they need is loaded (process-wide settings, so
    the command layer calls it):

    - a search's thread woken when its program ends must not wait out another's time slice (the
      interpreter's switch interval, 5 ms by default);
    - what is loaded by now (modules, the packages, Hypothesis' tables) stays for good: ``gc.freeze``
      takes it out of the collector's sight, so the full collections that fuzzing's allocations set off
      (and the one Hypothesis makes when a new thread first runs a test) take milliseconds, not tens of
      them. They hold the interpreter lock, so another search could not start its program meanwhile.
    """
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
    gc.collect()  # what is garbage now is not frozen
    gc.freeze()


def worker_seed(seed: int, worker: int) -> int:
    """Search 0 uses the seed itself; the others derive theirs from it."""
    return seed if worker == 0 else (seed + worker * 0x9E3779B1) % 2**32


class _Workers:
    """Deterministic parallel search: the result is the failure of the lowest-numbered worker that
    finds one. A worker stops early only when a lower-numbered one has failed (it cannot win then), so
    the outcome does not depend on timing."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lowest_failure: int | None = None

    def failed(self, worker: int) -> None:
        with self.lock:
            if self.lowest_failure is None or worker < self.lowest_failure:
                self.lowest_failure = worker

    def beaten(self, worker: int) -> bool:
        low = self.lowest_failure
        return low is not None and low < worker


def fuzz_submission(
    prepared: Prepared,
    source: Path,
    env: Environment,
    options: FuzzOptions,
    *,
    on_example: OnExample | None = None,
    workdir: Path | None = None,
    cancelled: Callable[[], bool] | None = None,
    disagrees: Disagrees = any_rejection,
) -> FuzzOutcome:
    """Fuzz one submission against the package's reference, as ``options`` say. Raises build.SkipLanguage
    like judge_submission.

    The searches are threads with seeds derived from ``options.seed``, sharing the examples (see
    FuzzOptions). ``on_example(n, input, trial)`` is called after each example (from the searches' threads
    when there are several). ``workdir``: where to build and run (default: a temporary folder of its own).
    ``cancelled``: asked before the build and before every example (never while a disagreement found is
    shrunk and confirmed); once true, the run ends with status CANCELLED and ``examples`` the examples judged
    (a caller resumes with the rest of its budget: `judge serve`'s live fuzzing). ``disagrees(input, trial)``:
    what the search looks for and the shrinkers keep (default: any verdict but AC; `--explain`: fewer).
    """
    problem = prepared.problem
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    lang = detect_language(source, env.languages) if options.language is None else env.languages[options.language]
    base = FuzzOutcome(problem.id, str(source), lang.id, FuzzStatus.UNAVAILABLE, seed, "")
    try:
        hooks = load_hooks(problem)
    except Exception as exc:  # noqa: BLE001 - PackageError and anything fuzz.py raised on import
        return replace(base, status=FuzzStatus.ERROR, message=str(exc))
    if hooks is None:
        return replace(base, message=f"{problem.id} has no fuzz.py")
    if prepared.error is not None:
        return replace(base, status=FuzzStatus.ERROR, message=prepared.error)
    if cancelled is not None and cancelled():
        return replace(base, status=FuzzStatus.CANCELLED)
    with held_or_given("judge-fuzz-", workdir) as work:  # swept if this judge dies (runner/workdirs.py)
        work.chmod(0o700)  # owner-only: the submission is inside (the sandbox gets its box as a mount: submission.py)
        built = build(source, lang, env, problem=problem, workdir=work, entry_point=options.entry_point)
        if built.program is None:
            return replace(base, status=FuzzStatus.NOT_BUILT, message=built.message)
        try:
            validators = input_validators(problem, env, work)
        except HookError as exc:
            return replace(base, status=FuzzStatus.ERROR, message=str(exc))
        setup = TrialSetup(
            problem,
            built.program,
            prepared.validator,
            env.runner,
            hooks,
            use_accepts=options.use_accepts,
            input_validators=validators if options.check_inputs else (),
            run_slots=RunSlots(max(1, options.jobs)),
            disagrees=disagrees,
        )
        return _fuzz_built(setup, work, options, base, validators, SearchEvents(on_example, cancelled or _never))


def _fuzz_built(
    setup: TrialSetup,
    work: Path,
    options: FuzzOptions,
    base: FuzzOutcome,
    validators: tuple[InputValidator, ...],
    caller: SearchEvents,
) -> FuzzOutcome:
    """The searches over the built submission, then the counterexample (if any) shrunk and confirmed.
    ``base``: the outcome's problem, source, language and seed (``options.seed``, or the one drawn).
    ``caller``: its ``on_example`` and ``cancelled``, given to every search."""
    jobs = max(1, options.jobs)
    searches = max(1, min(jobs + 1 if options.pipeline else jobs, options.examples))
    examiners: list[Examiner] = []
    try:
        examiners = [Examiner(setup, work / f"ex{k}") for k in range(searches)]
        key = database_key(base.problem, Path(base.source))
        outcome = _search(examiners, options, base.seed, key, caller)
        outcome = replace(outcome, problem=base.problem, source=base.source, language=base.language, seed=base.seed)
        if outcome.counterexample is not None:
            examiner = examiners[0]
            deadline = time.monotonic() + options.shrink_time_s / 2
            outcome = _shrink_tokens(outcome, examiner, validators, deadline)
            outcome = _confirm(outcome, examiner, validators)
        return outcome
    finally:
        for examiner in examiners:
            examiner.close()


def _database(options: FuzzOptions, problem_path: Path) -> ExampleDatabase | None:
    if not options.use_database:
        return None
    return DirectoryBasedExampleDatabase(str(options.database_dir or default_cache_dir(problem_path) / "hypothesis"))


def _search(
    examiners: list[Examiner], options: FuzzOptions, seed: int, key: bytes, caller: SearchEvents
) -> FuzzOutcome:
    """One search per examiner (threads, when several), the examples shared out; their outcomes merged.
    A search stops when a lower-numbered one has failed, or when the caller cancels."""
    searches = len(examiners)
    budgets = [options.examples // searches + (k < options.examples % searches) for k in range(searches)]
    db = _database(options, examiners[0].problem.path)
    workers = _Workers()
    start = time.monotonic()

    def run(k: int) -> FuzzOutcome:
        plan = SearchPlan(budgets[k], worker_seed(seed, k), db, key, options.shrink_time_s)
        events = SearchEvents(
            caller.on_example,
            cancelled=lambda: workers.beaten(k) or caller.cancelled(),
            on_failure=lambda: workers.failed(k),
        )
        return search(examiners[k], plan, events)

    if searches == 1:
        results = [run(0)]
    else:
        with ThreadPoolExecutor(searches, thread_name_prefix="judge-fuzz") as pool:
            results = list(pool.map(run, range(searches)))
    return _merge(results, budgets, time.monotonic() - start)


def _merge(results: list[FuzzOutcome], budgets: list[int], elapsed_s: float) -> FuzzOutcome:
    """One outcome from the workers': the first in worker order that failed (neither PASSED nor CANCELLED),
    else the sum (CANCELLED when the caller cancelled any of them)."""
    stopped = any(r.status is FuzzStatus.CANCELLED for r in results)
    for k, result in enumerate(results):
        if result.status in (FuzzStatus.PASSED, FuzzStatus.CANCELLED):
            continue  # a worker cancelled before failing: a lower-numbered one failed, or the caller stopped
        # the lower-numbered workers ran their budgets without failing (or, the caller having stopped, part)
        before = sum(r.examples for r in results[:k]) if stopped else sum(budgets[:k])
        return replace(result, examples=before + result.examples) if k else result
    runs = sum(r.runs for r in results)
    summed = replace(results[0], examples=sum(r.examples for r in results), runs=runs, elapsed_s=elapsed_s)
    return replace(summed, status=FuzzStatus.CANCELLED) if stopped else summed


def _shrink_tokens(
    outcome: FuzzOutcome, examiner: Examiner, validators: tuple[InputValidator, ...], deadline: float
) -> FuzzOutcome:
    cex = outcome.counterexample
    assert cex is not None
    start = Found(cex.input, cex.answer, Trial(cex.verdict, cex.message, cex.output, 0.0))
    try:
        found, runs = shrink_tokens(examiner, validators, start, deadline)
    except HookError as exc:
        return replace(outcome, status=FuzzStatus.ERROR, message=str(exc))
    if found is start:
        return replace(outcome, shrink_runs=outcome.shrink_runs + runs)
    t = found.trial
    smaller = Counterexample(found.test_input, found.answer, t.output, t.verdict, t.message, False, t.transcript)
    return replace(outcome, counterexample=smaller, shrink_runs=outcome.shrink_runs + runs)


def _confirm(outcome: FuzzOutcome, examiner: Examiner, validators: tuple[InputValidator, ...]) -> FuzzOutcome:
    """Check the shrunk input is valid, and re-judge it the way `judge grade` would."""
    cex = outcome.counterexample
    assert cex is not None
    for validator in validators:
        problem = validator.check(cex.input, examiner.runner, examiner.workdir)
        if problem is not None:
            message = f"{examiner.hooks.path.name} generated an invalid input ({problem})"
            return replace(outcome, status=FuzzStatus.ERROR, message=message)
    if not examiner.fast_path:
        return replace(outcome, counterexample=replace(cex, confirmed=True))
    full = examiner.full(cex.input, cex.answer)
    if full.accepted and cex.verdict in RUN_FAILURES:  # a time limit hit once and not again, say
        note = f"{cex.message}\n(not reproduced when judged again: {full.verdict.value})"
        return replace(outcome, counterexample=replace(cex, message=note.strip(), confirmed=False))
    if full.accepted:
        return replace(
            outcome,
            status=FuzzStatus.ERROR,
            message="fuzz.py accepts() rejects an output that the package's output validator accepts",
        )
    output = full.output if full.output is not None or full.verdict is not cex.verdict else cex.output
    return replace(
        outcome,
        counterexample=replace(
            cex, verdict=full.verdict, message=full.message or cex.message, output=output, confirmed=True
        ),
    )
