"""Judging from the durable queue: the ``jobs`` table.

A job is inserted in the same transaction as its submission (or by a rejudge). ``claim`` gives a job its
judgement (pending, published) the first time it is taken; ``complete`` stores the result, the runs, the
events and the job's ``done`` flag in one transaction and refuses a job already done. A server killed at
any moment therefore finds on restart every job either done (stored once) or not (judged again, into the
same pending judgement): every acknowledged submission is judged and stored exactly once.

The judging itself is a seam, ``JudgeFn``: a function from a ``JudgeJob`` to a ``SubmissionResult``, run
by a pool of worker threads. It is ``judge_job`` on this machine (``local_judge``), or the judges of a Dask
cluster (``judges_fn``: each thread blocks on its remote task, and as many jobs run at once as the
cluster has judge slots). When the cluster cannot judge a job now (``NotJudged``: every worker that took
it died; ``ClusterError``: the scheduler is gone), the job stays queued and is taken again; it never
becomes a JE.
"""

from __future__ import annotations

import sqlite3
import threading
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from judge.cluster import ClusterError
from judge.judging.build import SkipLanguage
from judge.judging.identity import toolchain_hash
from judge.judging.jobs import JudgeJob, judge_job
from judge.judging.judges import Judges, NotJudged
from judge.judging.prepared import Packages
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment, unjudged
from judge.judging.verdict import Verdict
from judge.languages.table import Language
from judge.package.problem import Problem
from judge.serve.contest import Contest
from judge.serve.db import Database
from judge.serve.events import ADMIN, OWNER, PUBLIC, EventBus, publish
from judge.serve.records import judgement_json, judgement_type, run_json
from judge.serve.timeline import Timeline
from judge.serve.upload import job_files, unpack

JudgeFn = Callable[[JudgeJob], SubmissionResult]
NOT_NOW = (NotJudged, ClusterError)  # the job could not be judged now: it stays queued
UNPACK_LIMIT = 64 * 1024 * 1024  # stored zips were checked against the contest's limit when submitted


def local_judge(packages: Packages, env: Environment) -> JudgeFn:
    """Judge on this machine, in this process's sandbox."""

    def run(job: JudgeJob) -> SubmissionResult:
        return judge_job(job, packages, env)

    return run


def judges_fn(judges: Judges, problems: Mapping[str, Problem], languages: Mapping[str, Language]) -> JudgeFn:
    """Judge with ``judges`` (a cluster's: grade.judges.Judges), results keyed like `judge grade`'s."""

    def run(job: JudgeJob) -> SubmissionResult:
        fingerprint = toolchain_hash(job.language, problems[job.problem], languages, judges.fingerprint)
        return judges.judge(job, fingerprint)

    return run


@dataclass(frozen=True)
class Claimed:
    job_id: int
    judgement_id: int
    submission_id: int
    team_id: str
    problem_id: str
    language_id: str
    entry_point: str | None
    time_s: float
    files: bytes


def enqueue(conn: sqlite3.Connection, submission_id: int, reason: str, now: float) -> int:
    cur = conn.execute(
        "INSERT INTO jobs (submission_id, reason, created_s) VALUES (?, ?, ?)", (submission_id, reason, now)
    )
    return int(cur.lastrowid or 0)


