"""The endpoints that change something: a submission (the spec's team-submit case, and admin-submit), the
thaw (the spec's PATCH of ``scoreboard_thaw_time``) and rejudging (our extension: POST
``submissions/<id>/rejudge`` or ``problems/<id>/rejudge``, judges and admins)."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response

from judge.serve.auth import Role
from judge.serve.context import Ctx, number_id
from judge.serve.events import ADMIN, PUBLIC, publish, publish_if_changed
from judge.serve.queue import enqueue
from judge.serve.records import submission_json
from judge.serve.times import TimeError, format_time, parse_time
from judge.serve.upload import Refused, check_upload, parse_upload


def submit(ctx: Ctx) -> Response:
    ctx.contest()
    ctx.authenticated("submit")
    viewer, server = ctx.viewer, ctx.server
    info = server.contest.info
    if viewer.role not in (Role.TEAM, Role.ADMIN):
        raise Refused(403, "only team and admin accounts may submit")
    admin = viewer.role is Role.ADMIN
    upload = parse_upload(ctx.json(), staff=admin)
    now = ctx.now
    if admin:
        if upload.team_id is None:
            raise Refused(400, "`team_id` is required when an admin submits")
        if server.contest.team(upload.team_id) is None:
            raise Refused(400, f"unknown team {upload.team_id!r}")
        team_id = upload.team_id
        try:
            time_s = now if upload.time is None else parse_time(upload.time, "time")
        except TimeError as exc:
            raise Refused(400, str(exc)) from None
    else:
        assert viewer.team_id is not None
        if upload.team_id is not None and upload.team_id != viewer.team_id:
            raise Refused(403, f"you are team {viewer.team_id}: you cannot submit for team {upload.team_id}")
        team_id = viewer.team_id
        if info.start_s is None:
            raise Refused(403, "the contest has no start time yet: submissions are closed")
        if not server.timeline.started(now):
            raise Refused(403, f"the contest has not started: it starts at {format_time(info.start_s)}")
        if not server.timeline.running(now):
            assert info.end_s is not None
            raise Refused(403, f"the contest is over: it ended at {format_time(info.end_s)}")
        time_s = now
    _, entry_point = check_upload(upload, server.contest, server.languages, staff=admin)
    with server.db.write() as conn:
        if not admin:
            window = conn.execute(
                "SELECT count(*), min(time_s) FROM submissions WHERE team_id = ? AND time_s > ?",
                (team_id, now - info.rate_seconds),
            ).fetchone()
            if window[0] >= info.rate_submissions:
                wait = max(1, int(window[1] + info.rate_seconds - now + 0.999))
                raise Refused(
                    429,
                    f"too many submissions: at most {info.rate_submissions} per {info.rate_seconds:g} s; "
                    f"try again in {wait} s",
                    {"Retry-After": str(wait)},
                )
        cur = conn.execute(
            "INSERT INTO submissions (team_id, account_id, problem_id, language_id, entry_point, time_s, files) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (team_id, viewer.account_id, upload.problem_id, upload.language_id, entry_point, time_s, upload.files_zip),
        )
        sid = int(cur.lastrowid or 0)
        enqueue(conn, sid, "submit", now)
        row = conn.execute("SELECT * FROM submissions WHERE id = ?", (sid,)).fetchone()
        obj = submission_json(row, info)
        in_contest = info.start_s is not None and info.end_s is not None and info.start_s <= time_s < info.end_s
        publish(conn, "submissions", str(sid), obj, now=now, scope=PUBLIC if in_contest else ADMIN, team_id=team_id)
    server.bus.notify()
    server.judging.wake()
    return JSONResponse(obj, status_code=201, headers={"Location": f"/api/contests/{info.id}/submissions/{sid}"})


def patch_contest(ctx: Ctx) -> Response:
    """The spec's thaw: ``{"id": <contest id>, "scoreboard_thaw_time": <TIME>}``, admins only."""
    ctx.contest()
    ctx.admin("change the contest")
    server = ctx.server
    info = server.contest.info
    body = ctx.json()
    if not isinstance(body, dict):
        raise Refused(400, 'the body must be a JSON object like {"id": ..., "scoreboard_thaw_time": ...}')
    if "id" not in body:
        raise Refused(400, "`id` (the contest's) is required")
    if body["id"] != info.id:
        raise Refused(409, f"the body's id {body['id']!r} is not this contest's ({info.id!r})")
    if "start_time" in body or "countdown_pause_time" in body:
        raise Refused(403, "changing the start time is not supported: edit contest.yaml and restart")
    unknown = sorted(set(body) - {"id", "scoreboard_thaw_time"})
    if unknown or "scoreboard_thaw_time" not in body:
        raise Refused(400, "only `scoreboard_thaw_time` can be changed")
    try:
        thaw = parse_time(body["scoreboard_thaw_time"], "scoreboard_thaw_time")
    except TimeError as exc:
        raise Refused(400, str(exc)) from None
    if server.timeline.freeze_s is None:
        raise Refused(403, "this contest's scoreboard is never frozen: nothing to thaw")
    if server.timeline.thawed_at is not None:
        raise Refused(403, f"the scoreboard was thawed at {format_time(server.timeline.thawed_at)}")
    assert info.end_s is not None
    if thaw < info.end_s:
        raise Refused(403, f"the thaw time must not be before the contest ends ({format_time(info.end_s)})")
    past = thaw <= ctx.now
    server.timeline.set_thaw(ctx.now if past else thaw)
    obj = _publish_contest(ctx)
    return JSONResponse(obj) if past else Response(status_code=204)


