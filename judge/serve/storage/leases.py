"""The judging queue's leases (several `judge serve` processes on one database, issue 51; docs/design.md): a
claimed job carries its process's token and an expiry (``jobs.lease_owner``, ``jobs.lease_until_s``). A job
is free for a process when it has no lease, the process's own, or one that ran out: a killed process's jobs
come back to the queue when their leases run out. Every claim runs in a write transaction, which holds the
schema's write lock (storage/postgres.py), so two processes never take the same free job."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from judge.serve.model.records import Lease
from judge.serve.storage.dialect import Conn
from judge.serve.storage.rows import Where


def free_for(lease: Lease | None) -> tuple[str, list[Any]]:
    """The condition on ``jb`` (the jobs table) that a job is free for ``lease``'s process (None: any job)."""
    if lease is None:
        return "1 = 1", []
    return (
        "(jb.lease_owner IS NULL OR jb.lease_owner = ? OR jb.lease_until_s < ?)",
        [lease.owner, lease.now_s],
    )


def take(c: Conn, job_ids: Collection[int], lease: Lease) -> None:
    """The jobs are ``lease``'s now (until its expiry)."""
    if job_ids:
        where = Where().among("id", job_ids)
        c.execute(
            f"UPDATE jobs SET lease_owner = ?, lease_until_s = ? WHERE {where.sql}",
            (lease.owner, lease.until_s, *where.args),
        )


def renew(c: Conn, job_ids: Collection[int], lease: Lease) -> int:
    """Push the expiry of the jobs still ``lease``'s process's (not done, not taken by another since) to
    ``lease.until_s``; how many were."""
    if not job_ids:
        return 0
    where = Where().among("id", job_ids)
    cur = c.execute(
        f"UPDATE jobs SET lease_until_s = ? WHERE lease_owner = ? AND done = 0 AND {where.sql}",
        (lease.until_s, lease.owner, *where.args),
    )
    return int(cur.rowcount)
