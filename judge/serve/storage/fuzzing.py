"""Live fuzzing's counterexamples in the SQLite storage (issue 33; storage/sqlite.py's reader and writer call
them): newest first, each with its submission's team; every statement parameterized."""

from __future__ import annotations

from judge.serve.model.records import Counterexample
from judge.serve.storage.dialect import Conn, Row

COLUMNS = (
    "problem_id, submission_id, judgement_id, input, answer, output, verdict, message, confirmed, found_s, "
    "fuzz_job_id, truncated, added_as"
)
SELECT = (
    "SELECT c.id, " + ", ".join(f"c.{col.strip()}" for col in COLUMNS.split(",")) + ", s.team_id AS team_id "
    "FROM counterexamples c LEFT JOIN submissions s ON s.id = c.submission_id"
)


def add_counterexample(conn: Conn, c: Counterexample) -> int:
    cur = conn.execute(
        f"INSERT INTO counterexamples ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (c.problem_id, c.submission_id, c.judgement_id, c.input, c.answer, c.output, c.verdict, c.message,
         int(c.confirmed), c.found_s, c.fuzz_job_id, int(c.truncated), c.added_as),
    )  # fmt: skip
    assert cur.lastrowid is not None
    return cur.lastrowid


def _record(r: Row) -> Counterexample:
    return Counterexample(
        problem_id=r["problem_id"],
        submission_id=r["submission_id"],
        judgement_id=r["judgement_id"],
        input=bytes(r["input"]),
        answer=bytes(r["answer"]),
        output=None if r["output"] is None else bytes(r["output"]),
        verdict=r["verdict"],
        message=r["message"],
        confirmed=bool(r["confirmed"]),
        found_s=r["found_s"],
        id=r["id"],
        fuzz_job_id=r["fuzz_job_id"],
        truncated=bool(r["truncated"]),
        team_id=r["team_id"],
        added_as=r["added_as"],
    )


def counterexamples(conn: Conn, problem_id: str | None) -> list[Counterexample]:
    if problem_id is None:
        rows = conn.execute(f"{SELECT} ORDER BY c.id DESC")
    else:
        rows = conn.execute(f"{SELECT} WHERE c.problem_id = ? ORDER BY c.id DESC", (problem_id,))
    return [_record(r) for r in rows]


def counterexample(conn: Conn, counterexample_id: int) -> Counterexample | None:
    row = conn.execute(f"{SELECT} WHERE c.id = ?", (counterexample_id,)).fetchone()
    return None if row is None else _record(row)


def set_added_as(conn: Conn, counterexample_id: int, test_name: str) -> None:
    conn.execute("UPDATE counterexamples SET added_as = ? WHERE id = ?", (test_name, counterexample_id))


def counterexample_problems(conn: Conn, after_id: int) -> dict[int, str]:
    """The problem of each counterexample stored after ``after_id``, by id (no contents: the jury's notice asks
    it on every page)."""
    rows = conn.execute("SELECT id, problem_id FROM counterexamples WHERE id > ? ORDER BY id", (after_id,))
    return {int(r["id"]): str(r["problem_id"]) for r in rows}
