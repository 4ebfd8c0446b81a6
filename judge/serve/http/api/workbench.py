"""The API's endpoints of the jury's workbench (issue 47), our extensions (docs/serve.md):

- ``GET /api/contests/<id>/runs/<run>/output``: what a run's passes printed (base64, as kept: the first
  ``output_storage.run_kib`` of each), how each ended, the validator's messages, and the first bytes of the
  test's input and answer. Whoever may read it (visibility.sees_run_output: the jury; a team, of its own
  runs, as contest.yaml's ``team_outputs`` says); anyone else gets the 404 of a run that does not exist.
"""

from __future__ import annotations

import base64
from typing import Any

from judge.serve.http.api.context import Ctx
from judge.serve.services.judging import run_output
from judge.serve.services.judging.run_output import PassOutput, Shown


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
