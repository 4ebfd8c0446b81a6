"""Judging a contest: reuse what is stored, judge the rest in parallel, store each result as it comes.

Submissions are judged in worker threads (the runner does the process work, so threads are enough), or
handed by those threads to the workers of a Dask cluster (judges.py, judge/cluster/); the tests of one
submission run in order, those of different submissions at the same time. Only the main thread touches
the database. Verdicts come from CPU time, so they do not depend on ``jobs`` or on where they ran.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import Any

from judge.grade.discovery import ContestFolder, Entry, Issue
from judge.grade.options import GradeOptions
from judge.grade.storage import RunKey, Store, StoredRun
from judge.grade.workloop import LongestFirst, run_all, split_reused
from judge.judging.build import SkipLanguage
from judge.judging.identity import toolchain_hash
from judge.judging.jobs import JudgeJob, Unreadable, make_job
from judge.judging.judges import JudgeFn, Judges, LocalJudges, NotJudged
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.package.problem import Problem

_HEAD_CHARS = 100


def seeds_of(problem: Problem, env: Environment) -> dict[str, Any]:
    """What the run's randomness depends on, so that a board can be reproduced.

    The judge draws no random numbers itself. A problem's randomness is fixed by its test inputs (which
    name their seeds, e.g. ``random 4711``; they are covered by the package hash): each test's input hash
    and first line are recorded. Languages' fixed seeds (``PYTHONHASHSEED``) are recorded too.
    """
    tests: dict[str, dict[str, str]] = {}
    for t in problem.tests():
        data = t.input_path.read_bytes()
        first = data.split(b"\n", 1)[0][:_HEAD_CHARS]
        head = first.decode("ascii", "replace") if first.isascii() and first.decode().isprintable() else ""
        tests[t.name] = {"input_sha256": hashlib.sha256(data).hexdigest()[:16], "head": head}
    env_seeds = {
        f"{lang.id}.{k}": v for lang in env.languages.values() for k, v in lang.env.items() if "SEED" in k.upper()
    }
    return {"tests": tests, "env": env_seeds}


@dataclass
class Summary:
    judge_version: str
    warnings: tuple[str, ...] = ()  # the sandbox's, where the judging ran
    runs: dict[tuple[str, str], StoredRun] = field(default_factory=dict)  # the current result per entry
    issues: list[Issue] = field(default_factory=list)  # entries that could not be judged (skipped)
    judged: int = 0
    reused: int = 0

    @property
    def judge_errors(self) -> int:
        return sum(1 for r in self.runs.values() if r.result.verdict is Verdict.JE)


class Listener:
    """Progress callbacks (the default does nothing)."""

    def start(self, total: int, reused: int) -> None:
        pass

    def done(self, entry: Entry, run: StoredRun | None, note: str) -> None:
        pass


@dataclass(frozen=True)
class Done:
    """A job's outcome in a worker thread."""

    result: SubmissionResult | None
    skipped: str | None  # SkipLanguage reason (or: the file went away)
    duration_s: float
    source_hash: str  # of the bytes actually judged


def entry_job(entry: Entry, problem: Problem) -> JudgeJob:
    """The entry's job, with the submission's bytes as they are now: what is judged is exactly what is stored
    under its hash, even if the contestant's file changes meanwhile. Raises Unreadable."""
    return make_job(entry.path, problem, entry.language, within=entry.path.parent, label=entry.rel)


def _guess(problem: Problem, compiled: bool) -> float:
    """Seconds a submission of ``problem`` may take, before anything is known: start-up and validator
    costs per pass, half the time limit per test, and the compilation."""
    passes = problem.limits.validation_passes if problem.multi_pass else 1
    per_test = passes * 0.3 * (1.5 if problem.interactive else 1.0) + 0.5 * problem.limits.time_s
    return (1.0 if compiled else 0.0) + len(problem.tests()) * per_test


@dataclass(frozen=True)
class Grading:
    """What one grading works on: the contest's submissions, the problems they are for, and the environment that
    judges them on this machine (built at the edge, `judge grade`)."""

    contest: ContestFolder
    problems: Mapping[str, Problem]
    env: Environment


