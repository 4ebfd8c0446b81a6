"""The API's endpoints of running a contest live (issue 30), admins only. The Contest API defines no call
to add teams or accounts, so these are our extensions, named as such in docs/serve.md:

- ``PUT  /api/contests/<id>/teams/<team>``: add or replace a team (the spec's team object, and ``hidden``)
- ``PUT  /api/contests/<id>/groups/<group>``, ``.../organizations/<organization>``: add or replace one (the
  spec's object, as groups.json and organizations.json hold it)
- ``PUT  /api/contests/<id>/accounts/<account>``: add or replace an account (accounts.yaml's entry; without a
  ``password`` a new account gets a generated one, returned once)
- ``POST /api/contests/<id>/import/teams``, ``.../import/accounts``: a JSON array as teams.json or accounts.yaml
  hold it, all added or replaced at once (the generated passwords returned once)
- ``POST /api/contests/<id>/accounts/<account>/reset-password``: a new random password, returned once
- ``POST /api/contests/<id>/accounts/<account>/disable`` and ``.../enable``
- ``POST /api/contests/<id>/submissions/<submission>/ignore`` and ``.../unignore`` (staff)
- ``GET  /api/contests/<id>/judging`` (staff): paused, the held problems, how many queued;
  ``POST .../judging/pause``, ``.../judging/resume``, ``POST .../problems/<problem>/hold``, ``.../release``
- ``GET  /api/contests/<id>/judging/queue``, ``.../judging/judges``, ``.../judging/errors`` (staff)
- ``GET  /api/contests/<id>/balloons``, ``POST .../balloons/<submission>/done`` (staff)
- ``POST /api/contests/<id>/submissions/<submission>/review`` (staff): ``{"verified": bool, "comment": str}``
  for its current judgement
- ``POST /api/contests/<id>/prints`` (teams, staff): ``{"filename": ..., "text": ...}``; ``GET .../prints``
  (staff: all; a team: its own)
- ``GET  /api/contests/<id>/audit-log``: who did what, when (newest first)
- ``GET  /api/contests/<id>/fuzzing``, ``.../fuzzing/jobs``, ``.../counterexamples[/<id>]``: live fuzzing
  (issue 33), the jury only
"""

from __future__ import annotations

import base64
import json
from typing import Any

from starlette.responses import JSONResponse

from judge.serve.http.api.context import Ctx
from judge.serve.http.ids import number_id
from judge.serve.http.live_views import balloon_json, errors_json, hold_json, judges_json, print_json, queue_json
from judge.serve.model.apijson import submission_json
from judge.serve.model.errors import Refused
from judge.serve.model.records import Counterexample
from judge.serve.model.times import format_reltime, format_time
from judge.serve.services.desk import balloons, printing
from judge.serve.services.judging import fuzzing, moderation, operations
from judge.serve.services.people import access, audit, roster


def put_team(ctx: Ctx) -> Any:
    ctx.contest()
    return roster.put_team(ctx.server, ctx.viewer, ctx.param("id"), _body(ctx), ctx.now)


def put_account(ctx: Ctx) -> Any:
    ctx.contest()
    obj, password = roster.put_account(ctx.server, ctx.viewer, ctx.param("id"), _body(ctx), ctx.now)
    answer = {**obj, "password": password} if password is not None else obj
    return JSONResponse(answer, headers={"Cache-Control": "no-store"})


def _body(ctx: Ctx) -> Any:
    """The JSON body, read once the viewer may change the roster (a team or public gets 401/403 first)."""
    access.admin(ctx.viewer, "change teams and accounts")
    return ctx.json()


def put_group(ctx: Ctx) -> Any:
    ctx.contest()
    return roster.put_object(ctx.server, ctx.viewer, "groups", ctx.param("id"), _body(ctx), ctx.now)


def put_organization(ctx: Ctx) -> Any:
    ctx.contest()
    return roster.put_object(ctx.server, ctx.viewer, "organizations", ctx.param("id"), _body(ctx), ctx.now)


def import_teams(ctx: Ctx) -> Any:
    return _import(ctx, "teams.json")


