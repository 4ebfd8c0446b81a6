"""The judging queue's queries (services/judging/queue.py; storage/queries.py's reader and writer inherit them):
the jobs (a submission's, a rejudge's, a rejudging set's), claimed in the queue's order with the leases of
several processes on one database (storage/leases.py), marked done. Every statement parameterized."""

from __future__ import annotations

from collections.abc import Collection

from judge.serve.model.records import JobRecord, Lease
from judge.serve.storage import leases
from judge.serve.storage.dialect import Conn
from judge.serve.storage.rows import SUBMISSION_COLUMNS, Where, submission_record


class JobReads:
    """The Reader's queries of this module (storage/queries.py's reader inherits them)."""

    _c: Conn

    def pending_jobs(self) -> int:
        return int(self._c.execute("SELECT count(*) FROM jobs WHERE done = 0").fetchone()[0])

    def has_open_job(self, submission_id: int) -> bool:
        row = self._c.execute("SELECT 1 FROM jobs WHERE submission_id = ? AND done = 0", (submission_id,))
        return row.fetchone() is not None

    def rejudging_jobs(self, rejudging_id: int) -> tuple[list[int], int]:
        """The submissions of a rejudging set's jobs (in the order queued), and how many are not done."""
        rows = self._c.execute(
            "SELECT submission_id, done FROM jobs WHERE rejudging_id = ? ORDER BY id", (rejudging_id,)
        ).fetchall()
        return [int(r[0]) for r in rows], sum(1 for r in rows if not r[1])

    def next_job(
        self, held: Collection[str] = (), exclude: Collection[int] = (), lease: Lease | None = None
    ) -> tuple[str, float] | None:
        where = Where().among("jb.id", exclude) if exclude else Where()
        skip = Where().among("s.problem_id", held) if held else Where()
        excluded, skipped = where.sql if exclude else "1 = 0", skip.sql if held else "1 = 0"
        free, free_args = leases.free_for(lease)
        row = self._c.execute(
            "SELECT jb.reason, s.time_s FROM jobs jb JOIN submissions s ON s.id = jb.submission_id "
            f"WHERE jb.done = 0 AND NOT ({excluded}) AND NOT ({skipped}) AND {free} "
            "ORDER BY (jb.reason != 'submit'), jb.id LIMIT 1",
            (*where.args, *skip.args, *free_args),
        ).fetchone()
        return None if row is None else (str(row[0]), float(row[1]))


class JobWrites:
    """The Writer's statements of this module (storage/queries.py's writer inherits them)."""

    _c: Conn

    def enqueue(self, submission_id: int, reason: str, now: float, rejudging_id: int | None = None) -> int:
        cur = self._c.execute(
            "INSERT INTO jobs (submission_id, reason, created_s, rejudging_id) VALUES (?, ?, ?, ?)",
            (submission_id, reason, now, rejudging_id),
        )
        return int(cur.lastrowid or 0)

    def todo_jobs(self, limit: int, held: Collection[str] = (), lease: Lease | None = None) -> list[JobRecord]:
        skip = Where().among("s.problem_id", held) if held else Where()
        where = f"NOT ({skip.sql})" if held else "1 = 1"
        free, free_args = leases.free_for(lease)
        rows = self._c.execute(
            f"SELECT jb.id AS job_id, jb.judgement_id, jb.reason, jb.rejudging_id, {SUBMISSION_COLUMNS}, s.files "
            "FROM jobs jb "
            f"JOIN submissions s ON s.id = jb.submission_id WHERE jb.done = 0 AND {where} AND {free} "
            "ORDER BY (jb.reason != 'submit'), jb.id LIMIT ?",
            (*skip.args, *free_args, limit),
        )
        return [
            JobRecord(
                int(r["job_id"]),
                r["judgement_id"],
                r["reason"],
                submission_record(r),
                bytes(r["files"]),
                r["rejudging_id"],
            )
            for r in rows
        ]

    def close_jobs(self, rejudging_id: int) -> int:
        return int(
            self._c.execute("UPDATE jobs SET done = 1 WHERE rejudging_id = ? AND done = 0", (rejudging_id,)).rowcount
        )

    def attach_judgement(self, job_id: int, judgement_id: int) -> None:
        self._c.execute("UPDATE jobs SET judgement_id = ? WHERE id = ?", (judgement_id, job_id))

    def job_done(self, job_id: int) -> bool | None:
        row = self._c.execute("SELECT done FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else bool(row[0])

    def newer_done_job(self, submission_id: int, job_id: int) -> bool:
        row = self._c.execute(
            "SELECT 1 FROM jobs WHERE submission_id = ? AND done = 1 AND id > ?", (submission_id, job_id)
        ).fetchone()
        return row is not None

    def take_jobs(self, job_ids: Collection[int], lease: Lease) -> None:
        leases.take(self._c, job_ids, lease)

    def renew_leases(self, job_ids: Collection[int], lease: Lease) -> int:
        return leases.renew(self._c, job_ids, lease)

    def finish_job(self, job_id: int) -> None:
        self._c.execute("UPDATE jobs SET done = 1 WHERE id = ?", (job_id,))
