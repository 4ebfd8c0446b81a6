"""`judge db copy` (issue 51): a database moved between the engines, every row of every table as it is (ids
included, so that the event feed's tokens, the API's ids and the sessions stay valid: both engines number
the next row after the largest id), in one transaction of the destination, which must be new (empty). Both
sides are opened at this release's schema first (an older SQLite database is upgraded, as `judge serve`
would)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from judge.serve.storage import Engine, StorageError
from judge.serve.storage.dialect import Dialect, statements
from judge.serve.storage.queries import SqlReader, SqlWriter
from judge.serve.storage.schema import TABLES

BATCH = 200  # rows read and written at a time (submissions' zips, run outputs: a few MB at most)
TABLE_NAMES = tuple(m.group(1) for s in statements(TABLES) if (m := re.match(r"CREATE TABLE IF NOT EXISTS (\w+)", s)))


class Tables(Protocol):
    where: str
    dialect: Dialect

    def read(self) -> AbstractContextManager[SqlReader]: ...

    def write(self) -> AbstractContextManager[SqlWriter]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Copied:
    where_from: str
    where_to: str
    rows: dict[str, int]  # by table, the tables with rows only


def open_tables(engine: Engine, path: Path, schema: str) -> Tables:
    """A storage of either engine, with its whole tables (the queries' classes, storage/queries.py)."""
    if engine.dsn is None:
        from judge.serve.storage.sqlite import SqliteStorage

        return SqliteStorage(path)
    try:
        from judge.serve.storage.postgres import PgStorage
    except ImportError:
        raise StorageError("PostgreSQL needs psycopg 3: pip install 'judge[postgres]'") from None
    return PgStorage(engine.dsn, engine.schema_prefix + schema, path)


def _rows(reader: SqlReader, table: str) -> Iterator[tuple[list[str], list[tuple[object, ...]]]]:
    cursor = reader.conn.execute(f"SELECT * FROM {table}")  # noqa: S608 (a name of the schema's, not input)
    while True:
        batch = cursor.fetchmany(BATCH)
        if not batch:
            return
        yield list(batch[0].keys()), [tuple(r) for r in batch]


def copy_database(src: Tables, dst: Tables) -> Copied:
    """Every row of ``src`` into ``dst`` (new: refused if any table but the version's holds a row)."""
    counts: dict[str, int] = {}
    with src.read() as r, dst.write() as w:
        if r.conn.execute("SELECT 1 FROM meta LIMIT 1").fetchone() is None:
            raise StorageError(f"{src.where} holds nothing to copy (has `judge serve` run on it?)")
        for table in TABLE_NAMES:
            if table != "schema_version" and w.conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():
                raise StorageError(f"{dst.where} is not new (its table {table} holds rows): copy into an empty one")
        w.conn.execute("DELETE FROM schema_version")  # the source's history of upgrades, instead
        for table in TABLE_NAMES:
            for columns, rows in _rows(r, table):
                marks = ", ".join("?" * len(columns))
                w.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
                counts[table] = counts.get(table, 0) + len(rows)
    return Copied(src.where, dst.where, counts)
