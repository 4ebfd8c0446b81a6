"""Judging a contest: reuse what is stored, judge the rest in parallel, store each result as it comes.

Submissions are judged in worker threads (the runner does the process work, so threads are enough); the
tests of one submission run in order, those of different submissions at the same time. Only the main
thread touches the database. Verdicts come from CPU time, so they do not depend on ``jobs``.
"""

from __future__ import annotations

import hashlib
import platform
import shutil
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import judge
from judge.build import SkipLanguage
from judge.fingerprint import Fingerprints
from judge.grade.discovery import Contest, Entry, Issue, Unreadable, read_source, source_hash
from judge.grade.storage import RunKey, Store, StoredRun
from judge.judging import Environment, Prepared, judge_submission, prepare
from judge.languages import language_for
from judge.problem import Problem
from judge.results import SubmissionResult
from judge.verdict import Verdict

# Parts of the judge whose code cannot change a verdict: editing them does not force a re-judge.
_PRESENTATION = ("grade", "scoreboard", "templates", "fuzz")
_HEAD_CHARS = 100


def judge_version(env: Environment) -> str:
    """``<version>+<hash of the judging code and its interpreter>/<sandbox backend>``: a stored result is
    reused only under the same judging code, the same Python (validators run on it) and the same kind of
    sandbox."""
    root = Path(judge.__file__).parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or rel.parts[0] in _PRESENTATION or "__pycache__" in rel.parts:
            continue
        if p.suffix not in (".py", ".toml", ".c", ".h"):
            continue
        h.update(rel.as_posix().encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    h.update(f"{env.tools.python}\0{platform.python_version()}\0{platform.python_build()}".encode())
    return f"{judge.__version__}+{h.hexdigest()[:12]}/{env.runner.info.backend}"


def toolchain_hash(entry: Entry, problem: Problem, env: Environment, fingerprints: Fingerprints) -> str:
    """The fingerprints of the submission's language and, when the package's output validator is compiled,
    of the validator's (a Python validator runs on the judge's interpreter: part of ``judge_version``)."""
    parts = [fingerprints.of(entry.language)]
    validator = problem.output_validator
    if validator is not None and validator.suffix not in (".py", ".sh"):
        lang = language_for(validator, env.languages)
        if lang is not None:
            parts.append(f"{lang.id}:{fingerprints.of(lang.id)}")
    return "/".join(parts)


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
        f"{lang.id}.{k}": v
        for lang in env.languages.values()
        for k, v in lang.env.items()
        if "SEED" in k.upper()
    }
    return {"tests": tests, "env": env_seeds}


@dataclass
class Summary:
    judge_version: str
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


class _Preparer:
    """Builds each problem's output validator once, on first use, whichever thread gets there first."""

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.workdir = Path(tempfile.mkdtemp(prefix="judge-grade-"))
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._done: dict[str, Prepared] = {}

    def get(self, problem: Problem) -> Prepared:
        with self._lock:
            lock = self._locks.setdefault(problem.id, threading.Lock())
        with lock:
            if problem.id not in self._done:
                work = self.workdir / problem.id
                work.mkdir(parents=True, exist_ok=True)
                try:
                    self._done[problem.id] = prepare(problem, self.env, work)
                except Exception as exc:  # noqa: BLE001 - a judge failure: every submission gets JE
                    self._done[problem.id] = Prepared(problem, None, f"preparing the problem failed: {exc}")
            return self._done[problem.id]

    def close(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)


@dataclass(frozen=True)
class _Done:
    result: SubmissionResult | None
    skipped: str | None  # SkipLanguage reason (or: the file went away)
    duration_s: float
    source_hash: str  # of the bytes actually judged


def _stage(entry: Entry, dest: Path) -> tuple[Path, str]:
    """A private copy of the submission, and its hash: what is judged is exactly what is stored under that
    hash, even if the contestant's file changes meanwhile. Raises Unreadable."""
    contestant_dir = entry.path.parent
    if entry.path.is_dir():
        copy = dest / entry.path.name
        copy.mkdir()
        for f in sorted(entry.path.iterdir()):
            if f.is_file() and not f.name.startswith("."):
                (copy / f.name).write_bytes(read_source(f, contestant_dir))
    else:
        copy = dest / entry.path.name
        copy.write_bytes(read_source(entry.path, contestant_dir))
    return copy, source_hash(copy, dest)


def _judge_error(problem: Problem, entry: Entry, message: str) -> SubmissionResult:
    return SubmissionResult(
        problem=problem.id,
        source=entry.rel,
        language=entry.language,
        verdict=Verdict.JE,
        score=0.0,
        max_score=problem.secret.max_score,
        time_s=0.0,
        memory_kib=0,
        compile_message=message,
        metric_name=problem.metric.name if problem.metric else None,
    )


def _guess(problem: Problem, compiled: bool) -> float:
    """Seconds a submission of ``problem`` may take, before anything is known: start-up and validator
    costs per pass, half the time limit per test, and the compilation."""
    passes = problem.limits.validation_passes if problem.multi_pass else 1
    per_test = passes * 0.3 * (1.5 if problem.interactive else 1.0) + 0.5 * problem.limits.time_s
    return (1.0 if compiled else 0.0) + len(problem.tests()) * per_test


