"""What the jury's team overview reads of the teams' activity (issue 47; storage/sqlite.py's reader calls
these): each team's page sessions (live ones, and the newest login the database still holds) and its
newest print-out. Every statement parameterized."""

from __future__ import annotations

import sqlite3

from judge.serve.model.records import TeamSessions


def team_sessions(c: sqlite3.Connection, now: float) -> dict[str, TeamSessions]:
    rows = c.execute(
        "SELECT a.team_id, sum(s.expires_s > ?), max(s.created_s) FROM sessions s "
        "JOIN accounts a ON a.id = s.account_id WHERE a.team_id IS NOT NULL GROUP BY a.team_id",
        (now,),
    )
    return {str(r[0]): TeamSessions(int(r[1] or 0), r[2]) for r in rows}


def last_prints(c: sqlite3.Connection) -> dict[str, float]:
    rows = c.execute("SELECT team_id, max(time_s) FROM prints WHERE team_id IS NOT NULL GROUP BY team_id")
    return {str(r[0]): float(r[1]) for r in rows}


class ActivityReads:
    """The Reader's queries of this module (storage/sqlite.py's reader inherits them)."""

    _c: sqlite3.Connection

    def team_sessions(self, now: float) -> dict[str, TeamSessions]:
        return team_sessions(self._c, now)

    def last_prints(self) -> dict[str, float]:
        return last_prints(self._c)
