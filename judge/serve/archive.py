"""Downloads for organizers: ``results.json`` (the document of `judge grade --json`, built by the same
code from the live board) and the contest as a CCS contest package archive (a zip of the Contest API's
own JSON: contest.json, state.json, judgement-types.json, languages.json, problems.json, groups.json,
organizations.json, teams.json, submissions.json with each submission's ``submissions/<id>/files.zip``,
judgements.json, runs.json, scoreboard.json, event-feed.ndjson), as a judge or admin sees them."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

from judge.grade.report import results_json
from judge.serve import api, events
from judge.serve.context import Ctx
from judge.serve.scoreboard import attempts, build_board


def results_document(ctx: Ctx) -> dict[str, Any]:
    """The live board (every judged submission made during the contest) as `judge grade`'s results.json."""
    server = ctx.server
    with server.db.read() as conn:
        tries = attempts(conn, server.contest, frozen_from=None, all_times=False)
    board, _ = build_board(server.contest, tries)
    return results_json(board)


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def contest_package(ctx: Ctx) -> bytes:
    """The contest package archive for ``ctx``'s viewer (staff: everything)."""
    server = ctx.server
    parts: dict[str, Any] = {
        "contest.json": api.get_contest(ctx),
        "state.json": api.get_state(ctx),
        "judgement-types.json": api.judgement_types(ctx),
        "languages.json": api.languages(ctx),
        "problems.json": api.problems(ctx),
        "groups.json": api.groups(ctx),
        "organizations.json": api.organizations(ctx),
        "teams.json": api.teams(ctx),
        "submissions.json": api.submissions(ctx),
        "judgements.json": api.judgements(ctx),
        "runs.json": api.runs(ctx),
        "scoreboard.json": api.get_scoreboard(ctx),
    }
    buf = io.BytesIO()
    conn = server.db.conn()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, obj in parts.items():
            zf.writestr(name, _dump(obj))
        lines, after = [], 0
        while True:
            batch, after = events.lines_after(conn, after, ctx.viewer, 1000)
            if not batch:
                break
            lines.extend(batch)
        zf.writestr("event-feed.ndjson", "".join(lines))
        for s in parts["submissions.json"]:
            row = conn.execute("SELECT files FROM submissions WHERE id = ?", (int(s["id"]),)).fetchone()
            zf.writestr(f"submissions/{s['id']}/files.zip", bytes(row["files"]))
    return buf.getvalue()