def freeze_now(ctx: Ctx) -> dict[str, Any]:
    """Freeze the scoreboard now (admins; an organizer's page action: the Contest API has no call for
    it). Returns the contest object with its new scoreboard_freeze_duration."""
    ctx.contest()
    ctx.admin("freeze the scoreboard")
    server = ctx.server
    try:
        server.timeline.freeze_now()
    except ValueError as exc:
        raise Refused(409, str(exc)) from None
    return _publish_contest(ctx)


def _publish_contest(ctx: Ctx) -> dict[str, Any]:
    """Publish the contest object after a change to its freeze or thaw; return it."""
    server = ctx.server
    obj = server.timeline.contest_json()
    with server.db.write() as conn:
        publish_if_changed(conn, "contest", None, obj, now=ctx.now)
    server.bus.notify()
    return obj


def _rejudge(ctx: Ctx, where: str, args: tuple[Any, ...]) -> Response:
    server = ctx.server
    queued = []
    with server.db.write() as conn:
        rows = conn.execute(f"SELECT id FROM submissions WHERE {where} ORDER BY id", args).fetchall()  # noqa: S608
        for r in rows:
            busy = conn.execute("SELECT 1 FROM jobs WHERE submission_id = ? AND done = 0", (r["id"],)).fetchone()
            if busy is None:
                enqueue(conn, r["id"], "rejudge", ctx.now)
                queued.append(str(r["id"]))
    server.judging.wake()
    return JSONResponse({"submission_ids": queued}, status_code=202)


def rejudge_submission(ctx: Ctx) -> Response:
    ctx.contest()
    ctx.staff("rejudge")
    sid = number_id(ctx.param("id"))
    if sid is None or ctx.server.db.conn().execute("SELECT 1 FROM submissions WHERE id = ?", (sid,)).fetchone() is None:
        raise Refused(404, f"no submission {ctx.param('id')!r}")
    return _rejudge(ctx, "id = ?", (sid,))


def rejudge_problem(ctx: Ctx) -> Response:
    ctx.contest()
    ctx.staff("rejudge")
    pid = ctx.param("id")
    if ctx.server.contest.problem(pid) is None:
        raise Refused(404, f"no problem {pid!r}")
    return _rejudge(ctx, "problem_id = ?", (pid,))
