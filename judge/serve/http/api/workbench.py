"""The API's endpoints of the jury's workbench (issue 47), our extensions (docs/serve.md):

- ``POST /api/contests/<id>/rejudgings``: a rejudging set, ``{"submission_id" | "problem_id" | "language_id" |
  "team_id": ..., or "contest": true, "auto_apply": false}`` (202 ``{"id", "submission_ids"}``); without
  ``auto_apply`` its judgements wait for the jury's apply. ``POST .../submissions/<id>/rejudge`` and
  ``.../problems/<id>/rejudge`` (before issue 47) make one too, applying itself unless the body says
  ``{"auto_apply": false}``. ``GET .../rejudgings``: every set; ``POST .../rejudgings/<id>/apply``,
  ``.../cancel``; a set is read as ``GET .../previews/<id>`` (issue 33's previews: the same table).

- ``GET /api/contests/<id>/verification``: whether judgements need a judge's verification, and those that
  await it (the jury's).
- ``GET /api/contests/<id>/runs/<run>/output``: what a run's passes printed (base64, as kept: the first
  ``output_storage.run_kib`` of each), how each ended, the validator's messages, and the first bytes of the
  test's input and answer. Whoever may read it (visibility.sees_run_output: the jury; a team, of its own
  runs, as contest.yaml's ``team_outputs`` says); anyone else gets the 404 of a run that does not exist.
"""

from __future__ import annotations

import base64
from typing import Any

from starlette.responses import JSONResponse, Response

from judge.serve.http.api.context import Ctx
from judge.serve.http.ids import number_id
from judge.serve.model.apijson import judgement_id
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.services.judging import rejudgings, run_output, verification
from judge.serve.services.judging.run_output import PassOutput, Shown
from judge.serve.services.people import access


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def _head(shown: Shown | None) -> dict[str, Any] | None:
    if shown is None:
        return None
    return {"data": _b64(shown.head), "size": shown.size, "truncated": shown.cut}


def _pass_json(p: PassOutput, staff: bool) -> dict[str, Any]:
    d = p.detail
    out: dict[str, Any] = {
        "pass": d.pass_n,
        "exit_code": d.exit_code,
        "signal": d.signal,
        "run_time": round(d.time_s, 3),
        "wall_time": round(d.wall_time_s, 3),
        "memory_kib": d.memory_kib,
        "output": _b64(d.output),  # None: not kept (the contest's cap)
        "output_size": d.output_bytes,
        "stderr": _b64(d.stderr),
        "stderr_size": d.stderr_bytes,
        "input": _b64(d.input),  # a multi-pass test's later pass: its own input
        "team_message": d.team_message,
        "first_difference": None if p.diff is None else p.diff.first_difference,
    }
    if staff:
        out["verdict"] = d.verdict
        out["judge_message"] = d.judge_message
    return out


def get_run_output(ctx: Ctx) -> Any:
    ctx.contest()
    found = run_output.find_api_run(ctx.server, ctx.sight, ctx.param("id"))
    out = run_output.run_output(ctx.server, ctx.sight, found)
    return {
        "id": ctx.param("id"),
        "test": out.run.name,
        "interactive": out.interactive,
        "passes": [_pass_json(p, out.messages) for p in out.passes],
        "input": _head(out.input),
        "answer": _head(out.answer),
    }


# --------------------------------------------------------------------------------------------- rejudgings


def _body(ctx: Ctx) -> dict[str, Any]:
    """The JSON object of the body (none: {}), read once the viewer may rejudge."""
    access.staff(ctx.viewer, "rejudge")
    if not ctx.body.strip():
        return {}
    body = ctx.json()
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    return body


def _auto_apply(body: dict[str, Any], default: bool) -> bool:
    value = body.get("auto_apply", default)
    if not isinstance(value, bool):
        raise Refused(400, f"`auto_apply` must be true or false, not {value!r}")
    return value


def _started(started: rejudgings.Started) -> Response:
    return JSONResponse(
        {"id": str(started.rejudging_id), "submission_ids": [str(s) for s in started.queued]}, status_code=202
    )


def rejudge(ctx: Ctx, kind: str, value: str, *, default_auto_apply: bool) -> Response:
    body = _body(ctx)
    auto = _auto_apply(body, default_auto_apply)
    started = rejudgings.start(ctx.server, ctx.viewer, kind, value, ctx.now, auto_apply=auto, id_of=number_id(value))
    answer = {"submission_ids": [str(s) for s in started.queued], "rejudging_id": str(started.rejudging_id)}
    return JSONResponse(answer, status_code=202)


def post_rejudging(ctx: Ctx) -> Response:
    """A rejudging set of what the body names (one of ``submission_id``, ``problem_id``, ``language_id``,
    ``team_id``, ``contest: true``)."""
    ctx.contest()
    body = _body(ctx)
    named = [k for k in ("submission_id", "problem_id", "language_id", "team_id", "contest") if k in body]
    if len(named) != 1:
        raise Refused(400, "name one of submission_id, problem_id, language_id, team_id, or contest: true")
    key = named[0]
    value = body[key]
    if key == "contest":
        if value is not True:
            raise Refused(400, "`contest` must be true")
        value = ""
    elif not isinstance(value, str):
        raise Refused(400, f"`{key}` must be a string")
    kind = key.removesuffix("_id")
    auto = _auto_apply(body, False)
    started = rejudgings.start(ctx.server, ctx.viewer, kind, value, ctx.now, auto_apply=auto, id_of=number_id(value))
    return _started(started)


def get_rejudgings(ctx: Ctx) -> Any:
    ctx.contest()
    return [
        {
            "id": str(s.record.id),
            "scope": rejudgings.scope_text(s.record),
            "state": s.record.state,
            "auto_apply": s.record.auto_apply,
            "created_by": s.record.created_by,
            "created_time": format_time(s.record.created_s),
            "submissions": s.members,
            "left": s.left,
            "changes": s.changed,
            "message": s.record.message,
        }
        for s in rejudgings.rejudgings(ctx.server, ctx.viewer)
    ]


def apply_rejudging(ctx: Ctx) -> Response:
    ctx.contest()
    done = rejudgings.apply(ctx.server, ctx.viewer, number_id(ctx.param("id")), ctx.now)
    return JSONResponse(
        {"submission_ids": [str(s) for s in done.applied], "superseded": [str(s) for s in done.superseded]}
    )


def cancel_rejudging(ctx: Ctx) -> Response:
    ctx.contest()
    rejudgings.cancel(ctx.server, ctx.viewer, number_id(ctx.param("id")), ctx.now)
    return Response(status_code=204)


# --------------------------------------------------------------------------------------------- verification


def get_verification(ctx: Ctx) -> Any:
    """Whether judgements need a judge's verification, and those that await it (the jury's); a judge verifies
    one with ``POST .../submissions/<id>/review`` ``{"verified": true}``."""
    ctx.contest()
    waiting = verification.queue(ctx.server, ctx.viewer)
    return {
        "required": ctx.server.contest.info.verification_required,
        "awaiting": [
            {
                "judgement_id": judgement_id(w.judgement.submission_id, w.judgement.ordinal),
                "submission_id": str(w.submission.id),
                "team_id": w.submission.team_id,
                "problem_id": w.submission.problem_id,
                "verdict": w.judgement.verdict,
                "current": w.judgement.current,
                "end_time": None if w.judgement.end_s is None else format_time(w.judgement.end_s),
            }
            for w in waiting
        ],
    }
