"""The PostgreSQL implementation of the storage Protocols (storage/__init__.py), with psycopg 3 (the extra
``judge[postgres]``): the same queries as SQLite's (storage/queries.py) through ``PgConn``, which turns them
into PostgreSQL's dialect (storage/dialect.py) and gives rows read by name or by index as sqlite3's.

Where: one PostgreSQL database (the DSN) per site; each of the site's databases of the SQLite layout is a
schema of it (docs/design.md, "PostgreSQL"): ``site`` for SITE/site.sqlite, ``contest_<id>`` for a
contest's contest.sqlite. A connection's ``search_path`` is its schema, so every query is the same text.

One process per schema, unless ``shared``: while a storage is open, a connection of its own holds a session
advisory lock of its schema, exclusive (``pg_try_advisory_lock``: another process's storage of that schema
is refused, one line) or, for several `judge serve --shared` processes on one database (issue 51;
docs/design.md), shared (``pg_try_advisory_lock_shared``: shared ones run side by side, and one that is not
shared is refused while any runs, and the other way round).

A shared storage tells the others of each of its writes: every write transaction that changed something (ran
a statement other than a ``SELECT``) ends with
``pg_notify(<the schema's channel>, <this storage's token>)``, delivered at its commit; ``on_change`` starts a
thread that ``LISTEN``s on its own connection and calls back for each notification of another process's
(coalesced; once more after each (re)connection, for what it may have missed).

The server lost (a crash, a restart, a standby promoted in its place: docs/deploy.md): a transaction whose
connection breaks, or cannot be made, raises StorageUnavailable (the server answers 503); the next one
connects again (a multi-host DSN with ``target_session_attrs=read-write`` finds the new primary). The owner
lock was the old server's and went with it: once a connection was found broken, the next transaction first
takes it again on a new owner connection (and the lead is tried anew). If another process took the database
meanwhile, every transaction of this one is refused (StorageUnavailable, saying so) until it is stopped.

Transactions are SQLite's, kept: a write is one transaction that first takes a transaction-scoped advisory
lock of its schema (``pg_advisory_xact_lock``), so writers of one schema take turns as ``BEGIN IMMEDIATE``
makes them (in this process and in any other on the same database); a read is one ``REPEATABLE READ``
transaction (one snapshot, as SQLite's ``BEGIN``). Connections come from a small pool of this storage's own
(connected on demand, a few kept idle), never shared by two threads at once.

Text: PostgreSQL's ``text`` cannot hold the character NUL, which SQLite's can; a NUL in a stored string (a
program's message, an interactive transcript) is kept as U+FFFD. Bytes (``BYTEA``: the submissions' files,
what runs printed) are kept as they are.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql as pgsql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from judge.serve.storage import StorageError, StorageUnavailable, migrate
from judge.serve.storage.dialect import POSTGRES, postgres_sql
from judge.serve.storage.queries import SqlReader, SqlWriter

KEEP_IDLE = 8  # connections a storage keeps open between transactions
LEAD_RETRY_S = 5.0  # a shared storage that does not lead tries to take the lead at most this often
MAX_NAME_BYTES = 63  # PostgreSQL's identifiers (longer ones are cut, and two schemas could become one)


def redacted(dsn: str) -> str:
    """The DSN without its password (for log lines and messages)."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "postgresql://(a DSN that does not parse)"
    if "password" in parts:
        parts["password"] = "***"
    return make_conninfo("", **{k: v for k, v in parts.items() if v is not None})


