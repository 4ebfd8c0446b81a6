"""The SQLite implementation of the storage Protocols (storage/__init__.py): one database file (WAL) in
CONTEST_DIR, a connection per thread, every statement parameterized.

Every write is one ``BEGIN IMMEDIATE`` transaction: a submission and its job are committed together
before the client hears back; a judgement's result, its runs, its events and its job's ``done`` flag are
committed together, so a server killed at any moment leaves each job either to do or done, never half
done. ``synchronous=FULL``: an acknowledged submission survives a power cut too.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judge.serve.model.records import (
    AccountRecord,
    Audience,
    Counted,
    EventRecord,
    JobRecord,
    JudgementOutcome,
    JudgementRecord,
    NewEvent,
    NewRun,
    NewSubmission,
    RunRecord,
    Scope,
    SubmissionRecord,
)
from judge.serve.storage import StorageError
from judge.serve.storage.clarifications import ClarificationChanges, ClarificationQueries
from judge.serve.storage.schema import MIGRATIONS, SCHEMA_VERSION, TABLES

SUBMISSION_COLUMNS = "s.id, s.team_id, s.account_id, s.problem_id, s.language_id, s.entry_point, s.time_s"
_JUDGEMENT_FIELDS = (
    "id submission_id current start_s end_s verdict judgement_type score max_score max_run_time memory_kib metric "
    "metric_name compile_message package_hash"
).split()
JUDGEMENT_COLUMNS = ", ".join(f"j.{f}" for f in _JUDGEMENT_FIELDS)
JUDGEMENT_COLUMNS_AS_J = ", ".join(f"j.{f} AS j_{f}" for f in _JUDGEMENT_FIELDS)  # beside a submission's


def _submission(r: sqlite3.Row, prefix: str = "") -> SubmissionRecord:
    return SubmissionRecord(
        id=int(r[prefix + "id"]),
        team_id=r[prefix + "team_id"],
        account_id=r[prefix + "account_id"],
        problem_id=r[prefix + "problem_id"],
        language_id=r[prefix + "language_id"],
        entry_point=r[prefix + "entry_point"],
        time_s=float(r[prefix + "time_s"]),
    )


def _judgement(r: sqlite3.Row, prefix: str = "") -> JudgementRecord:
    return JudgementRecord(
        id=int(r[prefix + "id"]),
        submission_id=int(r[prefix + "submission_id"]),
        current=bool(r[prefix + "current"]),
        start_s=float(r[prefix + "start_s"]),
        end_s=r[prefix + "end_s"],
        verdict=r[prefix + "verdict"],
        judgement_type=r[prefix + "judgement_type"],
        score=r[prefix + "score"],
        max_score=r[prefix + "max_score"],
        max_run_time=r[prefix + "max_run_time"],
        memory_kib=r[prefix + "memory_kib"],
        metric=r[prefix + "metric"],
        metric_name=r[prefix + "metric_name"],
        compile_message=r[prefix + "compile_message"],
        package_hash=r[prefix + "package_hash"],
    )


def _run(r: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=int(r["id"]),
        judgement_id=int(r["judgement_id"]),
        ordinal=int(r["ordinal"]),
        name=r["name"],
        verdict=r["verdict"],
        judgement_type=r["judgement_type"],
        time_s=float(r["time_s"]),
        run_time=float(r["run_time"]),
        wall_time_s=float(r["wall_time_s"]),
        memory_kib=int(r["memory_kib"]),
        score=float(r["score"]),
        message=r["message"],
        transcript=r["transcript"],
    )


def _event(r: sqlite3.Row) -> EventRecord:
    teams = tuple(json.loads(r["team_ids"]))
    audience = Audience(Scope(r["scope"]), r["team_id"], bool(r["frozen"]), teams, bool(r["staff"]))
    return EventRecord(int(r["id"]), r["type"], r["obj_id"], r["data"], audience, float(r["time_s"]))


class _Where:
    """``column IN (...)`` / ``column = ?`` conditions, parameterized."""

    def __init__(self) -> None:
        self.parts: list[str] = ["1"]
        self.args: list[Any] = []

    def equal(self, column: str, value: object | None) -> _Where:
        if value is not None:
            self.parts.append(f"{column} = ?")
            self.args.append(value)
        return self

    def among(self, column: str, values: Collection[Any] | None) -> _Where:
        if values is not None:
            values = list(values)
            self.parts.append(f"{column} IN ({', '.join('?' * len(values))})" if values else "0")
            self.args.extend(values)
        return self

    @property
    def sql(self) -> str:
        return " AND ".join(self.parts)


class SqliteReader(ClarificationQueries):
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._c = conn

    def get_meta(self, key: str) -> str | None:
        row = self._c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def accounts(self) -> list[AccountRecord]:
        rows = self._c.execute("SELECT id, username, password_hash, type, team_id, name FROM accounts ORDER BY id")
        return [AccountRecord(*tuple(r)) for r in rows]

    def submissions(
        self,
        *,
        ids: Collection[int] | None = None,
        team_id: str | None = None,
        problem_id: str | None = None,
        language_id: str | None = None,
    ) -> list[SubmissionRecord]:
        w = _Where().among("s.id", ids).equal("s.team_id", team_id).equal("s.problem_id", problem_id)
        w.equal("s.language_id", language_id)
        rows = self._c.execute(f"SELECT {SUBMISSION_COLUMNS} FROM submissions s WHERE {w.sql} ORDER BY s.id", w.args)
        return [_submission(r) for r in rows]

    def submission_files(self, submission_id: int) -> bytes | None:
        row = self._c.execute("SELECT files FROM submissions WHERE id = ?", (submission_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def judgements(
        self,
        *,
        ids: Collection[int] | None = None,
        submission_ids: Collection[int] | None = None,
        current: bool | None = None,
    ) -> list[JudgementRecord]:
        w = _Where().among("j.id", ids).among("j.submission_id", submission_ids)
        w.equal("j.current", None if current is None else int(current))
        rows = self._c.execute(f"SELECT {JUDGEMENT_COLUMNS} FROM judgements j WHERE {w.sql} ORDER BY j.id", w.args)
        return [_judgement(r) for r in rows]

    def runs(
        self, *, ids: Collection[int] | None = None, judgement_ids: Collection[int] | None = None
    ) -> list[RunRecord]:
        w = _Where().among("id", ids).among("judgement_id", judgement_ids)
        return [_run(r) for r in self._c.execute(f"SELECT * FROM runs WHERE {w.sql} ORDER BY id", w.args)]

    def counted(self, window: tuple[float, float] | None) -> list[Counted]:
        where, args = ("s.time_s >= ? AND s.time_s < ?", window) if window is not None else ("1", ())
        rows = self._c.execute(
            f"SELECT {SUBMISSION_COLUMNS}, {JUDGEMENT_COLUMNS_AS_J} "
            "FROM submissions s LEFT JOIN judgements j "
            "ON j.submission_id = s.id AND j.current = 1 AND j.end_s IS NOT NULL "
            f"WHERE {where} ORDER BY s.time_s, s.id",
            args,
        )
        return [Counted(_submission(r), None if r["j_id"] is None else _judgement(r, "j_")) for r in rows]

    def latest_submission_s(self, until_s: float) -> float | None:
        row = self._c.execute("SELECT max(time_s) FROM submissions WHERE time_s <= ?", (until_s,)).fetchone()
        return None if row[0] is None else float(row[0])

    def recent_submissions(self, team_id: str, since_s: float) -> tuple[int, float | None]:
        row = self._c.execute(
            "SELECT count(*), min(time_s) FROM submissions WHERE team_id = ? AND time_s > ?", (team_id, since_s)
        ).fetchone()
        return int(row[0]), row[1]

    def stale_judgements(self, problem_id: str, package_hash: str) -> int:
        row = self._c.execute(
            "SELECT count(*) FROM judgements j JOIN submissions s ON s.id = j.submission_id "
            "WHERE s.problem_id = ? AND j.current = 1 AND j.end_s IS NOT NULL AND j.package_hash != ?",
            (problem_id, package_hash),
        ).fetchone()
        return int(row[0])

    def pending_jobs(self) -> int:
        return int(self._c.execute("SELECT count(*) FROM jobs WHERE done = 0").fetchone()[0])

    def has_open_job(self, submission_id: int) -> bool:
        row = self._c.execute("SELECT 1 FROM jobs WHERE submission_id = ? AND done = 0", (submission_id,))
        return row.fetchone() is not None

    def events(self, after: int, limit: int) -> list[EventRecord]:
        rows = self._c.execute("SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?", (after, limit))
        return [_event(r) for r in rows]

    def latest_event(self) -> int:
        return int(self._c.execute("SELECT max(id) FROM events").fetchone()[0] or 0)

    def last_event(self, kind: str, obj_id: str | None) -> EventRecord | None:
        row = self._c.execute(
            "SELECT * FROM events WHERE type = ? AND obj_id IS ? ORDER BY id DESC LIMIT 1", (kind, obj_id)
        ).fetchone()
        return None if row is None else _event(row)

    def event_objects(self, kind: str) -> list[str]:
        rows = self._c.execute("SELECT DISTINCT obj_id FROM events WHERE type = ? AND obj_id IS NOT NULL", (kind,))
        return [str(r[0]) for r in rows]


class SqliteWriter(SqliteReader, ClarificationChanges):
    def set_meta(self, key: str, value: str) -> None:
        self._c.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def replace_accounts(self, accounts: Sequence[AccountRecord]) -> None:
        self._c.execute("DELETE FROM accounts")
        self._c.executemany(
            "INSERT INTO accounts (id, username, password_hash, type, team_id, name) VALUES (?, ?, ?, ?, ?, ?)",
            [(a.id, a.username, a.password_hash, a.type, a.team_id, a.name) for a in accounts],
        )

    def add_submission(self, new: NewSubmission) -> SubmissionRecord:
        cur = self._c.execute(
            "INSERT INTO submissions (team_id, account_id, problem_id, language_id, entry_point, time_s, files) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (new.team_id, new.account_id, new.problem_id, new.language_id, new.entry_point, new.time_s, new.files_zip),
        )
        return SubmissionRecord(
            int(cur.lastrowid or 0),
            new.team_id,
            new.account_id,
            new.problem_id,
            new.language_id,
            new.entry_point,
            new.time_s,
        )

    def enqueue(self, submission_id: int, reason: str, now: float) -> int:
        cur = self._c.execute(
            "INSERT INTO jobs (submission_id, reason, created_s) VALUES (?, ?, ?)", (submission_id, reason, now)
        )
        return int(cur.lastrowid or 0)

    def todo_jobs(self, limit: int) -> list[JobRecord]:
        rows = self._c.execute(
            f"SELECT jb.id AS job_id, jb.judgement_id, jb.reason, {SUBMISSION_COLUMNS}, s.files FROM jobs jb "
            "JOIN submissions s ON s.id = jb.submission_id WHERE jb.done = 0 "
            "ORDER BY (jb.reason != 'submit'), jb.id LIMIT ?",
            (limit,),
        )
        return [
            JobRecord(int(r["job_id"]), r["judgement_id"], r["reason"], _submission(r), bytes(r["files"])) for r in rows
        ]

    def add_judgement(self, submission_id: int, current: bool, start_s: float) -> JudgementRecord:
        cur = self._c.execute(
            "INSERT INTO judgements (submission_id, current, start_s) VALUES (?, ?, ?)",
            (submission_id, int(current), start_s),
        )
        return JudgementRecord(int(cur.lastrowid or 0), submission_id, current, start_s)

    def attach_judgement(self, job_id: int, judgement_id: int) -> None:
        self._c.execute("UPDATE jobs SET judgement_id = ? WHERE id = ?", (judgement_id, job_id))

    def job_done(self, job_id: int) -> bool | None:
        row = self._c.execute("SELECT done FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else bool(row[0])

    def newer_done_job(self, submission_id: int, job_id: int) -> bool:
        row = self._c.execute(
            "SELECT 1 FROM jobs WHERE submission_id = ? AND done = 1 AND id > ?", (submission_id, job_id)
        ).fetchone()
        return row is not None

    def set_current(self, judgement_id: int, current: bool) -> None:
        self._c.execute("UPDATE judgements SET current = ? WHERE id = ?", (int(current), judgement_id))

    def finish_judgement(self, judgement_id: int, outcome: JudgementOutcome) -> None:
        o = outcome
        self._c.execute(
            "UPDATE judgements SET current = ?, end_s = ?, verdict = ?, judgement_type = ?, score = ?, "
            "max_score = ?, max_run_time = ?, memory_kib = ?, metric = ?, metric_name = ?, compile_message = ?, "
            "package_hash = ? WHERE id = ?",
            (
                int(o.current),
                o.end_s,
                o.verdict,
                o.judgement_type,
                o.score,
                o.max_score,
                o.max_run_time,
                o.memory_kib,
                o.metric,
                o.metric_name,
                o.compile_message,
                o.package_hash,
                judgement_id,
            ),
        )

    def add_run(self, new: NewRun) -> RunRecord:
        n = new
        cur = self._c.execute(
            "INSERT INTO runs (judgement_id, ordinal, name, verdict, judgement_type, time_s, run_time, "
            "wall_time_s, memory_kib, score, message, transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                n.judgement_id,
                n.ordinal,
                n.name,
                n.verdict,
                n.judgement_type,
                n.time_s,
                n.run_time,
                n.wall_time_s,
                n.memory_kib,
                n.score,
                n.message,
                n.transcript,
            ),
        )
        row = self._c.execute("SELECT * FROM runs WHERE id = ?", (cur.lastrowid,)).fetchone()
        return _run(row)

    def finish_job(self, job_id: int) -> None:
        self._c.execute("UPDATE jobs SET done = 1 WHERE id = ?", (job_id,))

    def add_event(self, new: NewEvent) -> int:
        a = new.audience
        cur = self._c.execute(
            "INSERT INTO events (type, obj_id, data, scope, team_id, frozen, time_s, team_ids, staff) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.type,
                new.obj_id,
                new.data,
                a.scope.value,
                a.team_id,
                int(a.frozen),
                new.time_s,
                json.dumps(list(a.team_ids)),
                int(a.staff),
            ),
        )
        return int(cur.lastrowid or 0)


class SqliteStorage:
    """Thread-safe: each thread gets its own connection (autocommit; explicit transactions)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        try:
            conn = self._conn()
            conn.execute("PRAGMA journal_mode=WAL")
            with self._transaction() as c:
                _bring_up_to_date(c, path)
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"{path}: cannot open the contest database: {exc}") from None

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=FULL")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[SqliteWriter]:
        with self._transaction() as conn:
            yield SqliteWriter(conn)

    @contextmanager
    def read(self) -> Iterator[SqliteReader]:
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            yield SqliteReader(conn)
        finally:
            conn.execute("COMMIT")

    def schema_version(self) -> int:
        return _version(self._conn()) or 0

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._all.clear()
        self._local = threading.local()


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def _version(conn: sqlite3.Connection) -> int | None:
    """The database's schema version; 0: empty (new); None: tables of something else."""
    if _has_table(conn, "schema_version"):
        return int(conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0)
    if _has_table(conn, "meta"):
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is not None and str(row[0]).isdigit():
            return int(row[0])
    tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    return 0 if tables == 0 else None


def _bring_up_to_date(conn: sqlite3.Connection, path: Path) -> None:
    """Create a new database, or upgrade an older one step by step (inside the caller's transaction)."""
    version = _version(conn)
    if version is None:
        raise StorageError(f"{path}: not a contest database of judge serve (it holds other tables)")
    if version > SCHEMA_VERSION:
        raise StorageError(f"{path}: written by another version of judge serve (schema {version})")
    for step in range(version, SCHEMA_VERSION) if version else ():
        for statement in MIGRATIONS.get(step, ()):
            conn.execute(statement)
    for statement in TABLES.split(";"):
        if statement.strip():
            conn.execute(statement)
    if version != SCHEMA_VERSION:
        conn.execute("INSERT INTO schema_version (version, applied_s) VALUES (?, ?)", (SCHEMA_VERSION, time.time()))
