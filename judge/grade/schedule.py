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

from judge.grade.discovery import Contest, Entry, Issue
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


def grade(
    contest: Contest,
    problems: Mapping[str, Problem],
    env: Environment,
    store: Store,
    *,
    jobs: int = 1,
    rejudge: bool = False,
    listener: Listener | None = None,
    judge_fn: JudgeFn | None = None,
    judges: Judges | None = None,
) -> Summary:
    """Judge every entry of ``contest`` that has no stored result under the current hashes, store it.

    A stored JE is judged again (it is the judge's failure, maybe a passing one); ``rejudge`` judges all.
    The jobs run in ``jobs`` threads here (with ``judge_fn``, default jobs.judge_job), or on ``judges``
    (a cluster: judge/cluster/); only this thread writes ``store``.
    """
    if judges is None:
        with closing(LocalJudges(problems, env, jobs=jobs, judge_fn=judge_fn)) as local:
            return _grade(contest, problems, env, store, local, rejudge, listener or Listener())
    return _grade(contest, problems, env, store, judges, rejudge, listener or Listener())


def _grade(
    contest: Contest,
    problems: Mapping[str, Problem],
    env: Environment,
    store: Store,
    judges: Judges,
    rejudge: bool,
    listen: Listener,
) -> Summary:
    summary = Summary(judges.judge_version, judges.warnings)
    toolchains = {
        e.key: toolchain_hash(e.language, problems[e.problem], env.languages, judges.fingerprint)
        for e in contest.entries
    }
    keys = {
        e.key: RunKey(
            e.contestant,
            e.problem,
            e.source_hash,
            problems[e.problem].content_hash,
            summary.judge_version,
            toolchains[e.key],
        )
        for e in contest.entries
    }

    def lookup(entry: Entry) -> StoredRun | None:
        return None if rejudge else store.lookup(keys[entry.key])

    reused, todo = split_reused(contest.entries, lookup, lambda run: run.result.verdict is not Verdict.JE)
    for entry, stored in reused:
        summary.runs[entry.key] = stored
    summary.reused = len(reused)
    listen.start(len(contest.entries), summary.reused)
    if not todo:
        return summary

    def guess(e: Entry) -> float:
        lang = env.languages.get(e.language)
        return _guess(problems[e.problem], lang is not None and lang.compiled)

    seeds: dict[str, dict[str, Any]] = {}

    def work(entry: Entry) -> Done:
        start = time.monotonic()
        try:
            job = entry_job(entry, problems[entry.problem])
        except (Unreadable, OSError) as exc:
            return Done(None, f"cannot read the submission any more: {exc}", 0.0, entry.source_hash)
        try:
            result = judges.judge(job, toolchains[entry.key])
        except (SkipLanguage, NotJudged) as exc:
            return Done(None, str(exc), time.monotonic() - start, job.source_hash())
        return Done(result, None, time.monotonic() - start, job.source_hash())

    def store_result(entry: Entry, done: Done) -> None:
        if done.result is None:
            issue = Issue("skipped", entry.rel, done.skipped or "skipped", entry.contestant, entry.problem)
            summary.issues.append(issue)
            listen.done(entry, None, issue.reason)
            return
        problem = problems[entry.problem]
        if problem.id not in seeds:
            seeds[problem.id] = seeds_of(problem, env)
        key = replace(keys[entry.key], source_hash=done.source_hash)
        store.save(key, entry.rel, replace(done.result, source=entry.rel), seeds[problem.id], done.duration_s)
        stored = store.lookup(key)
        assert stored is not None
        summary.runs[entry.key] = stored
        summary.judged += 1
        listen.done(entry, summary.runs[entry.key], "")

    run_all(
        LongestFirst(todo, guess, store.last_durations()),
        work,
        store_result,
        jobs=judges.slots,
        duration_s=lambda d: d.duration_s,
        order=lambda e: e.key,
        name="grade",
    )
    return summary
