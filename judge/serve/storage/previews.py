"""Rejudge previews and their runs (issue 33), and every rejudging set (issue 47: kind ``rejudge``, its scope,
whether it applies itself, who started it); storage/sqlite.py's reader and writer call these: every
statement parameterized."""

from __future__ import annotations

import sqlite3

from judge.serve.model.records import PreviewRecord, PreviewRun

COLUMNS = (
    "problem_id, version, base_version, kind, counterexample_id, state, message, created_s, test_name, scope, "
    "auto_apply, created_by"
)
RUN_COLUMNS = (
    "preview_id, submission_id, verdict_before, verdict_after, score_before, score_after, failing_test, time_s"
)


def _record(r: sqlite3.Row) -> PreviewRecord:
    return PreviewRecord(
        problem_id=r["problem_id"],
        version=r["version"],
        base_version=r["base_version"],
        kind=r["kind"],
        counterexample_id=r["counterexample_id"],
        state=r["state"],
        message=r["message"],
        created_s=r["created_s"],
        test_name=r["test_name"],
        id=r["id"],
        scope=r["scope"],
        auto_apply=bool(r["auto_apply"]),
        created_by=r["created_by"],
    )


def add_preview(conn: sqlite3.Connection, p: PreviewRecord) -> int:
    cur = conn.execute(
        f"INSERT INTO previews ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (p.problem_id, p.version, p.base_version, p.kind, p.counterexample_id, p.state, p.message, p.created_s,
         p.test_name, p.scope, int(p.auto_apply), p.created_by),
    )  # fmt: skip
    assert cur.lastrowid is not None
    return cur.lastrowid


def previews(conn: sqlite3.Connection, states: tuple[str, ...] | None) -> list[PreviewRecord]:
    """Previews (in one of ``states``; None: all), oldest first."""
    if states is None:
        rows = conn.execute(f"SELECT id, {COLUMNS} FROM previews ORDER BY id")
    else:
        marks = ", ".join("?" for _ in states)
        rows = conn.execute(f"SELECT id, {COLUMNS} FROM previews WHERE state IN ({marks}) ORDER BY id", states)
    return [_record(r) for r in rows]


def preview(conn: sqlite3.Connection, preview_id: int) -> PreviewRecord | None:
    row = conn.execute(f"SELECT id, {COLUMNS} FROM previews WHERE id = ?", (preview_id,)).fetchone()
    return None if row is None else _record(row)


def set_preview_state(conn: sqlite3.Connection, preview_id: int, state: str, message: str | None) -> None:
    if message is None:
        conn.execute("UPDATE previews SET state = ? WHERE id = ?", (state, preview_id))
    else:
        conn.execute("UPDATE previews SET state = ?, message = ? WHERE id = ?", (state, message, preview_id))


def add_preview_run(conn: sqlite3.Connection, run: PreviewRun) -> None:
    """Keep one submission's result (a second one for the same submission replaces it)."""
    conn.execute(
        f"INSERT OR REPLACE INTO preview_runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (run.preview_id, run.submission_id, run.verdict_before, run.verdict_after, run.score_before,
         run.score_after, run.failing_test, run.time_s),
    )  # fmt: skip


def preview_runs(conn: sqlite3.Connection, preview_id: int) -> list[PreviewRun]:
    rows = conn.execute(
        f"SELECT {RUN_COLUMNS} FROM preview_runs WHERE preview_id = ? ORDER BY submission_id", (preview_id,)
    )
    return [PreviewRun(*tuple(r)) for r in rows]


class PreviewReads:
    """The Reader's queries of this module (storage/sqlite.py's reader inherits them)."""

    _c: sqlite3.Connection

    def previews(self, states: tuple[str, ...] | None = None) -> list[PreviewRecord]:
        return previews(self._c, states)

    def preview(self, preview_id: int) -> PreviewRecord | None:
        return preview(self._c, preview_id)

    def preview_runs(self, preview_id: int) -> list[PreviewRun]:
        return preview_runs(self._c, preview_id)


class PreviewWrites(PreviewReads):
    """The Writer's changes of this module (storage/sqlite.py's writer inherits them)."""

    def add_preview(self, p: PreviewRecord) -> int:
        return add_preview(self._c, p)

    def set_preview_state(self, preview_id: int, state: str, message: str | None = None) -> None:
        set_preview_state(self._c, preview_id, state, message)

    def add_preview_run(self, run: PreviewRun) -> None:
        add_preview_run(self._c, run)
