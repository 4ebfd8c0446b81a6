"""The SQLite implementation of the storage Protocols (storage/__init__.py): one database file (WAL) in
CONTEST_DIR, a connection per thread, every statement parameterized; the file owner-only (0600) when this creates it.

Every write is one ``BEGIN IMMEDIATE`` transaction: a submission and its job are committed together
before the client hears back; a judgement's result, its runs, its events and its job's ``done`` flag are
committed together, so a server killed at any moment leaves each job either to do or done, never half
done. ``synchronous=FULL``: an acknowledged submission survives a power cut too.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from judge.serve.storage import StorageError, migrate
from judge.serve.storage.dialect import SQLITE
from judge.serve.storage.queries import SqlReader, SqlWriter


class SqliteStorage:
    """Thread-safe: each thread gets its own connection (autocommit; explicit transactions)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self.dialect = SQLITE
        self._local = threading.local()
        self._lock = threading.Lock()
        # one writer at a time within the process, waiting here in turn: SQLite's own busy handler (for
        # writers of other processes) sleeps ever longer between tries (up to 100 ms), so under a steady
        # stream of writes (a submission rush, the judging) a waiting writer could miss every window
        self._writing = threading.RLock()
        self._all: list[sqlite3.Connection] = []
        try:
            _create_private(path)
            conn = self._conn()
            conn.execute("PRAGMA journal_mode=WAL")
            with self._transaction() as c:
                migrate.bring_up_to_date(c, str(path))
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
    def write(self) -> Iterator[SqlWriter]:
        with self._writing, self._transaction() as conn:
            yield SqlWriter(conn)

    @contextmanager
    def read(self) -> Iterator[SqlReader]:
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            yield SqlReader(conn)
        finally:
            conn.execute("COMMIT")

    def schema_version(self) -> int:
        return migrate.schema_version(self._conn()) or 0

    def leads(self) -> bool:
        return True  # one process per SQLite database

    def on_change(self, callback: Callable[[], object]) -> None:
        """Another process's writes: none (a SQLite database is served by one process, which tells its own
        parts of its changes itself)."""

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._all.clear()
        self._local = threading.local()


def _create_private(path: Path) -> None:
    """A new database file is created owner-only (0600) before SQLite opens it: it holds every team's code,
    the password hashes and the sessions, and SQLite gives its -wal and -shm files the database's mode. An
    existing file keeps its mode (`judge serve` warns at the start when others may read it)."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StorageError(f"{path}: cannot create the contest database: {exc.strerror or exc}") from None
