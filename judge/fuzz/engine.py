"""The fuzzing loop: Hypothesis generates inputs from the package's strategy, the submission (built once)
runs on each, and the first disagreement with the reference is shrunk to a minimal input.

A *disagreement* is any verdict but AC: a wrong answer, and also TLE / MLE / RTE / OLE / PV (shrunk too).
JE (the package's own failure) and failures of ``fuzz.py`` stop the run instead.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import HypothesisException

from judge.build import build, detect_language
from judge.fuzz.hooks import FuzzHooks, load_hooks
from judge.fuzz.outcome import Counterexample, FuzzOutcome, FuzzStatus
from judge.fuzz.tokens import Found, shrink_tokens
from judge.fuzz.trial import Examiner, HookError, InputValidator, Trial, input_validators
from judge.judging import Environment, Prepared
from judge.verdict import Verdict

CACHE_ENV = "JUDGE_CACHE"
SHRINK_TIME_S = 120.0  # after this, inputs not judged yet count as passing: shrinking ends quickly


class _Disagreement(Exception):
    def __init__(self, test_input: bytes, answer: bytes, trial: Trial) -> None:
        super().__init__(f"{trial.verdict.value}: {trial.message[:200]}")
        self.test_input, self.answer, self.trial = test_input, answer, trial


class _Abort(BaseException):  # noqa: N818 - not an error of the example: Hypothesis must not catch or shrink it
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def default_cache_dir(problem_path: Path) -> Path:
    """``$JUDGE_CACHE``, else ``.judge-cache`` in the enclosing git work tree, else in the cwd."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    for parent in (problem_path.resolve(), *problem_path.resolve().parents):
        if (parent / ".git").exists():
            return parent / ".judge-cache"
    return Path.cwd() / ".judge-cache"


def database_key(problem_id: str, source: Path) -> bytes:
    return b"judge-fuzz\0" + problem_id.encode() + b"\0" + str(source.resolve()).encode()


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


def fuzz_submission(
    prepared: Prepared,
    source: Path,
    env: Environment,
    examples: int = 100,
    seed: int | None = None,
    *,
    database_dir: Path | None = None,
    use_database: bool = True,
    use_accepts: bool = True,
    check_inputs: bool = False,
    shrink_time_s: float = SHRINK_TIME_S,
    workdir: Path | None = None,
    on_example: Callable[[int, bytes, Trial], None] | None = None,
) -> FuzzOutcome:
    """Fuzz one submission against the package's reference. Raises build.SkipLanguage like judge_submission.

    ``database_dir``: Hypothesis' example database (default: ``<cache>/hypothesis``, see default_cache_dir).
    ``check_inputs``: run the package's input validators on every example (else on the counterexample only).
    """
    problem = prepared.problem
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    lang = detect_language(source, env.languages)
    base = FuzzOutcome(problem.id, str(source), lang.id, FuzzStatus.UNAVAILABLE, seed, "")
    try:
        hooks = load_hooks(problem)
    except Exception as exc:  # noqa: BLE001 - PackageError and anything fuzz.py raised on import
        return replace(base, status=FuzzStatus.ERROR, message=str(exc))
    if hooks is None:
        return replace(base, message=f"{problem.id} has no fuzz.py")
    if prepared.error is not None:
        return replace(base, status=FuzzStatus.ERROR, message=prepared.error)
    own_tmp = workdir is None
    work = Path(tempfile.mkdtemp(prefix="judge-fuzz-")) if workdir is None else workdir
    work.chmod(0o711)  # the boxes inside belong to the sandbox's unprivileged uid
    try:
        built = build(source, lang, problem=problem, tools=env.tools, runner=env.runner, workdir=work)
        if built.program is None:
            return replace(base, status=FuzzStatus.NOT_BUILT, message=built.message)
        assert built.program is not None
        try:
            validators = input_validators(problem, env, work)
        except HookError as exc:
            return replace(base, status=FuzzStatus.ERROR, message=str(exc))
        examiner = Examiner(
            problem,
            built.program,
            prepared.validator,
            env.runner,
            hooks,
            work / "ex",
            use_accepts=use_accepts,
            input_validators=validators if check_inputs else (),
        )
        db: ExampleDatabase | None = None
        if use_database:
            db = DirectoryBasedExampleDatabase(
                str(database_dir or default_cache_dir(problem.path) / "hypothesis")
            )
        key = database_key(problem.id, source)
        try:
            outcome = _run(examiner, hooks, examples, seed, db, key, shrink_time_s, on_example)
            outcome = replace(outcome, problem=problem.id, source=str(source), language=lang.id)
            if outcome.counterexample is not None:
                outcome = _shrink_tokens(outcome, examiner, validators, time.monotonic() + shrink_time_s / 2)
                outcome = _confirm(outcome, examiner, validators)
        finally:
            examiner.close()
        return outcome
    finally:
        if own_tmp:
            shutil.rmtree(work, ignore_errors=True)


def _run(
    examiner: Examiner,
    hooks: FuzzHooks,
    examples: int,
    seed: int,
    db: ExampleDatabase | None,
    key: bytes,
    shrink_time_s: float,
    on_example: Callable[[int, bytes, Trial], None] | None,
) -> FuzzOutcome:
    state = _State()
    stored = db is not None and next(iter(db.fetch(key)), None) is not None
    start = time.monotonic()

    def judged(test_input: bytes) -> tuple[bytes, Trial] | None:
        """The answer and the trial of an input: memoised; None for "count it as passing"."""
        digest = hashlib.blake2b(test_input, digest_size=16).digest()
        shrinking = state.first_failure_at is not None
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
        return answer, trial

    def check(test_input: bytes) -> None:
        if not isinstance(test_input, bytes):
            raise _Abort(
                f"{hooks.path.name}: strategy() must generate bytes, not {type(test_input).__name__}"
            )
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
        cex = Counterexample(
            found.test_input, found.answer, trial.output, trial.verdict, trial.message, False
        )
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
    except _Abort as exc:
        return replace(outcome, status=FuzzStatus.ERROR, message=exc.message, examples=state.examples)
    except HypothesisException as exc:
        return replace(outcome, status=FuzzStatus.ERROR, message=f"hypothesis: {type(exc).__name__}: {exc}")
    return replace(outcome, examples=state.examples, runs=state.runs, elapsed_s=time.monotonic() - start)


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
    smaller = Counterexample(found.test_input, found.answer, t.output, t.verdict, t.message, False)
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