def import_accounts(ctx: Ctx) -> Any:
    return _import(ctx, "accounts.json")


def _import(ctx: Ctx, name: str) -> Any:
    """A JSON array, as teams.json or accounts.yaml (in JSON) hold it: every entry added or replaced."""
    ctx.contest()
    body = _body(ctx)
    generated = roster.import_entries(ctx.server, ctx.viewer, (name, json.dumps(body)), ctx.now)
    answer = {"imported": len(body), "passwords": [{"username": u, "password": p} for u, p in generated]}
    return JSONResponse(answer, headers={"Cache-Control": "no-store"})


def reset_password(ctx: Ctx) -> Any:
    ctx.contest()
    password = roster.reset_password(ctx.server, ctx.viewer, ctx.param("id"), ctx.now)
    return JSONResponse({"id": ctx.param("id"), "password": password}, headers={"Cache-Control": "no-store"})


def disable(ctx: Ctx) -> Any:
    ctx.contest()
    return roster.set_disabled(ctx.server, ctx.viewer, ctx.param("id"), True, ctx.now)


def enable(ctx: Ctx) -> Any:
    ctx.contest()
    return roster.set_disabled(ctx.server, ctx.viewer, ctx.param("id"), False, ctx.now)


def ignore(ctx: Ctx) -> Any:
    return _ignored(ctx, True)


def unignore(ctx: Ctx) -> Any:
    return _ignored(ctx, False)


def _ignored(ctx: Ctx, ignored: bool) -> Any:
    ctx.contest()
    what = ctx.param("id")
    sub = moderation.set_ignored(ctx.server, ctx.viewer, number_id(what), ignored, ctx.now, what=what)
    return {**submission_json(sub, ctx.server.contest.info), "ignored": sub.ignored}


def judging_state(ctx: Ctx) -> Any:
    ctx.contest()
    view = operations.queue(ctx.server, ctx.viewer)
    return {**hold_json(view.hold), "queued": len(view.jobs)}


def pause(ctx: Ctx) -> Any:
    ctx.contest()
    return hold_json(operations.set_paused(ctx.server, ctx.viewer, True, ctx.now))


def resume(ctx: Ctx) -> Any:
    ctx.contest()
    return hold_json(operations.set_paused(ctx.server, ctx.viewer, False, ctx.now))


def hold(ctx: Ctx) -> Any:
    ctx.contest()
    return hold_json(operations.hold_problem(ctx.server, ctx.viewer, ctx.param("id"), True, ctx.now))


def release(ctx: Ctx) -> Any:
    ctx.contest()
    return hold_json(operations.hold_problem(ctx.server, ctx.viewer, ctx.param("id"), False, ctx.now))


def judging_queue(ctx: Ctx) -> Any:
    ctx.contest()
    return queue_json(operations.queue(ctx.server, ctx.viewer), ctx.now)


def judges(ctx: Ctx) -> Any:
    ctx.contest()
    return judges_json(operations.judges(ctx.server, ctx.viewer), ctx.now)


def judging_errors(ctx: Ctx) -> Any:
    ctx.contest()
    return errors_json(operations.errors(ctx.server, ctx.viewer))


def balloon_list(ctx: Ctx) -> Any:
    ctx.contest()
    return [balloon_json(b) for b in balloons.balloon_list(ctx.server, ctx.viewer)]


def balloon_done(ctx: Ctx) -> Any:
    ctx.contest()
    balloons.mark_done(ctx.server, ctx.viewer, number_id(ctx.param("id")), True, ctx.now)
    return {"submission_id": ctx.param("id"), "done": True}


def review(ctx: Ctx) -> Any:
    """``{"verified": true, "comment": "..."}`` for the submission's current judgement."""
    ctx.contest()
    access.staff(ctx.viewer, "verify judgements")
    body = ctx.json()
    if not isinstance(body, dict) or not isinstance(body.get("verified"), bool):
        raise Refused(400, 'the body must be like {"verified": true, "comment": "..."}')
    comment = body.get("comment", "")
    if not isinstance(comment, str):
        raise Refused(400, "`comment` must be a string")
    asked = moderation.Review(body["verified"], comment)
    rv = moderation.review(ctx.server, ctx.viewer, number_id(ctx.param("id")), asked, ctx.now)
    return {"verified": rv.verified, "comment": rv.comment, "by": rv.username, "time": format_time(rv.time_s)}


