"""Live fuzzing's jobs in the SQLite storage (issue 33; storage/sqlite.py's reader and writer call them): a
job per accepted submission to fuzz, its progress across the runs it was given, its end. Every statement
parameterized."""

from __future__ import annotations

from collections.abc import Collection

from judge.serve.model.records import OPEN_FUZZ, FuzzJobRecord, FuzzState
from judge.serve.storage.dialect import Conn, Row
from judge.serve.storage.rows import Where

SELECT = (
    "SELECT f.id, f.submission_id, f.judgement_id, f.package_hash, f.state, f.examples_done, f.spent_s, "
    "f.attempts, f.message, f.queued_s, f.finished_s, s.problem_id, s.team_id "
    "FROM fuzz_jobs f JOIN submissions s ON s.id = f.submission_id"
)
OPEN = tuple(s.value for s in OPEN_FUZZ)
IS_OPEN = f"state IN ({', '.join('?' * len(OPEN))})"  # with OPEN as its arguments


def _record(r: Row) -> FuzzJobRecord:
    return FuzzJobRecord(
        id=int(r["id"]),
        submission_id=int(r["submission_id"]),
        judgement_id=int(r["judgement_id"]),
        package_hash=r["package_hash"],
        state=FuzzState(r["state"]),
        examples_done=int(r["examples_done"]),
        spent_s=float(r["spent_s"]),
        attempts=int(r["attempts"]),
        message=r["message"],
        queued_s=float(r["queued_s"]),
        finished_s=r["finished_s"],
        problem_id=r["problem_id"],
        team_id=r["team_id"],
    )


def enqueue_fuzz(conn: Conn, submission_id: int, judgement_id: int, package_hash: str, now: float) -> int | None:
    """A queued job, unless the submission has one for that package already (open or ended, but not
    cancelled): a rejudge that stays AC does not fuzz it again."""
    row = conn.execute(
        "SELECT 1 FROM fuzz_jobs WHERE submission_id = ? AND package_hash = ? AND state != ?",
        (submission_id, package_hash, FuzzState.CANCELLED.value),
    ).fetchone()
    if row is not None:
        return None
    cur = conn.execute(
        "INSERT INTO fuzz_jobs (submission_id, judgement_id, package_hash, state, queued_s) VALUES (?, ?, ?, ?, ?)",
        (submission_id, judgement_id, package_hash, FuzzState.QUEUED.value, now),
    )
    return int(cur.lastrowid or 0)


def open_fuzz_jobs(
    conn: Conn, limit: int, exclude: Collection[int] = (), held: Collection[str] = ()
) -> list[FuzzJobRecord]:
    """Queued or running jobs (a running one not in ``exclude`` was left so by a stopped server), oldest
    first, none of the ``held`` problems', none of an ignored submission."""
    where, args = f"f.{IS_OPEN}", list[object](OPEN)
    if exclude:
        where += f" AND f.id NOT IN ({', '.join('?' * len(exclude))})"
        args.extend(exclude)
    if held:
        where += f" AND s.problem_id NOT IN ({', '.join('?' * len(held))})"
        args.extend(held)
    rows = conn.execute(
        f"{SELECT} WHERE {where} "
        "AND NOT EXISTS (SELECT 1 FROM ignored_submissions i WHERE i.submission_id = f.submission_id) "
        "ORDER BY f.id LIMIT ?",
        (*args, limit),
    )
    return [_record(r) for r in rows]


def start_fuzz(conn: Conn, job_id: int) -> FuzzJobRecord | None:
    """An open job becomes running, one attempt more; None when it is no longer open."""
    cur = conn.execute(
        f"UPDATE fuzz_jobs SET state = ?, attempts = attempts + 1 WHERE id = ? AND {IS_OPEN}",
        (FuzzState.RUNNING.value, job_id, *OPEN),
    )
    return fuzz_job(conn, job_id) if cur.rowcount else None


def fuzz_progress(conn: Conn, job_id: int, examples_done: int, spent_s: float) -> None:
    """A run gave its slot back before the budget was spent: queued again with what it has done."""
    conn.execute(
        f"UPDATE fuzz_jobs SET state = ?, examples_done = ?, spent_s = ? WHERE id = ? AND {IS_OPEN}",
        (FuzzState.QUEUED.value, examples_done, spent_s, job_id, *OPEN),
    )


def finish_fuzz(conn: Conn, job: FuzzJobRecord, state: FuzzState, message: str, now: float) -> bool:
    """The job ends in ``state`` with ``job``'s examples and seconds; False when it was no longer open
    (cancelled meanwhile)."""
    cur = conn.execute(
        "UPDATE fuzz_jobs SET state = ?, message = ?, examples_done = ?, spent_s = ?, finished_s = ? "
        f"WHERE id = ? AND {IS_OPEN}",
        (state.value, message, job.examples_done, job.spent_s, now, job.id, *OPEN),
    )
    return bool(cur.rowcount)


def cancel_fuzz(conn: Conn, submission_id: int, message: str, now: float) -> int:
    """The submission's open jobs are cancelled; how many."""
    cur = conn.execute(
        f"UPDATE fuzz_jobs SET state = ?, message = ?, finished_s = ? WHERE submission_id = ? AND {IS_OPEN}",
        (FuzzState.CANCELLED.value, message, now, submission_id, *OPEN),
    )
    return int(cur.rowcount)


def fuzz_job(conn: Conn, job_id: int) -> FuzzJobRecord | None:
    row = conn.execute(f"{SELECT} WHERE f.id = ?", (job_id,)).fetchone()
    return None if row is None else _record(row)


def fuzz_jobs(conn: Conn, problem_id: str | None) -> list[FuzzJobRecord]:
    """Newest first (of one problem, or all)."""
    w = Where().equal("s.problem_id", problem_id)
    return [_record(r) for r in conn.execute(f"{SELECT} WHERE {w.sql} ORDER BY f.id DESC", w.args)]
