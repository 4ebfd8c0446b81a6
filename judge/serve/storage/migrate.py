"""Opening a contest database: which schema version it has, and bringing it to this release's (creating a
new one, or applying schema.py's migrations step by step)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from judge.serve.storage import StorageError
from judge.serve.storage.schema import MIGRATIONS, SCHEMA_VERSION, TABLES, Step


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def schema_version(conn: sqlite3.Connection) -> int | None:
    """The database's schema version; 0: empty (new); None: tables of something else."""
    if _has_table(conn, "schema_version"):
        return int(conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0)
    if _has_table(conn, "meta"):
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is not None and str(row[0]).isdigit():
            return int(row[0])
    tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    return 0 if tables == 0 else None


def bring_up_to_date(conn: sqlite3.Connection, path: Path) -> None:
    """Create a new database, or upgrade an older one step by step (inside the caller's transaction)."""
    version = schema_version(conn)
    if version is None:
        raise StorageError(f"{path}: not a contest database of judge serve (it holds other tables)")
    if version > SCHEMA_VERSION:
        raise StorageError(f"{path}: written by another version of judge serve (schema {version})")
    for step in range(version, SCHEMA_VERSION) if version else ():
        for statement in MIGRATIONS.get(step, ()):
            if isinstance(statement, Step):
                if all(_has_table(conn, t) for t in statement.tables):
                    conn.execute(statement.sql)
            else:
                conn.execute(statement)
    for statement in TABLES.split(";"):
        if statement.strip():
            conn.execute(statement)
    if version != SCHEMA_VERSION:
        conn.execute("INSERT INTO schema_version (version, applied_s) VALUES (?, ?)", (SCHEMA_VERSION, time.time()))