class Judging:
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        contest: Contest,
        timeline: Timeline,
        languages: Mapping[str, Language],
        judge_fn: JudgeFn,
        *,
        workers: int = 1,
        capacity: Callable[[], int] | None = None,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        """``workers`` threads judge; ``capacity``, when given, says how many of them may judge now (a
        cluster's judge slots, which come and go)."""
        self._db = db
        self._bus = bus
        self._contest = contest
        self._timeline = timeline
        self._languages = languages
        self._judge_fn = judge_fn
        self.workers = max(1, workers)
        self._capacity = capacity
        self._log = log
        self._lock = threading.Lock()
        self._in_flight: set[int] = set()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------------------------- visibility

    def _audience(self, time_s: float, now: float, per_team: bool) -> tuple[str, bool]:
        """(scope, frozen) of an event about a submission made at ``time_s``."""
        info = self._contest.info
        in_contest = info.start_s is not None and info.end_s is not None and info.start_s <= time_s < info.end_s
        if not in_contest:
            return ADMIN, False
        return (OWNER if per_team else PUBLIC), self._timeline.hidden_by_freeze(time_s, now)

    def publish_judgement(self, conn: sqlite3.Connection, judgement_id: int, now: float) -> None:
        row = conn.execute(
            "SELECT j.*, s.team_id, s.time_s AS submitted_s FROM judgements j "
            "JOIN submissions s ON s.id = j.submission_id WHERE j.id = ?",
            (judgement_id,),
        ).fetchone()
        scope, frozen = self._audience(row["submitted_s"], now, per_team=False)
        publish(
            conn,
            "judgements",
            str(judgement_id),
            judgement_json(row, self._contest.info),
            now=now,
            scope=scope,
            team_id=row["team_id"],
            frozen=frozen,
        )

    # ------------------------------------------------------------------------------------- the queue

    def claim(self, limit: int, exclude: set[int] | frozenset[int] = frozenset()) -> list[Claimed]:
        """Up to ``limit`` jobs to judge (new submissions before rejudges), each with its judgement."""
        now = self._timeline.now()
        out: list[Claimed] = []
        with self._db.write() as conn:
            rows = conn.execute(
                "SELECT j.id AS job_id, j.judgement_id, s.* FROM jobs j JOIN submissions s ON s.id = j.submission_id "
                "WHERE j.done = 0 ORDER BY (j.reason != 'submit'), j.id LIMIT ?",
                (limit + len(exclude),),
            ).fetchall()
            for r in rows:
                if r["job_id"] in exclude or len(out) >= limit:
                    continue
                jid = r["judgement_id"]
                if jid is None:
                    current = conn.execute(
                        "SELECT 1 FROM judgements WHERE submission_id = ? AND current = 1", (r["id"],)
                    ).fetchone()
                    cur = conn.execute(
                        "INSERT INTO judgements (submission_id, current, start_s) VALUES (?, ?, ?)",
                        (r["id"], int(current is None), now),
                    )
                    jid = int(cur.lastrowid or 0)
                    conn.execute("UPDATE jobs SET judgement_id = ? WHERE id = ?", (jid, r["job_id"]))
                    self.publish_judgement(conn, jid, now)
                out.append(
                    Claimed(
                        r["job_id"],
                        jid,
                        r["id"],
                        r["team_id"],
                        r["problem_id"],
                        r["language_id"],
                        r["entry_point"],
                        r["time_s"],
                        bytes(r["files"]),
                    )
                )
        if out:
            self._bus.notify()
        return out

    def job(self, c: Claimed) -> JudgeJob:
        cp = self._contest.problem(c.problem_id)
        lang = self._languages.get(c.language_id)
        if cp is None or lang is None:
            raise SkipLanguage(f"problem {c.problem_id!r} or language {c.language_id!r} is no longer in the contest")
        files, folder = job_files(unpack(c.files, UNPACK_LIMIT), lang, c.entry_point)
        label = f"submission {c.submission_id} (team {c.team_id})"
        return JudgeJob(c.problem_id, cp.problem.content_hash, c.language_id, files, folder, label)

    def judge(self, c: Claimed) -> SubmissionResult:
        """Judge a claimed job; the judge's own failures become a JE result (never charged)."""
        cp = self._contest.problem(c.problem_id)
        try:
            return self._judge_fn(self.job(c))
        except NOT_NOW:
            raise
        except Exception as exc:  # noqa: BLE001 - SkipLanguage, an unreadable zip, an executor's failure
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            label = f"submission {c.submission_id}"
            if cp is None:  # the problem was removed from problems.yaml since
                return SubmissionResult(c.problem_id, label, c.language_id, Verdict.JE, 0.0, 0.0, 0.0, 0, detail)
            return unjudged(cp.problem, label, c.language_id, Verdict.JE, detail)

    def complete(self, c: Claimed, result: SubmissionResult) -> bool:
        """Store the result (once). False when the job was done already."""
        now = self._timeline.now()
        cp = self._contest.problem(c.problem_id)
        ordinals = {t.name: i + 1 for i, t in enumerate(cp.problem.tests())} if cp else {}
        with self._db.write() as conn:
            row = conn.execute("SELECT done FROM jobs WHERE id = ?", (c.job_id,)).fetchone()
            if row is None or row["done"]:
                return False
            newer = conn.execute(
                "SELECT 1 FROM jobs WHERE submission_id = ? AND done = 1 AND id > ?", (c.submission_id, c.job_id)
            ).fetchone()
            current = newer is None
            if current:
                olds = conn.execute(
                    "SELECT id FROM judgements WHERE submission_id = ? AND id != ? AND current = 1",
                    (c.submission_id, c.judgement_id),
                ).fetchall()
                for old in olds:
                    conn.execute("UPDATE judgements SET current = 0 WHERE id = ?", (old["id"],))
                    self.publish_judgement(conn, old["id"], now)
            tests = [(t, s) for t, s in zip(result.tests, result.test_scores, strict=True) if not t.skipped]
            max_run = round(max((t.time_s for t, _ in tests), default=0.0), 3) if tests else None
            conn.execute(
                "UPDATE judgements SET current = ?, end_s = ?, verdict = ?, judgement_type = ?, score = ?, "
                "max_score = ?, max_run_time = ?, memory_kib = ?, metric = ?, metric_name = ?, compile_message = ?, "
                "package_hash = ? WHERE id = ?",
                (
                    int(current),
                    now,
                    result.verdict.value,
                    judgement_type(result.verdict),
                    result.score,
                    result.max_score,
                    max_run,
                    result.memory_kib,
                    result.metric,
                    result.metric_name,
                    result.compile_message,
                    cp.problem.content_hash if cp else "",
                    c.judgement_id,
                ),
            )
            scope, _ = self._audience(c.time_s, now, per_team=True)
            for i, (t, score) in enumerate(tests):
                cur = conn.execute(
                    "INSERT INTO runs (judgement_id, ordinal, name, verdict, judgement_type, time_s, run_time, "
                    "wall_time_s, memory_kib, score, message, transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        c.judgement_id,
                        ordinals.get(t.name, i + 1),
                        t.name,
                        t.verdict.value,
                        judgement_type(t.verdict),
                        now,
                        round(t.time_s, 3),
                        t.wall_time_s,
                        t.memory_kib,
                        score,
                        t.message,
                        t.transcript,
                    ),
                )
                run = conn.execute("SELECT * FROM runs WHERE id = ?", (cur.lastrowid,)).fetchone()
                publish(
                    conn,
                    "runs",
                    str(run["id"]),
                    run_json(run, self._contest.info),
                    now=now,
                    scope=scope,
                    team_id=c.team_id,
                )
            self.publish_judgement(conn, c.judgement_id, now)
            conn.execute("UPDATE jobs SET done = 1 WHERE id = ?", (c.job_id,))
        self._bus.notify()
        self._log(
            f"submission {c.submission_id} (team {c.team_id}, {c.problem_id}, {c.language_id}): "
            f"{result.verdict.value} {result.score:g}/{result.max_score:g} (judgement {c.judgement_id})"
        )
        return True

    def pending(self) -> int:
        row = self._db.conn().execute("SELECT count(*) FROM jobs WHERE done = 0").fetchone()
        return int(row[0])

    def run_pending(self) -> int:
        """Judge every queued job in this thread (tests, and tools); returns how many."""
        n = 0
        while True:
            claimed = self.claim(1)
            if not claimed:
                return n
            for c in claimed:
                self.complete(c, self.judge(c))
                n += 1

    # ------------------------------------------------------------------------------------- background

    def start(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="judge-worker")
        self._thread = threading.Thread(target=self._dispatch, name="judge-dispatch", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def _dispatch(self) -> None:
        assert self._pool is not None
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                with self._lock:
                    busy = set(self._in_flight)
                limit = self.workers if self._capacity is None else min(self.workers, max(1, self._capacity()))
                free = limit - len(busy)
                if free > 0:
                    for c in self.claim(free, busy):
                        with self._lock:
                            self._in_flight.add(c.job_id)
                        self._pool.submit(self._work, c)
            except Exception as exc:  # noqa: BLE001 - keep serving; say why
                self._log(f"judging queue: {type(exc).__name__}: {exc}")
            self._wake.wait(1.0)

    def _work(self, c: Claimed) -> None:
        try:
            self.complete(c, self.judge(c))
        except NOT_NOW as exc:
            self._log(f"submission {c.submission_id}: not judged now, it stays queued: {exc}")
            self._stopping.wait(1.0)
        except Exception as exc:  # noqa: BLE001 - the job stays queued and is taken again
            self._log(f"submission {c.submission_id}: storing the result failed: {type(exc).__name__}: {exc}")
            self._stopping.wait(1.0)  # not at once: whatever failed may need a moment
        finally:
            with self._lock:
                self._in_flight.discard(c.job_id)
            self._wake.set()

    def stop(self) -> None:
        """Stop taking jobs; wait for the running ones to be judged and stored."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