class _Queue:
    """Longest expected first. Expected: the last stored run of that submission; else the mean of this
    problem's runs finished so far in this grading; else a guess from the package."""

    def __init__(
        self, entries: list[Entry], guess: Callable[[Entry], float], history: Mapping[tuple[str, str], float]
    ) -> None:
        self._left = list(entries)
        self._guess = guess
        self._history = history
        self._seen: dict[str, list[float]] = {}

    def __bool__(self) -> bool:
        return bool(self._left)

    def _expected(self, e: Entry) -> float:
        if e.key in self._history:
            return self._history[e.key]
        seen = self._seen.get(e.problem)
        return sum(seen) / len(seen) if seen else self._guess(e)

    def pop(self) -> Entry:
        best = max(self._left, key=lambda e: (self._expected(e), e.contestant, e.problem))
        self._left.remove(best)
        return best

    def finished(self, e: Entry, duration_s: float) -> None:
        self._seen.setdefault(e.problem, []).append(duration_s)


def grade(
    contest: Contest,
    problems: Mapping[str, Problem],
    env: Environment,
    store: Store,
    *,
    jobs: int = 1,
    rejudge: bool = False,
    listener: Listener | None = None,
    judge_fn: Callable[[Prepared, Path, Environment], SubmissionResult] | None = None,
) -> Summary:
    """Judge every entry of ``contest`` that has no stored result under the current hashes, store it.

    A stored JE is judged again (it is the judge's failure, maybe a passing one); ``rejudge`` judges all.
    """
    listen = listener or Listener()
    run_judge = judge_fn or (lambda p, s, e: judge_submission(p, s, e))
    summary = Summary(judge_version(env))
    fingerprints = Fingerprints(env.languages, env.tools, env.runner)
    keys = {
        e.key: RunKey(
            e.contestant,
            e.problem,
            e.source_hash,
            problems[e.problem].content_hash,
            summary.judge_version,
            toolchain_hash(e, problems[e.problem], env, fingerprints),
        )
        for e in contest.entries
    }
    todo: list[Entry] = []
    for entry in contest.entries:
        stored = None if rejudge else store.lookup(keys[entry.key])
        if stored is not None and stored.result.verdict is not Verdict.JE:
            summary.runs[entry.key] = stored
            summary.reused += 1
        else:
            todo.append(entry)
    listen.start(len(contest.entries), summary.reused)
    if not todo:
        return summary

    def guess(e: Entry) -> float:
        lang = env.languages.get(e.language)
        return _guess(problems[e.problem], lang is not None and lang.compiled)

    queue = _Queue(todo, guess, store.last_durations())
    seeds: dict[str, dict[str, Any]] = {}
    preparer = _Preparer(env)

    def work(entry: Entry) -> _Done:
        problem = problems[entry.problem]
        start = time.monotonic()
        staging = Path(tempfile.mkdtemp(prefix="source-", dir=preparer.workdir))
        try:
            source, digest = _stage(entry, staging)
        except (Unreadable, OSError) as exc:
            return _Done(None, f"cannot read the submission any more: {exc}", 0.0, entry.source_hash)
        try:
            result = run_judge(preparer.get(problem), source, env)
        except SkipLanguage as exc:
            return _Done(None, str(exc), time.monotonic() - start, digest)
        except Exception as exc:  # noqa: BLE001 - the judge's own bug: a JE on the board, judged again next time
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            result = _judge_error(problem, entry, f"judge error (not the contestant's fault): {detail}")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return _Done(result, None, time.monotonic() - start, digest)

    workers = max(1, jobs)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grade")
    try:
        pending: dict[Future[_Done], Entry] = {}
        while queue or pending:
            while queue and len(pending) < workers:  # submitted one at a time: the order can still change
                entry = queue.pop()
                pending[pool.submit(work, entry)] = entry
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: pending[f].key):
                entry = pending.pop(fut)
                done = fut.result()
                queue.finished(entry, done.duration_s)
                if done.result is None:
                    issue = Issue(
                        "skipped", entry.rel, done.skipped or "skipped", entry.contestant, entry.problem
                    )
                    summary.issues.append(issue)
                    listen.done(entry, None, issue.reason)
                    continue
                problem = problems[entry.problem]
                if problem.id not in seeds:
                    seeds[problem.id] = seeds_of(problem, env)
                result = _relative(done.result, entry)
                key = replace(keys[entry.key], source_hash=done.source_hash)
                store.save(key, entry.rel, result, seeds[problem.id], done.duration_s)
                stored = store.lookup(key)
                assert stored is not None
                summary.runs[entry.key] = stored
                summary.judged += 1
                listen.done(entry, summary.runs[entry.key], "")
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        preparer.close()
    return summary


def _relative(result: SubmissionResult, entry: Entry) -> SubmissionResult:
    """The stored source is the path inside the contest folder, not this machine's absolute path."""
    return replace(result, source=entry.rel)