def _plain(value: Any) -> Any:
    """A value as sqlite3 gives it: ``numeric`` (``sum`` of bigints) as int or float, bytes as bytes."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


class PgRow:
    """A row read by column name or by index, as sqlite3.Row (``keys()`` too)."""

    __slots__ = ("_names", "_values")

    def __init__(self, values: tuple[Any, ...], names: dict[str, int]) -> None:
        self._values = values
        self._names = names

    def __getitem__(self, key: int | str) -> Any:
        return self._values[key] if isinstance(key, int) else self._values[self._names[key]]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._names)


def _rows(cursor: Any) -> Any:
    names: dict[str, int] = {}
    for i, column in enumerate(cursor.description or ()):
        names.setdefault(column.name, i)

    def make(values: Sequence[Any]) -> PgRow:
        return PgRow(tuple(_plain(v) for v in values), names)

    return make


def _param(value: Any) -> Any:
    if isinstance(value, bool):  # SQLite keeps a bool as 1 or 0: so do the BIGINT columns here
        return int(value)
    if isinstance(value, str) and "\x00" in value:
        return value.replace("\x00", "\ufffd")
    return value


class PgCursor:
    """What a statement gave: sqlite3's cursor's ``lastrowid`` (an INSERT's new id), ``rowcount``, rows."""

    def __init__(self, cursor: Any, returning: bool) -> None:
        self._cur = cursor
        self.lastrowid: int | None = None
        if returning:
            row = cursor.fetchone()
            self.lastrowid = None if row is None else int(row[0])
        self.rowcount = int(cursor.rowcount)

    def fetchone(self) -> Any:
        return self._cur.fetchone() if self._cur.description is not None else None

    def fetchmany(self, size: int) -> list[Any]:
        return list(self._cur.fetchmany(size)) if self._cur.description is not None else []

    def fetchall(self) -> list[Any]:
        return list(self._cur.fetchall()) if self._cur.description is not None else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConn:
    """A psycopg connection as storage/queries.py uses sqlite3's (dialect.py's ``Conn``)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn
        self.changed = False  # a statement other than a SELECT ran (a shared storage then tells the others)

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> PgCursor:
        if not self.changed and not sql.lstrip()[:6].upper() == "SELECT":
            self.changed = True
        text, returning = _statement(sql, True)
        return PgCursor(self._conn.execute(text, [_param(p) for p in parameters]), returning)

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> PgCursor:
        self.changed = True
        text, _ = _statement(sql, False)
        cursor = self._conn.cursor()
        cursor.executemany(text, [[_param(p) for p in row] for row in parameters])
        return PgCursor(cursor, False)

    def composed(self, statement: pgsql.Composed) -> None:
        """A statement with identifiers (a schema's name) composed by psycopg."""
        self._conn.execute(statement)


@lru_cache(maxsize=4096)
def _statement(sql: str, returning: bool) -> tuple[bytes, bool]:
    text, returns = postgres_sql(sql, returning)
    return text.encode(), returns


class PgStorage:
    """Thread-safe: a connection per transaction, from this storage's pool."""

    def __init__(self, dsn: str, schema: str, path: Path, *, shared: bool = False) -> None:
        if not schema or len(schema.encode()) > MAX_NAME_BYTES:
            raise StorageError(f"{schema!r}: a PostgreSQL schema's name is 1 to {MAX_NAME_BYTES} bytes (a shorter id)")
        self.path = path  # where the SQLite file would be: its folder is the contest's (package versions...)
        self.schema = schema
        self.dialect = POSTGRES
        self.where = f"PostgreSQL schema {schema} of {redacted(dsn)}"
        self._dsn = dsn
        self._key = _key("write", schema)
        self._owner: psycopg.Connection[Any] | None = None
        self._idle: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()
        self._writing = threading.RLock()  # one writer of this process at a time, as SQLite's storage
        self._closed = False
        self.shared = shared
        self._token = secrets.token_hex(8)  # this storage's notifications (the listener skips its own)
        self._channel = f"judge_{hashlib.sha256(schema.encode()).hexdigest()[:24]}"  # a name of 63 bytes at most
        self._callbacks: list[Callable[[], object]] = []
        self._listener: threading.Thread | None = None
        self._stopping = threading.Event()
        self._leading = False  # holds the schema's lead lock (``leads``)
        self._lead_tried = float("-inf")
        self._lost = False  # a connection broke: the owner lock is taken again before the next transaction
        try:
            self._owner = self._claim()
            with self._transaction(write=True) as c:
                c.composed(pgsql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(pgsql.Identifier(schema)))
                migrate.bring_up_to_date(c, self.where, POSTGRES)
        except psycopg.Error as exc:
            self.close()
            raise StorageError(f"{self.where}: cannot open the contest database: {_one_line(exc)}") from None
        except StorageError:
            self.close()
            raise

    def _claim(self) -> psycopg.Connection[Any]:
        """A new owner connection holding the schema's owner lock (shared or not). Raises StorageError when
        another process holds it, psycopg.Error when the server cannot be reached."""
        owner = self._connect()
        lock = "pg_try_advisory_lock_shared" if self.shared else "pg_try_advisory_lock"
        taken = owner.execute(f"SELECT {lock}(%s)", (_key("owner", self.schema),)).fetchone()
        if not taken or not taken[0]:
            owner.close()
            raise StorageError(
                f"{self.where} is in use by a `judge serve` without --shared (or `judge db copy`): start every "
                "process on the database with --shared"
                if self.shared
                else f"{self.where} is in use by another `judge serve` (or `judge db copy`): one process per "
                "database, unless every one is started with --shared"
            )
        return owner

    def _reclaim(self) -> None:
        """After a broken connection: the owner connection kept if it still answers, else a new one that takes
        the owner lock again (the server was restarted, or a standby promoted: the lock went with the old one)."""
        with self._lock:
            if not self._lost or self._closed:
                return
            owner = self._owner
            if owner is not None and not owner.closed and not owner.broken:
                try:
                    owner.execute("SELECT 1")
                    self._lost = False
                    return
                except psycopg.Error:
                    pass
            if owner is not None:
                owner.close()
            self._owner = None
            self._leading = False
            self._lead_tried = float("-inf")
            try:
                self._owner = self._claim()
            except psycopg.Error as exc:
                raise self._unavailable(exc) from None
            except StorageError as exc:  # another process took the database meanwhile: this one serves nothing
                raise StorageUnavailable(
                    f"{exc} (it was this process's before the server was lost: stop one)"
                ) from None
            self._lost = False

    def _connect(self) -> psycopg.Connection[Any]:
        conn = psycopg.connect(self._dsn, autocommit=True, row_factory=_rows)
        conn.execute(pgsql.SQL("SET search_path TO {}").format(pgsql.Identifier(self.schema)))
        return conn

    def _take(self) -> psycopg.Connection[Any]:
        with self._lock:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed and not conn.broken:
                    return conn
        return self._connect()

    def _give(self, conn: psycopg.Connection[Any]) -> None:
        healthy = not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with self._lock:
            if healthy and not self._closed and len(self._idle) < KEEP_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[PgConn]:
        if self._lost:
            self._reclaim()
        begin = "BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ"
        try:
            conn = self._take()
        except psycopg.OperationalError as exc:
            self._lost = True
            raise self._unavailable(exc) from None
        try:
            try:
                conn.execute(begin)
            except psycopg.OperationalError:  # an idle connection the server dropped (a restart): a new one
                conn.close()
                self._lost = True  # and the owner lock perhaps with it (a failover)
                self._reclaim()
                conn = self._connect()
                conn.execute(begin)
            if write:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._key,))
            pg = PgConn(conn)
            try:
                yield pg
            except BaseException:
                try:
                    conn.execute("ROLLBACK")
                except psycopg.Error:
                    conn.close()  # not given back (below)
                raise
            if write and self.shared and pg.changed:  # the others hear of it at the commit (not of a rollback)
                conn.execute("SELECT pg_notify(%s, %s)", (self._channel, self._token))
            conn.execute("COMMIT")
        except psycopg.OperationalError as exc:
            if not conn.closed and not conn.broken:
                raise  # the server's refusal of one statement (a cancelled query...), not a lost server
            self._lost = True
            raise self._unavailable(exc) from None
        finally:
            self._give(conn)

    def _unavailable(self, exc: BaseException) -> StorageUnavailable:
        return StorageUnavailable(f"{self.where}: the database server cannot be reached: {_one_line(exc)}")

    @contextmanager
    def write(self) -> Iterator[SqlWriter]:
        with self._writing, self._transaction(write=True) as conn:
            yield SqlWriter(conn)

    @contextmanager
    def read(self) -> Iterator[SqlReader]:
        with self._transaction(write=False) as conn:
            yield SqlReader(conn)

    def schema_version(self) -> int:
        with self._transaction(write=False) as conn:
            return migrate.schema_version(conn, POSTGRES) or 0

    def leads(self) -> bool:
        """Always when not shared; shared: while this storage holds the schema's lead lock, a session advisory
        lock on its own connection, tried at most every LEAD_RETRY_S (a process killed frees it with its
        connection, and another takes it at its next try)."""
        if not self.shared:
            return True
        with self._lock:
            owner = self._owner
            if owner is None or owner.closed or owner.broken:
                self._lost = True  # the server restarted: the lock went with the connection (the next transaction
                return False  # takes the owner lock again on a new one, and the lead is tried again after it)
            if self._leading:
                return True
            now = time.monotonic()
            if now - self._lead_tried < LEAD_RETRY_S:
                return False
            self._lead_tried = now
            try:
                row = owner.execute("SELECT pg_try_advisory_lock(%s)", (_key("lead", self.schema),)).fetchone()
            except psycopg.Error:
                return False
            self._leading = bool(row and row[0])
            return self._leading

    def on_change(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (in a thread of this storage's) after another process committed a write to this
        schema: only a shared storage hears of them (one alone has no other writer)."""
        if not self.shared:
            return
        with self._lock:
            self._callbacks.append(callback)
            if self._listener is None:
                self._listener = threading.Thread(target=self._listen, name=f"listen-{self.schema}", daemon=True)
                self._listener.start()

    def _changed(self) -> None:
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001, S110 - a failed refresh is retried by the feeds' own poll (RECHECK_S)
                pass

    def _listen(self) -> None:
        while not self._stopping.is_set():
            conn: psycopg.Connection[Any] | None = None
            try:
                conn = psycopg.connect(self._dsn, autocommit=True)
                conn.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(self._channel)))
                self._changed()  # what was committed while no connection listened
                while not self._stopping.is_set():
                    heard = [n.payload for n in conn.notifies(timeout=1.0, stop_after=1)]
                    if heard:  # and whatever else arrived meanwhile: one callback for all of them
                        heard += [n.payload for n in conn.notifies(timeout=0.0)]
                    if any(payload != self._token for payload in heard):
                        self._changed()
            except psycopg.Error:
                self._stopping.wait(1.0)  # the server restarted, or the network: listen again
            finally:
                if conn is not None:
                    conn.close()

    def close(self) -> None:
        self._stopping.set()
        listener = self._listener
        if listener is not None and listener is not threading.current_thread():
            listener.join(timeout=10.0)  # it looks at ``_stopping`` every second (a connect may take longer)
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        if self._owner is not None:  # the process's claim on the schema ends with its connection
            try:  # released now: closing alone frees it only once the server's backend has exited, a moment
                self._owner.execute("SELECT pg_advisory_unlock_all()")  # later (a restart at once was refused)
            except psycopg.Error:
                pass  # the connection is gone already: so is its lock
            self._owner.close()
            self._owner = None


def _key(purpose: str, schema: str) -> int:
    """An advisory lock's key (64 bits) for ``purpose`` (each transaction's writes; the serving process's
    claim) on the schema."""
    return int.from_bytes(hashlib.sha256(f"judge {purpose} {schema}".encode()).digest()[:8], "big", signed=True)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
