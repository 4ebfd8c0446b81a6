"""`judge grade --explain`: after judging, search a counterexample for every rejected submission on a problem
with a ``fuzz.py`` (docs/explain.md), reusing stored searches.

A search is stored (table ``explain``) under the submission's run key (its source, package, judge and
toolchain) plus the fuzzer's version, the package's ``fuzz.py``, the budget and the seed, as soon as it is
done: a second `judge grade --explain` of the same contest searches nothing again. A search that failed
(status ``error``: the package's ``fuzz.py``, or the judge) is shown and searched again next time, like a
JE. Explanations change no score and no rank.
"""

from __future__ import annotations

import tempfile
import time
import traceback
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from judge.fuzz.explanation import ExplainStatus, Explanation, explained
from judge.fuzz.hooks import hooks_path, load_hooks
from judge.fuzz.options import EXPLAIN_SEED, ExplainBudget
from judge.grade.discovery import Entry
from judge.grade.fuzzing import fuzz_version, has_fuzz_hooks
from judge.grade.schedule import Grading, Summary, entry_job
from judge.grade.storage import ExplainKey, Store, StoredExplanation
from judge.grade.workloop import InOrder, run_all, split_reused
from judge.judging.build import SkipLanguage
from judge.judging.jobs import Unreadable
from judge.judging.prepared import Packages
from judge.judging.submission import Environment, Prepared
from judge.judging.verdict import Verdict
from judge.package.deps import fuzz_hash
from judge.package.problem import PackageError, Problem

RETRIED = (ExplainStatus.ERROR.value, ExplainStatus.CANCELLED.value)  # searched again on the next run

ExplainFn = Callable[[Prepared, Path, Environment, Verdict, ExplainBudget, str], Explanation]


@dataclass(frozen=True)
class GradeExplainOptions:
    """`judge grade --explain` (``explain_contest``): the budget per submission, and the workers."""

    budget: ExplainBudget = field(default_factory=ExplainBudget)
    seed: int = EXPLAIN_SEED
    jobs: int = 1  # submissions searched at once
    again: bool = False  # search again, ignoring stored searches (`--rejudge`)


@dataclass
class ExplainSummary:
    budget: ExplainBudget
    seed: int
    version: str
    outcomes: dict[tuple[str, str], StoredExplanation] = field(default_factory=dict)  # current, per entry
    notes: list[str] = field(default_factory=list)  # submissions not searched this time, and why
    searched: int = 0
    reused: int = 0

    def with_status(self, status: ExplainStatus) -> list[StoredExplanation]:
        return [e for _, e in sorted(self.outcomes.items()) if e.status == status.value]

    @property
    def errors(self) -> int:
        return len(self.with_status(ExplainStatus.ERROR))


class ExplainListener:
    """Progress callbacks of the explaining phase (the default does nothing)."""

    def explain_start(self, total: int, reused: int) -> None:
        pass

    def explain_done(self, entry: Entry, stored: StoredExplanation | None, note: str) -> None:
        pass


def explain_keys(
    grading: Grading, summary: Summary, options: GradeExplainOptions, version: str
) -> dict[tuple[str, str], ExplainKey]:
    """The key of each entry to search: its current run (in ``summary``) is rejected with a verdict that is
    explained (``explanation.explained``: TLE where the package's fuzz.py says EXPLAIN_TLE) and its problem
    has a fuzz.py."""
    keys: dict[tuple[str, str], ExplainKey] = {}
    budget = options.budget
    tle = {pid: _explains_tle(p) for pid, p in grading.problems.items() if has_fuzz_hooks(p)}
    for entry in grading.contest.entries:
        run = summary.runs.get(entry.key)
        if run is None or entry.problem not in tle or not explained(run.result.verdict, explain_tle=tle[entry.problem]):
            continue
        problem = grading.problems[entry.problem]
        hooks = fuzz_hash(hooks_path(problem))
        keys[entry.key] = ExplainKey(
            run.key, f"{version}/hooks-{hooks}", budget.examples, float(budget.seconds), options.seed
        )
    return keys


def _explains_tle(problem: Problem) -> bool:
    """The package's fuzz.py says EXPLAIN_TLE (a broken fuzz.py: no; its other searches report it)."""
    try:
        hooks = load_hooks(problem)
    except PackageError:
        return False
    return hooks is not None and hooks.explain_tle


