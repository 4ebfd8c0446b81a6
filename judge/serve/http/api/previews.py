"""Our extension endpoints for package versions and rejudge previews (issue 33, docs/live-fuzzing.md): each
handler turns HTTP into one service call (services/judging/previews.py, preview_view.py). Reading and starting a
preview: judges and admins; applying, discarding, uploading: admins; everyone else gets the refusal the
other jury endpoints give."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse, Response

from judge.serve.http.api.context import Ctx
from judge.serve.http.ids import number_id
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.services.judging import previews
from judge.serve.services.judging.preview_view import PreviewView, preview_view

ZIP = "application/zip"


def preview_json(v: PreviewView) -> dict[str, Any]:
    p = v.preview
    return {
        "id": str(p.id),
        "problem_id": p.problem_id,
        "version": p.version,
        "base_version": p.base_version,
        "kind": p.kind,
        "counterexample_id": None if p.counterexample_id is None else str(p.counterexample_id),
        "test_name": p.test_name,
        "state": p.state,
        "message": p.message,
        "stale": v.stale,
        # a rejudging set (issue 47, kind "rejudge"): what it rejudges, whether it applies itself, who started it
        "scope": json.loads(p.scope) if p.scope else None,
        "auto_apply": p.auto_apply,
        "created_by": p.created_by or None,
        "created_time": format_time(p.created_s),
        "runs": [
            {
                "submission_id": str(r.run.submission_id),
                "team_id": r.team_id,
                "verdict_before": r.run.verdict_before,
                "verdict_after": r.run.verdict_after,
                "score_before": r.run.score_before,
                "score_after": r.run.score_after,
                "failing_test": r.run.failing_test,
                "changes": r.changes,
            }
            for r in v.runs
        ],
        "board": [
            {
                "team_id": c.team_id,
                "rank_before": c.rank_before,
                "rank_after": c.rank_after,
                "score_before": c.score_before,
                "score_after": c.score_after,
            }
            for c in v.board
        ],
    }


def _started(preview_id: int) -> Response:
    return JSONResponse({"id": str(preview_id)}, status_code=202)


def add_as_test(ctx: Ctx) -> Response:
    """Start a preview of the counterexample as a new secret test: 202 with the preview's id."""
    ctx.contest()
    return _started(previews.add_as_test(ctx.server, ctx.viewer, number_id(ctx.param("id")), ctx.now))


def get_preview(ctx: Ctx) -> Any:
    ctx.contest()
    return preview_json(preview_view(ctx.server, ctx.viewer, number_id(ctx.param("id")), ctx.now))


def apply(ctx: Ctx) -> Any:
    """Apply a ready preview (admins): the submissions rejudged."""
    ctx.contest()
    queued = previews.apply(ctx.server, ctx.viewer, number_id(ctx.param("id")), ctx.now)
    return JSONResponse({"submission_ids": [str(s) for s in queued]}, status_code=202)


def discard(ctx: Ctx) -> Response:
    ctx.contest()
    previews.discard(ctx.server, ctx.viewer, number_id(ctx.param("id")), ctx.now)
    return Response(status_code=204)


def upload(ctx: Ctx) -> Response:
    """A new package version (the zip is the body): 202 with its preview's id."""
    ctx.contest()
    if not ctx.body:
        raise Refused(400, "the body must be the package as a zip")
    return _started(previews.upload_package(ctx.server, ctx.viewer, ctx.param("id"), ctx.body, ctx.now))
