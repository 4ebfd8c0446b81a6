"""Where `judge serve`'s databases are, from the command line (issue 51): SQLite (the default), or a
PostgreSQL database named by ``--database postgresql://...`` or by a file holding that DSN
(``--database-file FILE``: owner-only, since a DSN may hold a password). Built here, once, at the edge."""

from __future__ import annotations

import argparse
import importlib.util
import stat
from collections.abc import Callable
from pathlib import Path

from judge.commands.common import UsageError
from judge.serve.storage import SQLITE, Engine

SCHEMES = ("postgresql://", "postgres://")


def engine_of(args: argparse.Namespace, log: Callable[[str], None] | None = None) -> Engine:
    """The engine the options name; a warning (``log``) when a password is on the command line."""
    dsn: str | None = args.database
    if args.database_file is not None:
        if dsn is not None:
            raise UsageError("give --database or --database-file, not both")
        dsn = _read_private(Path(args.database_file))
    shared = bool(getattr(args, "shared", False))
    if dsn is None:
        if shared:
            raise UsageError("--shared needs --database postgresql://... (a SQLite file is served by one process)")
        return SQLITE
    if not dsn.startswith(SCHEMES):
        raise UsageError("--database takes a PostgreSQL DSN, postgresql://USER@HOST/DBNAME (SQLite is the default)")
    if importlib.util.find_spec("psycopg") is None:
        raise UsageError("PostgreSQL needs psycopg 3: pip install 'judge[postgres]' (or 'psycopg[binary]')")
    engine = Engine(dsn, shared=shared)
    if args.database is not None and has_password(dsn) and log is not None:
        log(
            "WARNING: the --database DSN holds a password, which other users of this machine can read in the "
            "process list: use ~/.pgpass or --database-file FILE"
        )
    return engine


def has_password(dsn: str) -> bool:
    from psycopg.conninfo import conninfo_to_dict

    try:
        return bool(conninfo_to_dict(dsn).get("password"))
    except Exception:
        return False


def _read_private(path: Path) -> str:
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the database file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: the database file is not UTF-8 text") from None
    if mode & 0o077:
        raise UsageError(f"{path} may hold a password but other users of this machine can read it: chmod 600 {path}")
    if not text:
        raise UsageError(f"{path}: the database file is empty (it holds a postgresql://... DSN)")
    return text