def _default_explain(
    prepared: Prepared, source: Path, env: Environment, verdict: Verdict, budget: ExplainBudget, language: str
) -> Explanation:
    from judge.fuzz.explain import explain_submission  # (Hypothesis: only when explaining)

    return explain_submission(prepared, source, env, verdict, budget, seed=EXPLAIN_SEED, language=language)


def explain_contest(
    grading: Grading,
    store: Store,
    summary: Summary,
    options: GradeExplainOptions,
    *,
    listener: ExplainListener | None = None,
    explain_fn: ExplainFn | None = None,
) -> ExplainSummary:
    """Search each entry whose current run is rejected (``explain_keys``), unless a search is stored under the
    same key (``options.again``: always). Only this thread uses ``store``; the searches run in ``options.jobs``
    worker threads."""
    listen = listener or ExplainListener()
    out = ExplainSummary(options.budget, options.seed, fuzz_version(summary.judge_version))
    keys = explain_keys(grading, summary, options, out.version)
    candidates = [e for e in grading.contest.entries if e.key in keys]

    def lookup(entry: Entry) -> StoredExplanation | None:
        return None if options.again else store.lookup_explanation(keys[entry.key])

    reused, todo = split_reused(candidates, lookup, lambda s: s.status not in RETRIED)
    for entry, stored in reused:
        out.outcomes[entry.key] = stored
    out.reused = len(reused)
    listen.explain_start(len(todo) + out.reused, out.reused)
    if not todo:
        return out
    verdicts = {e.key: summary.runs[e.key].result.verdict for e in todo}
    explaining = _Explaining(grading, store, keys, verdicts, out, listen, explain_fn or _default_explain)
    with closing(Packages(grading.problems, grading.env)) as packages:
        work = partial(explaining.work, packages)
        run_all(InOrder(todo), work, explaining.store_outcome, jobs=options.jobs, name="grade-explain")
    return out


@dataclass(frozen=True)
class _Searched:
    explanation: Explanation | None
    skipped: str | None
    duration_s: float


@dataclass(frozen=True)
class _Explaining:
    """The entries to search of one grading: searched in worker threads (``work``), each result stored by the
    calling thread as it comes (``store_outcome``), and added to ``out``."""

    grading: Grading
    store: Store
    keys: Mapping[tuple[str, str], ExplainKey]
    verdicts: Mapping[tuple[str, str], Verdict]  # each entry's current verdict, the one explained
    out: ExplainSummary
    listen: ExplainListener
    explain: ExplainFn

    def work(self, packages: Packages, entry: Entry) -> _Searched:
        start = time.monotonic()
        key = self.keys[entry.key]
        verdict = self.verdicts[entry.key]
        budget = ExplainBudget(key.examples, key.seconds)
        try:
            job = entry_job(entry, self.grading.problems[entry.problem])
            if job.source_hash() != key.run.source_hash:
                return _Searched(None, "changed since it was judged: judged and searched on the next run", 0.0)
            prepared = packages.prepared(job.problem, job.package_hash)
            with tempfile.TemporaryDirectory(prefix="explain-source-") as tmp:
                found = self.explain(prepared, job.stage(Path(tmp)), self.grading.env, verdict, budget, entry.language)
        except (Unreadable, OSError) as exc:
            return _Searched(None, f"cannot read the submission any more: {exc}", 0.0)
        except SkipLanguage as exc:
            return _Searched(None, str(exc), 0.0)
        except Exception as exc:  # noqa: BLE001 - the judge's own bug: shown, searched again next time
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            note = f"judge error while searching (not the contestant's fault): {detail}"
            found = Explanation(ExplainStatus.ERROR, entry.problem, verdict, budget, key.seed, note=note)
        return _Searched(found, None, time.monotonic() - start)

    def store_outcome(self, entry: Entry, done: _Searched) -> None:
        out = self.out
        if done.explanation is None:
            note = f"{entry.rel}: not searched: {done.skipped}"
            out.notes.append(note)
            self.listen.explain_done(entry, None, note)
            return
        key = self.keys[entry.key]
        e = done.explanation
        self.store.save_explanation(key, entry.rel, e.status.value, e.to_json(), done.duration_s)
        stored = self.store.lookup_explanation(key)
        assert stored is not None
        out.outcomes[entry.key] = stored
        out.searched += 1
        self.listen.explain_done(entry, stored, "")
