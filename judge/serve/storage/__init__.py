"""The contest's database: the only code of `judge serve` that holds SQL.

Services see it through three Protocols: ``Storage`` (open transactions; here), ``Reader`` (queries, in one
consistent snapshot: storage/reader.py) and ``Writer`` (a reader that also changes things, in one transaction
that commits when its block ends and rolls back if it raises: storage/writer.py); its errors are
storage/errors.py's. All are imported from here (``from judge.serve.storage import Reader``). Every method
takes and returns typed records (judge/serve/model/records.py), never rows or dicts; visibility is not
decided here (judge/serve/visibility.py is), only what was asked for is fetched.

``open_storage(path)`` opens (or creates, or upgrades: storage/schema.py) the SQLite database; ``Engine``
opens either engine's (SQLite's file, or PostgreSQL's schema: storage/postgres.py, issue 51). Both run the
same queries (storage/queries.py) in one dialect (storage/dialect.py); docs/design.md says how.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from judge.serve.storage.errors import StorageError, StorageUnavailable
from judge.serve.storage.reader import Reader
from judge.serve.storage.writer import Writer

DB_NAME = "contest.sqlite"


class Storage(Protocol):
    path: Path  # the SQLite file (PostgreSQL: where it would be; its folder is the contest's)
    where: str  # the database, for messages (PostgreSQL: its schema and the DSN without a password)

    def read(self) -> AbstractContextManager[Reader]:
        """One consistent snapshot for several queries."""
        ...

    def write(self) -> AbstractContextManager[Writer]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        ...

    def schema_version(self) -> int: ...

    def leads(self) -> bool:
        """Whether this process does the database's work that runs in one place only (the idle work of the
        judging pool, whose claims are in memory): always, unless several processes share the database (issue
        51, PostgreSQL's ``--shared``): then the one that holds the schema's lead lock (taken when it is free,
        freed when its process's connection ends)."""
        ...

    def on_change(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (from a thread of the storage's) after another process committed a write to this
        database (PostgreSQL with several processes, issue 51: LISTEN/NOTIFY); SQLite: never."""
        ...

    def close(self) -> None: ...


def open_storage(path: Path) -> Storage:
    """Open (create, or upgrade) the SQLite database at ``path``. Raises StorageError (one line)."""
    from judge.serve.storage.sqlite import SqliteStorage

    return SqliteStorage(path)


SITE_SCHEMA = "site"  # PostgreSQL: the schema of a site's database (SITE/site.sqlite's, in SQLite)


def contest_schema(contest_id: str) -> str:
    """PostgreSQL: the schema of a contest's database (CONTEST_DIR/contest.sqlite's, in SQLite)."""
    return f"contest_{contest_id}"


@dataclass(frozen=True)
class Engine:
    """Where `judge serve`'s databases are (built once, at the edge: ``judge serve --database``): SQLite files
    in the site's folders (``dsn`` None, the default), or schemas of one PostgreSQL database (issue 51;
    storage/postgres.py; docs/design.md). The DSN may hold a password: it is never shown (not even in repr)."""

    dsn: str | None = field(default=None, repr=False)
    # before every schema's name: several sites in one PostgreSQL database (the tests give each folder its own)
    schema_prefix: str = ""
    # several `judge serve` processes on the one PostgreSQL database (issue 51, ``--shared``; docs/design.md)
    shared: bool = False

    @property
    def postgres(self) -> bool:
        return self.dsn is not None

    def open(self, path: Path, schema: str) -> Storage:
        """The database SQLite keeps at ``path`` (PostgreSQL: in ``schema``); opened, created or upgraded.
        Raises StorageError (one line)."""
        if self.dsn is None:
            return open_storage(path)
        try:
            from judge.serve.storage.postgres import PgStorage
        except ImportError:
            raise StorageError("PostgreSQL needs psycopg 3: pip install 'judge[postgres]'") from None
        return PgStorage(self.dsn, self.schema_prefix + schema, path, shared=self.shared)

    def describe(self) -> str:
        """For log lines: the engine, and the PostgreSQL DSN without its password."""
        if self.dsn is None:
            return "SQLite"
        from judge.serve.storage.postgres import redacted

        return f"PostgreSQL {redacted(self.dsn)}"


SQLITE = Engine()


__all__ = [
    "DB_NAME",
    "SITE_SCHEMA",
    "SQLITE",
    "Engine",
    "Reader",
    "Storage",
    "StorageError",
    "StorageUnavailable",
    "Writer",
    "contest_schema",
    "open_storage",
]
