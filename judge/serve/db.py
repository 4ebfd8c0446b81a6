"""The contest's one SQLite database (WAL), in CONTEST_DIR: accounts (argon2 hashes only), submissions
(their zip), judgements and runs, the judging queue (``jobs``), the event log and a few settings (``meta``).

Every write is one ``BEGIN IMMEDIATE`` transaction (``Database.write``): a submission and its job are
committed together before the client hears back; a judgement's result, its runs, its events and its job's
``done`` flag are committed together, so a server killed at any moment leaves each job either to do or
done, never half done. Each thread has its own connection. SQL is parameterized only.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DB_NAME = "contest.sqlite"
SCHEMA_VERSION = "2"
# what brings an older database up to date (version -> statements, in order): nothing stored is lost
MIGRATIONS = {
    "1": ("ALTER TABLE runs ADD COLUMN transcript TEXT NOT NULL DEFAULT ''",),  # interactive traffic
}

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    type TEXT NOT NULL,
    team_id TEXT,
    name TEXT
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id TEXT NOT NULL,
    account_id TEXT,
    problem_id TEXT NOT NULL,
    language_id TEXT NOT NULL,
    entry_point TEXT,
    time_s REAL NOT NULL,
    files BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_team ON submissions(team_id, time_s);
CREATE INDEX IF NOT EXISTS submissions_problem ON submissions(problem_id);
CREATE TABLE IF NOT EXISTS judgements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    current INTEGER NOT NULL,
    start_s REAL NOT NULL,
    end_s REAL,
    verdict TEXT,
    judgement_type TEXT,
    score REAL,
    max_score REAL,
    max_run_time REAL,
    memory_kib INTEGER,
    metric REAL,
    metric_name TEXT,
    compile_message TEXT,
    package_hash TEXT
);
CREATE INDEX IF NOT EXISTS judgements_submission ON judgements(submission_id);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    judgement_id INTEGER NOT NULL REFERENCES judgements(id),
    ordinal INTEGER NOT NULL,
    name TEXT NOT NULL,
    verdict TEXT NOT NULL,
    judgement_type TEXT NOT NULL,
    time_s REAL NOT NULL,
    run_time REAL NOT NULL,
    wall_time_s REAL NOT NULL,
    memory_kib INTEGER NOT NULL,
    score REAL NOT NULL,
    message TEXT NOT NULL,
    transcript TEXT NOT NULL DEFAULT '',
    UNIQUE (judgement_id, ordinal)
);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    judgement_id INTEGER UNIQUE REFERENCES judgements(id),
    reason TEXT NOT NULL,
    created_s REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_todo ON jobs(done, id);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    obj_id TEXT,
    data TEXT NOT NULL,
    scope TEXT NOT NULL,
    team_id TEXT,
    frozen INTEGER NOT NULL DEFAULT 0,
    time_s REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_object ON events(type, obj_id, id);
"""


class DatabaseError(Exception):
    """The database cannot be opened or belongs to something else (one line)."""


class Database:
    """Thread-safe: each thread gets its own connection (autocommit; explicit transactions)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        try:
            conn = self.conn()
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(SCHEMA)  # idempotent (IF NOT EXISTS); executescript commits on its own
            with self.write() as w:
                row = w.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                if row is None:
                    w.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
                elif row[0] in MIGRATIONS:
                    for statement in MIGRATIONS[row[0]]:
                        w.execute(statement)
                    w.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
                elif row[0] != SCHEMA_VERSION:
                    raise DatabaseError(f"{path}: written by another version of judge serve (schema {row[0]})")
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(f"{path}: cannot open the contest database: {exc}") from None

    def conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=FULL")  # an acknowledged submission survives a power cut too
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: committed when the block ends, rolled back if it raises."""
        conn = self.conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot for several queries."""
        conn = self.conn()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def get_meta(self, key: str) -> str | None:
        row = self.conn().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._all.clear()
        self._local = threading.local()


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
