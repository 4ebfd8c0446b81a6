"""The queries of running a contest live (issue 30; storage/sqlite.py's reader and writer call them): the
teams and accounts an admin added or changed (overrides of the contest package, which stays as the
organizer wrote it) and the audit log. Every statement is parameterized."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from judge.serve.model.contest import Team
from judge.serve.model.records import AuditRecord, LiveAccount, PrintRecord, QueuedJob, ReviewRecord
from judge.serve.storage.rows import SUBMISSION_COLUMNS, Where, submission_record


def live_teams(c: sqlite3.Connection) -> list[Team]:
    rows = c.execute("SELECT * FROM live_teams ORDER BY time_s, id")
    return [
        Team(
            id=r["id"],
            name=r["name"],
            label=r["label"],
            display_name=r["display_name"],
            organization_id=r["organization_id"],
            group_ids=tuple(json.loads(r["group_ids"])),
            icpc_id=r["icpc_id"],
            hidden=bool(r["hidden"]),
        )
        for r in rows
    ]


def put_live_team(c: sqlite3.Connection, t: Team, now: float) -> None:
    c.execute(
        "INSERT INTO live_teams (id, name, label, display_name, organization_id, group_ids, icpc_id, hidden, time_s) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, "
        "label = excluded.label, display_name = excluded.display_name, organization_id = excluded.organization_id, "
        "group_ids = excluded.group_ids, icpc_id = excluded.icpc_id, hidden = excluded.hidden",
        (t.id, t.name, t.label, t.display_name, t.organization_id, json.dumps(list(t.group_ids)), t.icpc_id,
         int(t.hidden), now),
    )  # fmt: skip


def live_accounts(c: sqlite3.Connection) -> list[LiveAccount]:
    rows = c.execute("SELECT * FROM live_accounts ORDER BY time_s, id")
    return [
        LiveAccount(
            r["id"], r["username"], r["type"], r["team_id"], r["name"], r["password_hash"], bool(r["disabled"]),
            float(r["time_s"]),
        )
        for r in rows
    ]  # fmt: skip


def put_live_account(c: sqlite3.Connection, a: LiveAccount) -> None:
    c.execute(
        "INSERT INTO live_accounts (id, username, type, team_id, name, password_hash, disabled, time_s) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET username = excluded.username, "
        "type = excluded.type, team_id = excluded.team_id, name = excluded.name, "
        "password_hash = excluded.password_hash, disabled = excluded.disabled",
        (a.id, a.username, a.type, a.team_id, a.name, a.password_hash, int(a.disabled), a.time_s),
    )


def audit(c: sqlite3.Connection, limit: int) -> list[AuditRecord]:
    """The newest ``limit`` entries, newest first."""
    rows = c.execute("SELECT * FROM audit_log ORDER BY id DESC LIMIT ?", (limit,))
    return [
        AuditRecord(float(r["time_s"]), r["account_id"], r["username"], r["action"], r["detail"], int(r["id"]))
        for r in rows
    ]


def add_audit(c: sqlite3.Connection, e: AuditRecord) -> None:
    c.execute(
        "INSERT INTO audit_log (time_s, account_id, username, action, detail) VALUES (?, ?, ?, ?, ?)",
        (e.time_s, e.account_id, e.username, e.action, e.detail),
    )


def set_ignored(c: sqlite3.Connection, submission_id: int, ignored: bool, now: float) -> None:
    if ignored:
        c.execute(
            "INSERT OR IGNORE INTO ignored_submissions (submission_id, time_s) VALUES (?, ?)", (submission_id, now)
        )
    else:
        c.execute("DELETE FROM ignored_submissions WHERE submission_id = ?", (submission_id,))


def job_queue(c: sqlite3.Connection) -> list[QueuedJob]:
    rows = c.execute(
        f"SELECT jb.id AS job_id, jb.reason, jb.created_s, jb.judgement_id, j.start_s AS j_start_s, "
        f"{SUBMISSION_COLUMNS} FROM jobs jb JOIN submissions s ON s.id = jb.submission_id "
        "LEFT JOIN judgements j ON j.id = jb.judgement_id WHERE jb.done = 0 ORDER BY (jb.reason != 'submit'), jb.id"
    )
    return [
        QueuedJob(int(r["job_id"]), r["reason"], float(r["created_s"]), submission_record(r), r["j_start_s"])
        for r in rows
    ]


def balloons_done(c: sqlite3.Connection) -> set[int]:
    return {int(r[0]) for r in c.execute("SELECT submission_id FROM balloons_done")}


def set_balloon_done(c: sqlite3.Connection, submission_id: int, done: bool, now: float) -> None:
    if done:
        c.execute("INSERT OR IGNORE INTO balloons_done (submission_id, time_s) VALUES (?, ?)", (submission_id, now))
    else:
        c.execute("DELETE FROM balloons_done WHERE submission_id = ?", (submission_id,))


def reviews(c: sqlite3.Connection, judgement_ids: Collection[int]) -> list[ReviewRecord]:
    w = Where().among("judgement_id", judgement_ids)
    rows = c.execute(f"SELECT * FROM judgement_reviews WHERE {w.sql} ORDER BY judgement_id", w.args)
    return [
        ReviewRecord(int(r["judgement_id"]), bool(r["verified"]), r["comment"], r["username"], float(r["time_s"]))
        for r in rows
    ]


def put_review(c: sqlite3.Connection, r: ReviewRecord) -> None:
    c.execute(
        "INSERT INTO judgement_reviews (judgement_id, verified, comment, username, time_s) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(judgement_id) DO UPDATE SET verified = excluded.verified, comment = excluded.comment, "
        "username = excluded.username, time_s = excluded.time_s",
        (r.judgement_id, int(r.verified), r.comment, r.username, r.time_s),
    )


def _print(r: sqlite3.Row) -> PrintRecord:
    return PrintRecord(
        int(r["id"]),
        r["team_id"],
        r["username"],
        r["filename"],
        r["text"],
        float(r["time_s"]),
        r["status"],
        None if r["delivered_s"] is None else float(r["delivered_s"]),
    )


def prints(c: sqlite3.Connection, team_id: str | None) -> list[PrintRecord]:
    w = Where().equal("team_id", team_id)
    return [_print(r) for r in c.execute(f"SELECT * FROM prints WHERE {w.sql} ORDER BY id", w.args)]


def recent_prints(c: sqlite3.Connection, username: str, since_s: float) -> int:
    row = c.execute("SELECT count(*) FROM prints WHERE username = ? AND time_s > ?", (username, since_s)).fetchone()
    return int(row[0])


def next_print(c: sqlite3.Connection, statuses: Collection[str]) -> PrintRecord | None:
    marks = ", ".join("?" * len(statuses))
    row = c.execute(f"SELECT * FROM prints WHERE status IN ({marks}) ORDER BY id LIMIT 1", tuple(statuses)).fetchone()
    return None if row is None else _print(row)


def add_print(c: sqlite3.Connection, p: PrintRecord) -> PrintRecord:
    cur = c.execute(
        "INSERT INTO prints (team_id, username, filename, text, time_s, status) VALUES (?, ?, ?, ?, ?, ?)",
        (p.team_id, p.username, p.filename, p.text, p.time_s, p.status),
    )
    return replace(p, id=int(cur.lastrowid or 0))


def set_print_status(c: sqlite3.Connection, print_id: int, status: str) -> None:
    c.execute("UPDATE prints SET status = ? WHERE id = ?", (status, print_id))


def set_print_delivered(c: sqlite3.Connection, print_id: int, delivered_s: float | None) -> bool:
    """Whether print-out ``print_id`` exists (and is now marked)."""
    return c.execute("UPDATE prints SET delivered_s = ? WHERE id = ?", (delivered_s, print_id)).rowcount > 0


def live_objects(c: sqlite3.Connection, kind: str) -> list[dict[str, Any]]:
    rows = c.execute("SELECT data FROM live_objects WHERE kind = ? ORDER BY time_s, id", (kind,))
    return [json.loads(r["data"]) for r in rows]


def put_live_object(c: sqlite3.Connection, kind: str, obj: Mapping[str, Any], now: float) -> None:
    c.execute(
        "INSERT INTO live_objects (kind, id, data, time_s) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(kind, id) DO UPDATE SET data = excluded.data",
        (kind, str(obj["id"]), json.dumps(dict(obj), sort_keys=True), now),
    )
