"""The admins' award edits in the SQLite storage (storage/sqlite.py's reader and writer call them): one row
per award id, the latest edit; team ids kept as JSON text; every statement parameterized."""

from __future__ import annotations

import json

from judge.serve.model.records import AwardEdit
from judge.serve.storage.dialect import Conn


def award_edits(conn: Conn) -> list[AwardEdit]:
    rows = conn.execute("SELECT id, citation, team_ids, removed FROM award_edits ORDER BY seq")
    return [
        AwardEdit(str(r[0]), str(r[1]), None if r[2] is None else tuple(json.loads(r[2])), removed=bool(r[3]))
        for r in rows
    ]


def put_award_edit(conn: Conn, edit: AwardEdit) -> None:
    """Keep ``edit`` as the award's latest (its place in the order: the first edit of that id)."""
    team_ids = None if edit.team_ids is None else json.dumps(list(edit.team_ids))
    conn.execute(
        "INSERT INTO award_edits (id, citation, team_ids, removed) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
        "SET citation = excluded.citation, team_ids = excluded.team_ids, removed = excluded.removed",
        (edit.id, edit.citation, team_ids, int(edit.removed)),
    )
