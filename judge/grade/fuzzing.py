"""`judge grade --fuzz N`: after judging, fuzz every submission with the full score on a problem that has a
``fuzz.py``, with N examples and a fixed seed (docs/fuzzing.md), reusing stored outcomes.

An outcome is stored (table ``fuzz``) under the submission's run key plus the fuzzer's version, N and the
seed, as soon as it is known, so a killed grading loses only the submissions being fuzzed at that moment.
Fuzzing never uses Hypothesis' example database: the outcome depends on the stored key only, so the board
can be reproduced. A fuzzing ERROR (the package's ``fuzz.py`` failed, or the judge did) is shown and
fuzzed again next time, like a JE. Fuzz outcomes change no score and no rank.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import judge.fuzz
from judge.fuzz.hooks import hooks_path
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import Counterexample, FuzzOutcome, FuzzStatus, bytes_from_json
from judge.grade.discovery import Entry
from judge.grade.options import GradeFuzzOptions
from judge.grade.schedule import Grading, Summary, entry_job
from judge.grade.storage import FuzzKey, Store, StoredFuzz, StoredRun
from judge.grade.workloop import InOrder, run_all, split_reused
from judge.judging.build import SkipLanguage
from judge.judging.jobs import Unreadable
from judge.judging.prepared import Packages
from judge.judging.submission import Environment, Prepared
from judge.judging.verdict import Verdict
from judge.package.deps import fuzz_hash
from judge.package.problem import Problem

FUZZ_JOBS = 1  # submission runs at once per fuzzed submission (the grading's --jobs run side by side)

FuzzFn = Callable[[Prepared, Path, Environment, int, int], FuzzOutcome]


def fuzz_version(judge_version: str) -> str:
    """The judge's version, the fuzzer's code and Hypothesis' version: what decides which inputs are tried."""
    root = Path(judge.fuzz.__file__).parent
    h = hashlib.sha256()
    for p in sorted(root.glob("*.py")):
        h.update(p.name.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    import hypothesis  # here: `judge grade` without --fuzz or --explain never loads Hypothesis

    return f"{judge_version}/fuzz-{h.hexdigest()[:12]}/hypothesis-{hypothesis.__version__}"


def has_fuzz_hooks(problem: Problem) -> bool:
    return hooks_path(problem).is_file()


def full_score(run: StoredRun) -> bool:
    r = run.result
    return r.verdict is Verdict.AC and r.score >= r.max_score - 1e-6


def outcome_from_json(doc: Mapping[str, Any]) -> FuzzOutcome:
    """The inverse of ``FuzzOutcome.to_json()`` (what the database stores)."""
    cex_doc = doc.get("counterexample")
    cex = None
    if cex_doc is not None:
        cex = Counterexample(
            input=bytes_from_json(cex_doc, "input") or b"",
            answer=bytes_from_json(cex_doc, "answer") or b"",
            output=bytes_from_json(cex_doc, "output"),
            verdict=Verdict(cex_doc["verdict"]),
            message=cex_doc.get("message", ""),
            confirmed=bool(cex_doc.get("confirmed", False)),
            transcript=str(cex_doc.get("transcript", "")),
        )
    return FuzzOutcome(
        problem=doc["problem"],
        source=doc["source"],
        language=doc["language"],
        status=FuzzStatus(doc["status"]),
        seed=int(doc["seed"]),
        checker=doc.get("checker", ""),
        examples=int(doc.get("examples", 0)),
        runs=int(doc.get("runs", 0)),
        elapsed_s=float(doc.get("elapsed_s", 0.0)),
        shrink_runs=int(doc.get("shrink_runs", 0)),
        replayed=bool(doc.get("replayed", False)),
        counterexample=cex,
        message=doc.get("message", ""),
        saved_as=tuple(doc.get("saved_as", ())),
    )


@dataclass
class FuzzSummary:
    examples: int
    seed: int
    version: str
    outcomes: dict[tuple[str, str], StoredFuzz] = field(default_factory=dict)  # current, per entry
    notes: list[str] = field(default_factory=list)  # submissions not fuzzed this time, and why
    fuzzed: int = 0
    reused: int = 0

    def with_status(self, status: FuzzStatus) -> list[StoredFuzz]:
        return [f for _, f in sorted(self.outcomes.items()) if f.status == status.value]

    @property
    def errors(self) -> int:
        return len(self.with_status(FuzzStatus.ERROR))


class FuzzListener:
    """Progress callbacks of the fuzzing phase (the default does nothing)."""

    def fuzz_start(self, total: int, reused: int) -> None:
        pass

    def fuzz_done(self, entry: Entry, fuzzed: StoredFuzz | None, note: str) -> None:
        pass


@dataclass(frozen=True)
class _Fuzzed:
    outcome: FuzzOutcome | None
    skipped: str | None
    duration_s: float


def _default_fuzz(prepared: Prepared, source: Path, env: Environment, examples: int, seed: int) -> FuzzOutcome:
    from judge.fuzz.engine import fuzz_submission  # (Hypothesis: only when fuzzing)

    options = FuzzOptions(examples=examples, seed=seed, jobs=FUZZ_JOBS, use_database=False)
    return fuzz_submission(prepared, source, env, options)


def _error(entry: Entry, seed: int, message: str) -> FuzzOutcome:
    return FuzzOutcome(entry.problem, entry.rel, entry.language, FuzzStatus.ERROR, seed, "", message=message)


def fuzz_keys(
    grading: Grading, summary: Summary, options: GradeFuzzOptions, version: str
) -> dict[tuple[str, str], FuzzKey]:
    """The key of each entry to fuzz: its current run (in ``summary``) has the full score and its problem has
    a fuzz.py. The key is the run's, plus the fuzzer's ``version`` and the hooks' hash, N and the seed."""
    keys: dict[tuple[str, str], FuzzKey] = {}
    for entry in grading.contest.entries:
        run = summary.runs.get(entry.key)
        problem = grading.problems[entry.problem]
        if run is None or not full_score(run) or not has_fuzz_hooks(problem):
            continue
        hooks = fuzz_hash(hooks_path(problem))
        keys[entry.key] = FuzzKey(run.key, f"{version}/hooks-{hooks}", options.examples, options.seed)
    return keys


def fuzz_contest(
    grading: Grading,
    store: Store,
    summary: Summary,
    options: GradeFuzzOptions,
    *,
    listener: FuzzListener | None = None,
    fuzz_fn: FuzzFn | None = None,
) -> FuzzSummary:
    """Fuzz each entry whose current run (in ``summary``) has the full score and whose problem has a
    fuzz.py, unless an outcome is stored under the same key (``options.refuzz``: always). Only this thread
    uses ``store``; the fuzzing runs in ``options.jobs`` worker threads."""
    listen = listener or FuzzListener()
    out = FuzzSummary(options.examples, options.seed, fuzz_version(summary.judge_version))
    keys = fuzz_keys(grading, summary, options, out.version)
    candidates = [e for e in grading.contest.entries if e.key in keys]

    def lookup(entry: Entry) -> StoredFuzz | None:
        return None if options.refuzz else store.lookup_fuzz(keys[entry.key])

    reused, todo = split_reused(candidates, lookup, lambda f: f.status != FuzzStatus.ERROR.value)
    for entry, stored in reused:
        out.outcomes[entry.key] = stored
    out.reused = len(reused)
    listen.fuzz_start(len(todo) + out.reused, out.reused)
    if not todo:
        return out
    todo.sort(key=lambda e: (-summary.runs[e.key].duration_s, e.key))  # slow programs fuzz slowly: first
    fuzzing = _Fuzzing(grading, store, keys, out, listen, fuzz_fn or _default_fuzz)
    with closing(Packages(grading.problems, grading.env)) as packages:
        work = partial(fuzzing.work, packages)
        run_all(InOrder(todo), work, fuzzing.store_outcome, jobs=options.jobs, name="grade-fuzz")
    return out


@dataclass(frozen=True)
class _Fuzzing:
    """The entries to fuzz of one grading: fuzzed in worker threads (``work``), each outcome stored by the
    calling thread as it comes (``store_outcome``), and added to ``out``."""

    grading: Grading
    store: Store
    keys: Mapping[tuple[str, str], FuzzKey]  # each entry's (``fuzz_keys``)
    out: FuzzSummary
    listen: FuzzListener
    fuzz: FuzzFn

    def work(self, packages: Packages, entry: Entry) -> _Fuzzed:
        """Fuzz one entry (in a worker thread), its package's validator from ``packages``."""
        start = time.monotonic()
        key = self.keys[entry.key]
        try:
            job = entry_job(entry, self.grading.problems[entry.problem])
            if job.source_hash() != key.run.source_hash:
                return _Fuzzed(None, "changed since it was judged: judged and fuzzed on the next run", 0.0)
            prepared = packages.prepared(job.problem, job.package_hash)
            with tempfile.TemporaryDirectory(prefix="fuzz-source-") as tmp:
                outcome = self.fuzz(prepared, job.stage(Path(tmp)), self.grading.env, key.examples, key.seed)
        except (Unreadable, OSError) as exc:
            return _Fuzzed(None, f"cannot read the submission any more: {exc}", 0.0)
        except SkipLanguage as exc:
            return _Fuzzed(None, str(exc), 0.0)
        except Exception as exc:  # noqa: BLE001 - the judge's own bug: shown, fuzzed again next time
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            outcome = _error(entry, key.seed, f"judge error while fuzzing (not the contestant's fault): {detail}")
        return _Fuzzed(replace(outcome, source=entry.rel), None, time.monotonic() - start)

    def store_outcome(self, entry: Entry, done: _Fuzzed) -> None:
        """Store one entry's outcome (in the calling thread), or note why it was not fuzzed."""
        out = self.out
        if done.outcome is None:
            note = f"{entry.rel}: not fuzzed: {done.skipped}"
            out.notes.append(note)
            self.listen.fuzz_done(entry, None, note)
            return
        key = self.keys[entry.key]
        o = done.outcome
        self.store.save_fuzz(key, entry.rel, o.status.value, o.to_json(), done.duration_s)
        stored = self.store.lookup_fuzz(key)
        assert stored is not None
        out.outcomes[entry.key] = stored
        out.fuzzed += 1
        self.listen.fuzz_done(entry, stored, "")
