"""`judge db copy SRC DST` (issue 51): a site's (or a contest folder's) databases moved between SQLite and
PostgreSQL, with nothing lost (storage/copy.py). One of SRC and DST is the folder (a site, or a contest
served alone), whose layout says which databases there are; the other is a PostgreSQL DSN. The folder's
lock is taken: no `judge serve` may run on it meanwhile."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judge.commands.common import EXIT_OK, UsageError
from judge.commands.database import SCHEMES
from judge.commands.serve import LOCK_NAME, SITE_LOCK_NAME, _lock
from judge.serve.model.contest import ContestError
from judge.serve.model.site import SiteSpec, load_site
from judge.serve.site.site import SITE_DB
from judge.serve.storage import DB_NAME, SITE_SCHEMA, SQLITE, Engine, StorageError, contest_schema


def _log(line: str) -> None:
    print(f"judge db: {line}", file=sys.stderr, flush=True)


def databases(spec: SiteSpec) -> list[tuple[Path, str]]:
    """The folder's databases: each SQLite file and the PostgreSQL schema that stands for it."""
    out = [] if spec.single else [(spec.root / SITE_DB, SITE_SCHEMA)]
    return out + [(c.root / DB_NAME, contest_schema(c.info.id)) for c in spec.contests]


def cmd_db_copy(args: argparse.Namespace) -> int:
    from judge.serve.storage.copy import copy_database, open_tables

    src_pg, dst_pg = args.src.startswith(SCHEMES), args.dst.startswith(SCHEMES)
    if src_pg == dst_pg:
        raise UsageError(
            "judge db copy SRC DST: one of them a folder (a site or a contest), the other postgresql://..."
        )
    folder = Path(args.dst if src_pg else args.src)
    postgres = Engine(args.src if src_pg else args.dst)
    try:
        spec = load_site(folder, Path(args.problems) if args.problems else None)
    except ContestError as exc:
        raise UsageError(str(exc)) from None
    pairs = databases(spec)
    for path, _ in pairs:
        if src_pg and path.exists():
            raise UsageError(f"{path} exists: judge db copy writes new databases only (move it away first)")
        if not src_pg and not path.is_file():
            raise UsageError(f"{path}: no database here (has `judge serve` run this folder?)")
    locks = [_lock(spec.root, LOCK_NAME if spec.single else SITE_LOCK_NAME)]
    locks += [] if spec.single else [_lock(c.root) for c in spec.contests]
    try:
        for path, schema in pairs:
            try:
                src = open_tables(postgres if src_pg else SQLITE, path, schema)
                try:
                    dst = open_tables(SQLITE if src_pg else postgres, path, schema)
                    try:
                        copied = copy_database(src, dst)
                    finally:
                        dst.close()
                finally:
                    src.close()
            except StorageError as exc:
                if src_pg:  # nothing half-written stays behind
                    for made in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                        made.unlink(missing_ok=True)
                raise UsageError(str(exc)) from None
            tables = ", ".join(f"{t} {n}" for t, n in copied.rows.items())
            _log(f"{copied.where_from} -> {copied.where_to}: {sum(copied.rows.values())} rows ({tables or 'none'})")
    finally:
        for lock in locks:
            lock.close()
    return EXIT_OK
