"""What differs between the two engines of `judge serve`'s storage (SQLite, PostgreSQL), in one place.

The schema (storage/schema.py), its migrations and every query of storage/ are written once, in the
common dialect: SQLite's, kept to what PostgreSQL also means the same way (``ON CONFLICT ... DO``,
``1 = 1`` rather than a bare ``1``, no select alias in a ``WHERE``, ``CASE`` rather than the two-argument
``max``). This module turns that text into PostgreSQL's, and is the only place that knows how:

- placeholders: ``?`` becomes ``%s`` (and a literal ``%`` is doubled);
- ``x IS ?`` (NULL-safe equality) becomes ``x IS NOT DISTINCT FROM %s``;
- ``INSERT OR IGNORE`` becomes ``INSERT ... ON CONFLICT DO NOTHING``;
- ``INTEGER PRIMARY KEY AUTOINCREMENT`` becomes a ``BIGINT`` key numbered as SQLite numbers it (``next_ids``:
  in the transaction, not by a sequence), and an ``INSERT`` into such a table returns the new id
  (``RETURNING``: SQLite's ``lastrowid``);
- column types: ``INTEGER`` is ``BIGINT``, ``REAL`` ``DOUBLE PRECISION`` (PostgreSQL's ``REAL`` is 4
  bytes), ``BLOB`` ``BYTEA``, and ``TEXT`` compares byte by byte (``COLLATE "C"``: SQLite's ``BINARY``);
- the catalog (``sqlite_master``, ``information_schema``): ``Dialect.tables_sql`` below; SQLite's ``PRAGMA``s
  stay in storage/sqlite.py, and the transactions (``BEGIN IMMEDIATE``, an advisory lock) in each engine's module.

``Conn`` is what the queries are given: sqlite3's connection, or storage/postgres.py's ``PgConn`` (the same
three methods over psycopg, rows read by name or by index as sqlite3.Row's)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from judge.serve.storage.schema import TABLES

# a row of a query: read by column name or by index (sqlite3.Row, or storage/postgres.py's PgRow)
Row = Any


class Cursor(Protocol):
    @property
    def lastrowid(self) -> int | None: ...

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Conn(Protocol):
    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...


_QUOTED = re.compile(r"('(?:[^']|'')*')")
_TABLE = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+) \(")
_IDENTITY = re.compile(r"[(,]\s*(\w+) INTEGER PRIMARY KEY AUTOINCREMENT")
_INSERT = re.compile(r"^\s*INSERT\s+(?:OR\s+IGNORE\s+)?INTO\s+(\w+)", re.I)


def statements(script: str) -> list[str]:
    """The statements of a script (TABLES), one by one."""
    return [s.strip() for s in script.split(";") if s.strip()]


def _identity_columns(tables: str) -> dict[str, str]:
    """Each table's autoincrement column (the id an INSERT returns), from the schema's text."""
    out = {}
    for statement in statements(tables):
        table = _TABLE.match(statement)
        found = _IDENTITY.search(statement)
        if table and found:
            out[table.group(1)] = found.group(1)
    return out


IDENTITY = _identity_columns(TABLES)


def _outside_quotes(sql: str, change: Any) -> str:
    parts = _QUOTED.split(sql)
    return "".join(p if i % 2 else change(p) for i, p in enumerate(parts))


@lru_cache(maxsize=4096)
def postgres_sql(sql: str, returning: bool = True) -> tuple[str, bool]:
    """A statement of the common dialect in PostgreSQL's, and whether it returns the new row's id (an
    ``INSERT`` into a table with an identity column, ``returning``: not for executemany)."""

    def change(text: str) -> str:
        text = text.replace("%", "%%")
        text = re.sub(r"\bIS\s+\?", "IS NOT DISTINCT FROM ?", text)
        return text.replace("?", "%s")

    out = _outside_quotes(sql, change)
    ignore = re.match(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO", out, re.I)
    if ignore:
        out = "INSERT INTO" + out[ignore.end() :] + " ON CONFLICT DO NOTHING"
    insert = _INSERT.match(sql)
    column = IDENTITY.get(insert.group(1)) if insert else None
    if returning and column is not None and "RETURNING" not in out.upper():
        return f"{out} RETURNING {column}", True
    return out, False


def postgres_ddl(sql: str) -> str:
    """The schema's statements (TABLES, a migration's ALTER) with PostgreSQL's column types."""
    sql = re.sub(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b", "BIGINT PRIMARY KEY", sql)  # numbered: next_ids()
    sql = re.sub(r"\bINTEGER\b", "BIGINT", sql)
    # text compares and sorts byte by byte, as SQLite's BINARY (not by the server's locale)
    sql = re.sub(r"([(,]\s*|ADD COLUMN\s+)(\w+) TEXT\b", r'\1\2 TEXT COLLATE "C"', sql)
    sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)
    return re.sub(r"\bBLOB\b", "BYTEA", sql)


@dataclass(frozen=True)
class Dialect:
    """What storage/migrate.py asks of an engine: its tables' names, and the schema's text in its types."""

    name: str
    tables_sql: str  # a query of the names of the database's tables (PostgreSQL: in the connection's schema)
    ddl: Callable[[str], str]
    extra: tuple[str, ...] = ()  # statements after TABLES, whole (PostgreSQL: next_ids())


def next_ids() -> tuple[str, ...]:
    """PostgreSQL's numbering of the autoincrement ids, as SQLite's: a row inserted without its id gets the
    largest so far plus one, in its transaction (a rolled back insert uses up no id, so the ids a team sees
    count nothing that was refused; a sequence would). Safe because every write transaction holds its
    schema's advisory lock (storage/postgres.py): one writer at a time, as SQLite. An id given (a copy) is
    kept. No table's rows are ever deleted, so the largest is SQLite's "largest ever"."""
    out = []
    for table, column in IDENTITY.items():
        out.append(
            f"CREATE OR REPLACE FUNCTION judge_id_{table}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF NEW.{column} IS NULL THEN NEW.{column} := (SELECT coalesce(max({column}), 0) + 1 FROM {table}); "
            "END IF; RETURN NEW; END $$"
        )
        out.append(
            f"CREATE OR REPLACE TRIGGER judge_id BEFORE INSERT ON {table} FOR EACH ROW "
            f"EXECUTE FUNCTION judge_id_{table}()"
        )
    return tuple(out)


SQLITE = Dialect("sqlite", "SELECT name FROM sqlite_master WHERE type = 'table'", lambda sql: sql)
POSTGRES = Dialect(
    "postgresql",
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()",
    postgres_ddl,
    next_ids(),
)
