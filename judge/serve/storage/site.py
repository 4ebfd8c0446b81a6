"""The queries of a site of contests (issue 44; storage/sqlite.py's reader and writer call them): the
contests' registry of the site database (hidden, archived, a judging priority an admin set). Every statement
is parameterized."""

from __future__ import annotations

import sqlite3

from judge.serve.model.records import SiteContestRecord


def site_contests(c: sqlite3.Connection) -> list[SiteContestRecord]:
    rows = c.execute("SELECT id, hidden, archived, judging_priority, time_s FROM site_contests ORDER BY id")
    return [
        SiteContestRecord(r["id"], bool(r["hidden"]), bool(r["archived"]), r["judging_priority"], r["time_s"])
        for r in rows
    ]


def put_site_contest(c: sqlite3.Connection, r: SiteContestRecord) -> None:
    c.execute(
        "INSERT INTO site_contests (id, hidden, archived, judging_priority, time_s) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET hidden = excluded.hidden, archived = excluded.archived, "
        "judging_priority = excluded.judging_priority, time_s = excluded.time_s",
        (r.id, int(r.hidden), int(r.archived), r.judging_priority, r.time_s),
    )
