"""Opening a contest database: which schema version it has, and bringing it to this release's (creating a
new one, or applying schema.py's migrations step by step). The same code for both engines: what differs
(the catalog's query, the column types) is storage/dialect.py's ``Dialect``."""

from __future__ import annotations

import time

from judge.serve.storage import StorageError
from judge.serve.storage.dialect import SQLITE, Conn, Dialect, statements
from judge.serve.storage.schema import MIGRATIONS, SCHEMA_VERSION, TABLES, Step


def _tables(conn: Conn, dialect: Dialect) -> set[str]:
    return {str(r[0]) for r in conn.execute(dialect.tables_sql).fetchall()}


def schema_version(conn: Conn, dialect: Dialect = SQLITE) -> int | None:
    """The database's schema version; 0: empty (new); None: tables of something else."""
    tables = _tables(conn, dialect)
    if "schema_version" in tables:
        return int(conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0)
    if "meta" in tables:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is not None and str(row[0]).isdigit():
            return int(row[0])
    return 0 if not tables else None


def bring_up_to_date(conn: Conn, where: str, dialect: Dialect = SQLITE) -> None:
    """Create a new database, or upgrade an older one step by step (inside the caller's transaction).
    ``where``: the database, for the messages."""
    version = schema_version(conn, dialect)
    if version is None:
        raise StorageError(f"{where}: not a contest database of judge serve (it holds other tables)")
    if version > SCHEMA_VERSION:
        raise StorageError(f"{where}: written by another version of judge serve (schema {version})")
    for step in range(version, SCHEMA_VERSION) if version else ():
        for statement in MIGRATIONS.get(step, ()):
            if isinstance(statement, Step):
                if set(statement.tables) <= _tables(conn, dialect):
                    conn.execute(dialect.ddl(statement.sql))
            else:
                conn.execute(dialect.ddl(statement))
    for statement in statements(TABLES):
        conn.execute(dialect.ddl(statement))
    for statement in dialect.extra:
        conn.execute(statement)
    if version != SCHEMA_VERSION:
        conn.execute("INSERT INTO schema_version (version, applied_s) VALUES (?, ?)", (SCHEMA_VERSION, time.time()))
