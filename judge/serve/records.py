"""The Contest API's objects (the spec's JSON shapes; `check-api.sh` validates them, see docs/serve.md)
and who may see which rows. Properties whose value would be null are left out, as the spec allows (the
state object and a submission's ``entry_point`` keep them).

Verdicts map to the spec's judgement type ids one to one, except PV (a protocol violation in an
interactive problem), which is published as WA: the spec's closed list has no such type, and Kattis also
reports it as a wrong answer. The database keeps our own verdict.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from judge import __version__
from judge.judging.verdict import Verdict
from judge.languages.table import Language
from judge.serve.auth import Viewer
from judge.serve.contest import AccountSpec, ContestInfo, ContestProblem, Team
from judge.serve.times import format_reltime, format_time

SPEC_URL = "https://ccs-specs.icpc.io/draft/contest_api"

# our verdict -> (the spec's judgement type id, its name)
JUDGEMENT_TYPES: Mapping[Verdict, tuple[str, str]] = {
    Verdict.AC: ("AC", "Accepted"),
    Verdict.WA: ("WA", "Wrong Answer"),
    Verdict.PV: ("WA", "Wrong Answer"),
    Verdict.TLE: ("TLE", "Time Limit Exceeded"),
    Verdict.MLE: ("MLE", "Memory Limit Exceeded"),
    Verdict.RTE: ("RTE", "Run-Time Error"),
    Verdict.OLE: ("OLE", "Output Limit Exceeded"),
    Verdict.CE: ("CE", "Compile Error"),
    Verdict.JE: ("JE", "Judging Error"),
}


def compact(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if v is not None}


def judgement_type(verdict: Verdict) -> str:
    return JUDGEMENT_TYPES[verdict][0]


def judgement_types_json() -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for jt, name in JUDGEMENT_TYPES.values():
        seen.setdefault(jt, {"id": jt, "name": name, "solved": jt == "AC"})
    return list(seen.values())


def api_json() -> dict[str, Any]:
    return {"version": "draft", "version_url": SPEC_URL, "provider": {"name": "judge", "version": __version__}}


def contest_json(info: ContestInfo, thaw_s: float | None, freeze_duration_s: float) -> dict[str, Any]:
    return compact(
        {
            "id": info.id,
            "name": info.name,
            "formal_name": info.formal_name,
            "start_time": None if info.start_s is None else format_time(info.start_s),
            "duration": format_reltime(info.duration_s),
            "scoreboard_freeze_duration": format_reltime(freeze_duration_s),
            "scoreboard_thaw_time": None if thaw_s is None else format_time(thaw_s),
            "scoreboard_type": "score",
        }
    )


STATEMENT_TYPES = {".md": "text/markdown", ".tex": "application/x-tex", ".pdf": "application/pdf"}


def statement_mime(p: ContestProblem) -> str | None:
    path = p.problem.statement
    return None if path is None else STATEMENT_TYPES.get(path.suffix.lower(), "text/plain")


def problem_json(p: ContestProblem, contest_id: str) -> dict[str, Any]:
    pkg = p.problem
    mime = statement_mime(p)
    statement = None
    if pkg.statement is not None and mime is not None:
        href = f"contests/{contest_id}/problems/{p.id}/statement"
        statement = [{"href": href, "filename": f"{p.id}{pkg.statement.suffix}", "mime": mime}]
    return compact(
        {
            "id": p.id,
            "label": p.label,
            "name": p.name,
            "ordinal": p.ordinal,
            "rgb": p.rgb,
            "color": p.color,
            "time_limit": round(pkg.limits.time_s, 3),
            "memory_limit": pkg.limits.memory_kib // 1024,
            "output_limit": max(1, pkg.limits.output_bytes // (1024 * 1024)),
            "code_limit": p.code_limit_kib,
            "test_data_count": len(pkg.tests()),
            "max_score": pkg.secret.max_score,
            "statement": statement,
        }
    )


def language_json(lang: Language) -> dict[str, Any]:
    return {
        "id": lang.id,
        "name": lang.name,
        "entry_point_required": False,
        "extensions": [e.lstrip(".") for e in lang.extensions],
    }


def team_json(t: Team) -> dict[str, Any]:
    return compact(
        {
            "id": t.id,
            "icpc_id": t.icpc_id,
            "name": t.name,
            "label": t.label,
            "display_name": t.display_name,
            "organization_id": t.organization_id,
            "group_ids": list(t.group_ids),
        }
    )


def account_json(a: AccountSpec) -> dict[str, Any]:
    return compact({"id": a.id, "username": a.username, "name": a.name, "type": a.type, "team_id": a.team_id})


def _contest_time(t: float, info: ContestInfo) -> str:
    return format_reltime(t - (info.start_s if info.start_s is not None else t))


def submission_json(row: sqlite3.Row, info: ContestInfo) -> dict[str, Any]:
    """``entry_point`` is always there, null when the language has none (the spec's schema wants an
    explicit null for C and C++)."""
    sid = str(row["id"])
    return {
        "id": sid,
        "language_id": row["language_id"],
        "problem_id": row["problem_id"],
        "team_id": row["team_id"],
        "time": format_time(row["time_s"]),
        "contest_time": _contest_time(row["time_s"], info),
        "entry_point": row["entry_point"],
        "files": [
            {"href": f"contests/{info.id}/submissions/{sid}/files", "filename": "files.zip", "mime": "application/zip"}
        ],
    }


def judgement_json(row: sqlite3.Row, info: ContestInfo) -> dict[str, Any]:
    done = row["end_s"] is not None
    return compact(
        {
            "id": str(row["id"]),
            "submission_id": str(row["submission_id"]),
            "judgement_type_id": row["judgement_type"] if done else None,
            "score": round(row["score"], 6) if done else None,
            "current": bool(row["current"]),
            "start_time": format_time(row["start_s"]),
            "start_contest_time": _contest_time(row["start_s"], info),
            "end_time": format_time(row["end_s"]) if done else None,
            "end_contest_time": _contest_time(row["end_s"], info) if done else None,
            "max_run_time": row["max_run_time"] if done else None,
        }
    )


def run_json(row: sqlite3.Row, info: ContestInfo) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "judgement_id": str(row["judgement_id"]),
        "ordinal": row["ordinal"],
        "judgement_type_id": row["judgement_type"],
        "time": format_time(row["time_s"]),
        "contest_time": _contest_time(row["time_s"], info),
        "run_time": row["run_time"],
    }


# ----------------------------------------------------------------------------------------------- who sees what


def submissions_visible(viewer: Viewer, info: ContestInfo) -> tuple[str, tuple[Any, ...]]:
    """SQL condition on ``s`` (submissions): staff see all; others the submissions made during the contest
    (an admin's test submission outside it stays hidden)."""
    if viewer.staff:
        return "1", ()
    if info.start_s is None or info.end_s is None:
        return "0", ()
    return "(s.time_s >= ? AND s.time_s < ?)", (info.start_s, info.end_s)


def judgements_visible(viewer: Viewer, info: ContestInfo, frozen_from: float | None) -> tuple[str, tuple[Any, ...]]:
    """On ``s``: as submissions, and while the board is frozen (``frozen_from``: the freeze time; None:
    not frozen now) the results of submissions made since only to their own team."""
    cond, params = submissions_visible(viewer, info)
    if viewer.staff or frozen_from is None:
        return cond, params
    return f"{cond} AND (s.time_s < ? OR s.team_id = ?)", (*params, frozen_from, viewer.team_id)


def runs_visible(viewer: Viewer, info: ContestInfo) -> tuple[str, tuple[Any, ...]]:
    """Runs (per-test results) of a team's submissions: that team and staff only."""
    cond, params = submissions_visible(viewer, info)
    if viewer.staff:
        return cond, params
    return f"{cond} AND s.team_id = ?", (*params, viewer.team_id)


def select_submissions(
    conn: sqlite3.Connection, cond: tuple[str, Sequence[Any]], extra: str = "1", args: Sequence[Any] = ()
) -> list[sqlite3.Row]:
    sql = (
        "SELECT s.id, s.team_id, s.problem_id, s.language_id, s.entry_point, s.time_s FROM submissions s "
        f"WHERE {cond[0]} AND {extra} ORDER BY s.id"
    )
    return conn.execute(sql, (*cond[1], *args)).fetchall()


def select_judgements(
    conn: sqlite3.Connection, cond: tuple[str, Sequence[Any]], extra: str = "1", args: Sequence[Any] = ()
) -> list[sqlite3.Row]:
    sql = (
        "SELECT j.* FROM judgements j JOIN submissions s ON s.id = j.submission_id "
        f"WHERE {cond[0]} AND {extra} ORDER BY j.id"
    )
    return conn.execute(sql, (*cond[1], *args)).fetchall()


def select_runs(
    conn: sqlite3.Connection, cond: tuple[str, Sequence[Any]], extra: str = "1", args: Sequence[Any] = ()
) -> list[sqlite3.Row]:
    sql = (
        "SELECT r.* FROM runs r JOIN judgements j ON j.id = r.judgement_id "
        f"JOIN submissions s ON s.id = j.submission_id WHERE {cond[0]} AND {extra} ORDER BY r.id"
    )
    return conn.execute(sql, (*cond[1], *args)).fetchall()