def post_print(ctx: Ctx) -> Any:
    """``{"filename": "a.py", "text": "..."}``: a print-out (teams, and the jury)."""
    ctx.contest()
    access.authenticated(ctx.viewer, "print")
    body = ctx.json()
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        raise Refused(400, 'the body must be like {"filename": "a.py", "text": "..."}')
    given = body.get("filename")
    name = given if isinstance(given, str) else "print.txt"
    sent = printing.submit_print(ctx.server, ctx.viewer, name, body["text"].encode("utf-8"), ctx.now)
    return JSONResponse(print_json(sent), status_code=201)


def get_prints(ctx: Ctx) -> Any:
    ctx.contest()
    return [print_json(p) for p in printing.print_list(ctx.server, ctx.viewer)]


def audit_log(ctx: Ctx) -> Any:
    ctx.contest()
    return [
        {
            "id": str(e.id),
            "time": format_time(e.time_s),
            "account_id": e.account_id,
            "username": e.username,
            "action": e.action,
            "detail": e.detail,
        }
        for e in audit.audit_log(ctx.server, ctx.viewer)
    ]


def _counterexample_json(c: Counterexample, full: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(c.id),
        "problem_id": c.problem_id,
        "submission_id": str(c.submission_id),
        "verdict": c.verdict,
        "message": c.message,
        "confirmed": c.confirmed,
        "found_time": format_time(c.found_s),
        "team_id": c.team_id,
        "fuzz_job_id": None if c.fuzz_job_id is None else str(c.fuzz_job_id),
        "truncated": c.truncated,
        "added_as": c.added_as,  # the test its input is (through it or another counterexample); None: not a test
        "input_size": len(c.input),
        "output_size": None if c.output is None else len(c.output),
    }
    if full:
        data["input"] = base64.b64encode(c.input).decode()
        data["answer"] = base64.b64encode(c.answer).decode()
        data["output"] = None if c.output is None else base64.b64encode(c.output).decode()
    return data


def counterexamples(ctx: Ctx) -> Any:
    """Live fuzzing's counterexamples, newest first (``?problem_id=``): the jury only (issue 33)."""
    ctx.contest()
    found = fuzzing.counterexamples(ctx.server, ctx.viewer, ctx.now, ctx.query.get("problem_id"))
    return [_counterexample_json(c, full=False) for c in found]


def counterexample(ctx: Ctx) -> Any:
    """One counterexample with its input, the reference's answer and the submission's output (base64)."""
    ctx.contest()
    return _counterexample_json(
        fuzzing.counterexample(ctx.server, ctx.viewer, ctx.now, number_id(ctx.param("id"))), True
    )


def fuzzing_summary(ctx: Ctx) -> Any:
    """Live fuzzing per problem: fuzzable, fuzzed, survived, counterexamples, errors, queued, running."""
    ctx.contest()
    return [vars(p) for p in fuzzing.summary(ctx.server, ctx.viewer, ctx.now)]


def fuzz_jobs(ctx: Ctx) -> Any:
    """The fuzz jobs, newest first (``?problem_id=``)."""
    ctx.contest()
    out = []
    for view in fuzzing.fuzz_jobs(ctx.server, ctx.viewer, ctx.now, ctx.query.get("problem_id")):
        j = view.job
        out.append(
            {
                "id": str(j.id),
                "problem_id": j.problem_id,
                "submission_id": str(j.submission_id),
                "team_id": j.team_id,
                "state": j.state.value,
                "examples": j.examples_done,
                "fuzz_time": format_reltime(j.spent_s),
                "attempts": j.attempts,
                "message": j.message,
                "queued_time": format_time(j.queued_s),
                "finished_time": None if j.finished_s is None else format_time(j.finished_s),
                "counterexample_id": None if view.counterexample_id is None else str(view.counterexample_id),
            }
        )
    return out
