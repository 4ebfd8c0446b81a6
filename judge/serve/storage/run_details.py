"""What each run printed and how it ended (issue 47; storage/sqlite.py's reader and writer call these): the
rows of ``run_details`` and the bytes they hold, counted in ``meta`` (``run_details_bytes``) so that the
contest's cap is checked without adding up the table. Every statement parameterized."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from judge.serve.model.records import RunDetail
from judge.serve.storage.rows import Where

COLUMNS = (
    "judgement_id, ordinal, pass, verdict, output, output_bytes, stderr, stderr_bytes, input, input_bytes, "
    "exit_code, signal, time_s, wall_time_s, memory_kib, judge_message, team_message"
)
COUNTER = "run_details_bytes"


def _blob(value: bytes | None) -> bytes | None:
    return None if value is None else bytes(value)


def _record(r: sqlite3.Row) -> RunDetail:
    return RunDetail(
        judgement_id=int(r["judgement_id"]),
        ordinal=int(r["ordinal"]),
        pass_n=int(r["pass"]),
        verdict=r["verdict"],
        output=_blob(r["output"]),
        output_bytes=int(r["output_bytes"]),
        stderr=_blob(r["stderr"]),
        stderr_bytes=int(r["stderr_bytes"]),
        input=_blob(r["input"]),
        input_bytes=int(r["input_bytes"]),
        exit_code=r["exit_code"],
        signal=r["signal"],
        time_s=float(r["time_s"]),
        wall_time_s=float(r["wall_time_s"]),
        memory_kib=int(r["memory_kib"]),
        judge_message=r["judge_message"],
        team_message=r["team_message"],
    )


def run_details(c: sqlite3.Connection, judgement_ids: Collection[int], ordinal: int | None) -> list[RunDetail]:
    w = Where().among("judgement_id", judgement_ids).equal("ordinal", ordinal)
    rows = c.execute(f"SELECT {COLUMNS} FROM run_details WHERE {w.sql} ORDER BY judgement_id, ordinal, pass", w.args)
    return [_record(r) for r in rows]


def stored_bytes(c: sqlite3.Connection) -> int:
    row = c.execute("SELECT value FROM meta WHERE key = ?", (COUNTER,)).fetchone()
    return 0 if row is None else int(row[0])


def add_run_detail(c: sqlite3.Connection, d: RunDetail) -> None:
    """Keep one pass's detail (replacing one of the same judgement, run and pass) and count its bytes."""
    old = c.execute(
        "SELECT coalesce(length(output), 0) + coalesce(length(stderr), 0) + coalesce(length(input), 0) "
        "FROM run_details WHERE judgement_id = ? AND ordinal = ? AND pass = ?",
        (d.judgement_id, d.ordinal, d.pass_n),
    ).fetchone()
    c.execute(
        f"INSERT OR REPLACE INTO run_details ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (d.judgement_id, d.ordinal, d.pass_n, d.verdict, d.output, d.output_bytes, d.stderr, d.stderr_bytes,
         d.input, d.input_bytes, d.exit_code, d.signal, d.time_s, d.wall_time_s, d.memory_kib, d.judge_message,
         d.team_message),
    )  # fmt: skip
    total = stored_bytes(c) + d.stored_bytes - (int(old[0]) if old is not None else 0)
    c.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (COUNTER, str(total)),
    )


class RunDetailReads:
    """The Reader's queries of this module (storage/sqlite.py's reader inherits them)."""

    _c: sqlite3.Connection

    def run_details(self, judgement_ids: Collection[int], ordinal: int | None = None) -> list[RunDetail]:
        return run_details(self._c, judgement_ids, ordinal)

    def run_details_bytes(self) -> int:
        return stored_bytes(self._c)


class RunDetailWrites(RunDetailReads):
    """The Writer's changes of this module (storage/sqlite.py's writer inherits them)."""

    def add_run_detail(self, detail: RunDetail) -> None:
        add_run_detail(self._c, detail)
