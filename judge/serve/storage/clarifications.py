"""The clarifications' queries of the SQLite storage (storage/sqlite.py's reader and writer call them):
the clarifications themselves, a team's recent questions (the rate limit) and how far each account has
read. Lists of ids are kept as JSON text; every statement is parameterized."""

from __future__ import annotations

import json
from collections.abc import Collection

from judge.serve.model.records import ClarificationRecord, NewClarification
from judge.serve.storage.dialect import Conn, Row
from judge.serve.storage.rows import Where


def _ids(value: str | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(json.loads(value))


def _ids_text(value: tuple[str, ...] | None) -> str | None:
    return None if value is None else json.dumps(list(value))


def _clarification(r: Row) -> ClarificationRecord:
    return ClarificationRecord(
        id=int(r["id"]),
        public_id=r["public_id"],
        from_team_id=r["from_team_id"],
        to_team_ids=_ids(r["to_team_ids"]),
        to_group_ids=_ids(r["to_group_ids"]),
        recipients=_ids(r["recipients"]),
        reply_to_id=r["reply_to"],
        problem_id=r["problem_id"],
        text=r["text"],
        time_s=float(r["time_s"]),
        account_id=r["account_id"],
    )


def clarifications(
    c: Conn,
    *,
    ids: Collection[int] | None = None,
    public_ids: Collection[str] | None = None,
    after_id: int | None = None,
) -> list[ClarificationRecord]:
    w = Where().among("id", ids).among("public_id", public_ids)
    if after_id is not None:
        w.parts.append("id > ?")
        w.args.append(after_id)
    rows = c.execute(f"SELECT * FROM clarifications WHERE {w.sql} ORDER BY id", w.args)
    return [_clarification(r) for r in rows]


def recent_questions(c: Conn, team_id: str, since_s: float) -> tuple[int, float | None]:
    row = c.execute(
        "SELECT count(*), min(time_s) FROM clarifications WHERE from_team_id = ? AND time_s > ?",
        (team_id, since_s),
    ).fetchone()
    return int(row[0]), row[1]


def unanswered_questions(c: Conn) -> int:
    row = c.execute(
        "SELECT count(*) FROM clarifications q WHERE q.from_team_id IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM clarifications a WHERE a.reply_to = q.id AND a.from_team_id IS NULL)"
    ).fetchone()
    return int(row[0])


def clarifications_read(c: Conn, account_id: str) -> int:
    found = c.execute("SELECT last_id FROM clarifications_read WHERE account_id = ?", (account_id,)).fetchone()
    return 0 if found is None else int(found[0])


def add_clarification(c: Conn, n: NewClarification) -> ClarificationRecord:
    cur = c.execute(
        "INSERT INTO clarifications (public_id, from_team_id, to_team_ids, to_group_ids, recipients, reply_to, "
        "problem_id, text, time_s, account_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            n.public_id,
            n.from_team_id,
            _ids_text(n.to_team_ids),
            _ids_text(n.to_group_ids),
            _ids_text(n.recipients),
            n.reply_to_id,
            n.problem_id,
            n.text,
            n.time_s,
            n.account_id,
        ),
    )
    (added,) = clarifications(c, ids=[int(cur.lastrowid or 0)])
    return added


def mark_clarifications_read(c: Conn, account_id: str, last_id: int) -> None:
    """``account_id`` has read every clarification up to ``last_id`` (never goes back)."""
    c.execute(
        "INSERT INTO clarifications_read (account_id, last_id) VALUES (?, ?) "
        "ON CONFLICT(account_id) DO UPDATE SET last_id = CASE WHEN excluded.last_id > clarifications_read.last_id "
        "THEN excluded.last_id ELSE clarifications_read.last_id END",
        (account_id, last_id),
    )