def grade(
    grading: Grading,
    store: Store,
    options: GradeOptions,
    *,
    listener: Listener | None = None,
    judge_fn: JudgeFn | None = None,
    judges: Judges | None = None,
) -> Summary:
    """Judge every entry of the contest that has no stored result under the current hashes, store it.

    A stored JE is judged again (it is the judge's failure, maybe a passing one); ``options.rejudge`` judges
    all. The jobs run in ``options.jobs`` threads here (with ``judge_fn``, default jobs.judge_job), or on
    ``judges`` (a cluster: judge/cluster/); only this thread writes ``store``.
    """
    listen = listener or Listener()
    if judges is None:
        local = LocalJudges(grading.problems, grading.env, jobs=options.jobs, judge_fn=judge_fn)
        with closing(local):
            return _grade(grading, store, local, options.rejudge, listen)
    return _grade(grading, store, judges, options.rejudge, listen)


def run_keys(grading: Grading, judges: Judges) -> dict[tuple[str, str], RunKey]:
    """Each entry's key under the current hashes: what its stored result must have been judged under."""
    problems, languages = grading.problems, grading.env.languages
    return {
        e.key: RunKey(
            e.contestant,
            e.problem,
            e.source_hash,
            problems[e.problem].content_hash,
            judges.judge_version,
            toolchain_hash(e.language, problems[e.problem], languages, judges.fingerprint),
        )
        for e in grading.contest.entries
    }


def _grade(grading: Grading, store: Store, judges: Judges, rejudge: bool, listen: Listener) -> Summary:
    summary = Summary(judges.judge_version, judges.warnings)
    entries = grading.contest.entries
    keys = run_keys(grading, judges)

    def lookup(entry: Entry) -> StoredRun | None:
        return None if rejudge else store.lookup(keys[entry.key])

    reused, todo = split_reused(entries, lookup, lambda run: run.result.verdict is not Verdict.JE)
    for entry, stored in reused:
        summary.runs[entry.key] = stored
    summary.reused = len(reused)
    listen.start(len(entries), summary.reused)
    if not todo:
        return summary
    _Judging(grading, store, judges, keys, summary, listen).run(todo)
    return summary


@dataclass(frozen=True)
class _Judging:
    """The entries to judge of one grading: judged in worker threads (``work``), longest expected first;
    each result stored by the calling thread as it comes (``store_result``), and added to ``summary``."""

    grading: Grading
    store: Store
    judges: Judges
    keys: Mapping[tuple[str, str], RunKey]  # each entry's key (``run_keys``)
    summary: Summary
    listen: Listener
    seeds: dict[str, dict[str, Any]] = field(default_factory=dict)  # per problem (``seeds_of``), worked out once

    def run(self, todo: list[Entry]) -> None:
        """Judge ``todo``, ``judges.slots()`` at a time."""
        queue = LongestFirst(todo, self.guess, self.store.last_durations())
        run_all(queue, self.work, self.store_result, jobs=self.judges.slots, name="grade")

    def guess(self, e: Entry) -> float:
        """Seconds the entry may take, before anything is known of it (``_guess``)."""
        lang = self.grading.env.languages.get(e.language)
        return _guess(self.grading.problems[e.problem], lang is not None and lang.compiled)

    def work(self, entry: Entry) -> Done:
        """Judge one entry (in a worker thread)."""
        start = time.monotonic()
        try:
            job = entry_job(entry, self.grading.problems[entry.problem])
        except (Unreadable, OSError) as exc:
            return Done(None, f"cannot read the submission any more: {exc}", 0.0, entry.source_hash)
        try:
            result = self.judges.judge(job, self.keys[entry.key].toolchain_hash)
        except (SkipLanguage, NotJudged) as exc:
            return Done(None, str(exc), time.monotonic() - start, job.source_hash())
        return Done(result, None, time.monotonic() - start, job.source_hash())

    def store_result(self, entry: Entry, done: Done) -> None:
        """Store one entry's result (in the calling thread), or list it as skipped."""
        summary = self.summary
        if done.result is None:
            issue = Issue("skipped", entry.rel, done.skipped or "skipped", entry.contestant, entry.problem)
            summary.issues.append(issue)
            self.listen.done(entry, None, issue.reason)
            return
        problem = self.grading.problems[entry.problem]
        if problem.id not in self.seeds:
            self.seeds[problem.id] = seeds_of(problem, self.grading.env)
        key = replace(self.keys[entry.key], source_hash=done.source_hash)
        self.store.save(key, entry.rel, replace(done.result, source=entry.rel), self.seeds[problem.id], done.duration_s)
        stored = self.store.lookup(key)
        assert stored is not None
        summary.runs[entry.key] = stored
        summary.judged += 1
        self.listen.done(entry, summary.runs[entry.key], "")
