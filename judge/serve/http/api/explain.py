"""The API's extension for counterexamples of rejected submissions (issue 46; docs/serve.md, "Counterexamples"):

- ``GET /api/contests/<id>/submissions/<submission>/counterexample``: the submission's search as the viewer
  sees it (services/judging/explaining.py asks visibility.counterexample_sight): the jury always, the
  submission's team under ``counterexamples: team``; anyone else, and a submission without one, the same 404
- ``GET .../counterexample/input``, ``.../answer``, ``.../output``: the files, for whoever sees it in full
"""

from __future__ import annotations

import base64
from typing import Any

from starlette.responses import Response

from judge.judging.verdict import Verdict
from judge.serve.http.api.context import Ctx
from judge.serve.http.files import download
from judge.serve.http.ids import number_id
from judge.serve.model.apijson import judgement_type
from judge.serve.model.times import format_time
from judge.serve.services.judging import explaining
from judge.serve.services.judging.explaining import PARTS, Shown


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _verdict(value: str | None, staff: bool) -> str | None:
    """Ours for the jury (PV stays PV), the spec's judgement type for a team (as the judgements show it)."""
    if value is None:
        return None
    return value if staff else judgement_type(Verdict(value))


def counterexample_json(found: Shown, staff: bool, href: str) -> dict[str, Any]:
    """A submission's counterexample search as the viewer sees it (``href``: its URL, the files' base)."""
    search, result = found.search, found.search.result
    doc: dict[str, Any] = {
        "submission_id": str(search.submission_id),
        "problem_id": search.problem_id,
        "status": found.status,
        "verdict": _verdict(search.verdict, staff),
    }
    if found.status == "limit":
        doc["per_team"] = search.policy.per_team
    if found.full and result is not None and search.found:
        doc |= {
            "failure": _verdict(None if result.failure is None else result.failure.value, staff),
            "input": _b64(result.input),
            "answer": _b64(result.answer),
            "output": _b64(result.output),
            "message": result.message,
            "transcript": result.transcript,
            "files": {p: f"{href}/{p}" for p in PARTS if getattr(result, p) is not None},
        }
    if result is not None:
        doc |= {"examples": result.examples, "elapsed_s": round(result.elapsed_s, 3)}
        if found.full and search.found:
            doc["found_after_s"] = round(result.found_after_s, 3)
    if staff:
        doc |= {
            "id": str(search.id),
            "team_id": search.team_id,
            "state": search.state.value,
            "policy": search.policy.to_json(),
            "team_shown": search.team_shown,
            "withheld": search.withheld,
            "attempts": search.attempts,
            "note": "" if result is None else result.note,
            "cancelled": search.message,
            "package_hash": search.package_hash,
            "queued": format_time(search.queued_s),
            "finished": None if search.finished_s is None else format_time(search.finished_s),
        }
    return doc


def get_counterexample(ctx: Ctx) -> Any:
    ctx.contest()
    what = ctx.param("id")
    found = explaining.counterexample(ctx.server, ctx.sight, number_id(what), what=what)
    href = f"/api/contests/{ctx.server.contest.info.id}/submissions/{found.submission.id}/counterexample"
    return counterexample_json(found, ctx.viewer.staff, href)


def get_counterexample_file(ctx: Ctx) -> Response:
    ctx.contest()
    what, part = ctx.param("id"), ctx.param("part")
    submission_id = number_id(what)
    data = explaining.counterexample_file(ctx.server, ctx.sight, submission_id, part, what=what)
    response = download(data, "application/octet-stream", f"submission-{submission_id}{PARTS[part]}")
    response.headers["Cache-Control"] = "private, no-store"
    return response
