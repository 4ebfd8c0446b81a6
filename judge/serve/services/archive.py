"""Downloads for organizers: ``results.json`` (the document of `judge grade --json`, built by the same
code from the live board) and the contest as a CCS contest package archive (a zip of the Contest API's
own JSON: api.json, contest.json, state.json, judgement-types.json, languages.json, problems.json,
groups.json, organizations.json, teams.json, accounts.json (never a password), submissions.json with each
submission's ``submissions/<id>/files.zip``, judgements.json, runs.json, clarifications.json, awards.json,
scoreboard.json, event-feed.ndjson), as the viewer may see them (staff: everything, live). `judge contest
export` writes the same archive, and `judge serve --replay` serves it again (services/lifecycle/replay.py)."""

from __future__ import annotations

import io
import json
import zipfile
from collections import Counter
from dataclasses import replace
from typing import Any

from judge.grade.report import results_json
from judge.scoreboard.model import PassFailBoard
from judge.serve.model.apijson import api_json
from judge.serve.model.board import attempts, build_board, passfail_standings
from judge.serve.model.errors import Refused
from judge.serve.services import documents
from judge.serve.services.context import ServedContest
from judge.serve.services.core.events import all_lines
from judge.serve.visibility import Sight, sees_downloads


def _allowed(sight: Sight) -> None:
    if not sees_downloads(sight):
        raise Refused(403, "the downloads are for judges and admins")


def results_document(server: ServedContest, sight: Sight) -> dict[str, Any]:
    """The live board (every judged submission made during the contest) as `judge grade`'s results.json."""
    _allowed(sight)
    info = server.contest.info
    window = None if info.start_s is None or info.end_s is None else (info.start_s, info.end_s)
    with server.storage.read() as r:
        counted = r.counted(window) if window is not None else []
    tries = attempts(counted, frozen_from=None)
    board, _ = build_board(server.contest, tries)
    if info.pass_fail:  # its standings as the scoreboard ranks them
        standings = passfail_standings(server.contest, tries, [t.id for t in server.contest.teams])
        judged = Counter((a.team_id, a.problem_id) for a in tries if a.result is not None)
        board = replace(board, pass_fail=PassFailBoard(standings, info.penalty_s, dict(judged)))
    return results_json(board)


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def contest_package(server: ServedContest, sight: Sight) -> bytes:
    """The contest package archive."""
    _allowed(sight)
    parts: dict[str, Any] = {
        "api.json": api_json(),
        "contest.json": documents.contest(server, sight),
        "state.json": documents.state(server, sight),
        "judgement-types.json": documents.judgement_types(server, sight),
        "languages.json": documents.languages(server, sight),
        "problems.json": documents.problems(server, sight),
        "groups.json": documents.groups(server, sight),
        "organizations.json": documents.organizations(server, sight),
        "teams.json": documents.teams(server, sight),
        "accounts.json": documents.accounts(server, sight),
        "submissions.json": documents.submissions_doc(server, sight),
        "judgements.json": documents.judgements(server, sight),
        "runs.json": documents.runs(server, sight),
        "awards.json": documents.awards(server, sight),
        "clarifications.json": documents.clarifications(server, sight),
        "scoreboard.json": documents.scoreboard_doc(server, sight),
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, obj in parts.items():
            zf.writestr(name, _dump(obj))
        with server.storage.read() as r:
            zf.writestr("event-feed.ndjson", "".join(all_lines(r, sight)))
            for s in parts["submissions.json"]:
                zf.writestr(f"submissions/{s['id']}/files.zip", r.submission_files(int(s["id"])) or b"")
    return buf.getvalue()
