"""Problem package versions made while the contest runs (issue 33; storage/sqlite.py's reader and writer
call these): every statement parameterized."""

from __future__ import annotations

from judge.serve.model.records import ProblemVersion
from judge.serve.storage.dialect import Conn, Row

COLUMNS = "problem_id, version, path, reason, created_s, state"


def _record(r: Row) -> ProblemVersion:
    return ProblemVersion(r["problem_id"], r["version"], r["path"], r["reason"], r["created_s"], r["state"])


def problem_versions(conn: Conn, problem_id: str | None) -> list[ProblemVersion]:
    if problem_id is None:
        rows = conn.execute(f"SELECT {COLUMNS} FROM problem_versions ORDER BY problem_id, version")
    else:
        rows = conn.execute(
            f"SELECT {COLUMNS} FROM problem_versions WHERE problem_id = ? ORDER BY version", (problem_id,)
        )
    return [_record(r) for r in rows]


def add_problem_version(conn: Conn, problem_id: str, path_of: str, reason: str, now: float) -> int:
    """A new version (state preview), numbered after every earlier one (version 1: the package as started)."""
    row = conn.execute("SELECT max(version) FROM problem_versions WHERE problem_id = ?", (problem_id,)).fetchone()
    version = max(1, int(row[0] or 1)) + 1
    conn.execute(
        f"INSERT INTO problem_versions ({COLUMNS}) VALUES (?, ?, ?, ?, ?, 'preview')",
        (problem_id, version, path_of.replace("{version}", str(version)), reason, now),
    )
    return version


def set_version_state(conn: Conn, problem_id: str, version: int, state: str) -> None:
    conn.execute(
        "UPDATE problem_versions SET state = ? WHERE problem_id = ? AND version = ?", (state, problem_id, version)
    )


class VersionReads:
    """The Reader's queries of this module (storage/sqlite.py's reader inherits them)."""

    _c: Conn

    def problem_versions(self, problem_id: str | None = None) -> list[ProblemVersion]:
        return problem_versions(self._c, problem_id)


class VersionWrites(VersionReads):
    """The Writer's changes of this module (storage/sqlite.py's writer inherits them)."""

    def add_problem_version(self, problem_id: str, path_of: str, reason: str, now: float) -> int:
        return add_problem_version(self._c, problem_id, path_of, reason, now)

    def set_version_state(self, problem_id: str, version: int, state: str) -> None:
        set_version_state(self._c, problem_id, version, state)
