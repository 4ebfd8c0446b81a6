"""The Contest API's read endpoints, and the one route table of the app (app.py turns it into routes).

Visibility (docs/serve.md): the public sees the contest, its state, judgement types, languages, problems
(from the start on), groups, organizations, teams, the submissions made during the contest (not their
files), their judgements (not during the freeze), the frozen scoreboard and the event feed of all that.
A team sees the same plus its own account, its own files, its own runs and its own judgements during the
freeze. Judges and admins see everything, live.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from starlette.responses import Response

from judge.serve import actions, events, feed
from judge.serve.auth import Role, Viewer
from judge.serve.context import Ctx, number_id
from judge.serve.records import (
    account_json,
    api_json,
    judgement_json,
    judgement_types_json,
    judgements_visible,
    language_json,
    problem_json,
    run_json,
    runs_visible,
    select_judgements,
    select_runs,
    select_submissions,
    statement_mime,
    submission_json,
    submissions_visible,
    team_json,
)
from judge.serve.scoreboard import attempts, scoreboard_json, scoreboard_rows
from judge.serve.upload import Refused

# The endpoints (types as `access` names them) and the properties we serve, and who sees them.
PROPERTIES: dict[str, tuple[str, ...]] = {
    "contest": (
        "id",
        "name",
        "formal_name",
        "start_time",
        "duration",
        "scoreboard_freeze_duration",
        "scoreboard_thaw_time",
        "scoreboard_type",
    ),
    "judgement-types": ("id", "name", "solved"),
    "languages": ("id", "name", "entry_point_required", "extensions"),
    "problems": (
        "id",
        "label",
        "name",
        "ordinal",
        "rgb",
        "color",
        "time_limit",
        "memory_limit",
        "output_limit",
        "code_limit",
        "test_data_count",
        "max_score",
        "statement",
    ),
    "groups": ("id", "icpc_id", "name", "type"),
    "organizations": ("id", "icpc_id", "name", "formal_name", "country", "country_subdivision", "url"),
    "teams": ("id", "icpc_id", "name", "label", "display_name", "organization_id", "group_ids"),
    "accounts": ("id", "username", "name", "type", "team_id"),
    "state": ("started", "frozen", "ended", "thawed", "finalized", "end_of_updates"),
    "submissions": ("id", "language_id", "problem_id", "team_id", "time", "contest_time", "entry_point", "files"),
    "judgements": (
        "id",
        "submission_id",
        "judgement_type_id",
        "score",
        "current",
        "start_time",
        "start_contest_time",
        "end_time",
        "end_contest_time",
        "max_run_time",
    ),
    "runs": ("id", "judgement_id", "ordinal", "judgement_type_id", "time", "contest_time", "run_time"),
    "clarifications": (
        "id",
        "from_team_id",
        "to_team_ids",
        "to_group_ids",
        "reply_to_id",
        "problem_id",
        "text",
        "time",
        "contest_time",
    ),
    "scoreboard": ("time", "contest_time", "state", "rows"),
    "event-feed": ("type", "id", "data", "token"),
}
CAPABILITIES = {Role.TEAM: ["team_submit"], Role.ADMIN: ["contest_thaw", "admin_submit"]}


def filtered(items: list[dict[str, Any]], ctx: Ctx, kind: str) -> list[dict[str, Any]]:
    """The spec's filtering: ``?team_id=X`` on any ID property (an empty value matches null)."""
    keys = [k for k in PROPERTIES[kind] if k.endswith("_id") and k in ctx.query]
    for k in keys:
        want = ctx.query[k]
        items = [o for o in items if str(o.get(k) if o.get(k) is not None else "") == want]
    return items


def one(items: Sequence[dict[str, Any]], ctx: Ctx, what: str) -> dict[str, Any]:
    oid = ctx.param("id")
    for o in items:
        if str(o.get("id")) == oid:
            return o
    raise Refused(404, f"no {what} {oid!r}")


# --------------------------------------------------------------------------------------------- metadata


def get_api(ctx: Ctx) -> Any:
    return api_json()


def get_contests(ctx: Ctx) -> Any:
    return [ctx.server.timeline.contest_json()]


def get_contest(ctx: Ctx) -> Any:
    ctx.contest()
    return ctx.server.timeline.contest_json()


def access_json(viewer: Viewer) -> dict[str, Any]:
    return {
        "capabilities": CAPABILITIES.get(viewer.role, []),
        "endpoints": [{"type": kind, "properties": list(props)} for kind, props in PROPERTIES.items()],
    }


def get_access(ctx: Ctx) -> Any:
    ctx.contest()
    return access_json(ctx.viewer)


def get_state(ctx: Ctx) -> Any:
    ctx.contest()
    return ctx.server.timeline.state_json(ctx.now)


# --------------------------------------------------------------------------------------------- configuration


def judgement_types(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    return judgement_types_json()


def languages(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    return [language_json(lang) for lang in ctx.server.languages.values()]


def problems(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    if not ctx.viewer.staff and not ctx.server.timeline.started(ctx.now):
        return []  # problems are secret until the contest starts
    return [problem_json(p, ctx.server.contest.info.id) for p in ctx.server.contest.problems]


def problem_statement(ctx: Ctx) -> Response:
    """The statement file of the package (Markdown for ours; the spec expects PDF, any type is allowed)."""
    p = one(problems(ctx), ctx, "problem")
    cp = ctx.server.contest.problem(p["id"])
    assert cp is not None
    mime = statement_mime(cp)
    if cp.problem.statement is None or mime is None:
        raise Refused(404, f"problem {cp.id!r} has no statement")
    charset = "; charset=utf-8" if mime.startswith("text/") else ""
    return Response(cp.problem.statement.read_bytes(), media_type=mime + charset)


def groups(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    return [dict(g) for g in ctx.server.contest.groups]


def organizations(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    return [dict(o) for o in ctx.server.contest.organizations]


def teams(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    return [team_json(t) for t in ctx.server.contest.teams]


def accounts(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    return [account_json(a) for a in ctx.server.contest.accounts if ctx.viewer.staff or a.id == ctx.viewer.account_id]


def get_account(ctx: Ctx) -> Any:
    ctx.contest()
    ctx.authenticated("see your account")
    mine = next((a for a in ctx.server.contest.accounts if a.id == ctx.viewer.account_id), None)
    if mine is None:
        raise Refused(404, "your account is no longer in accounts.yaml")
    return account_json(mine)


def clarifications(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    return []  # not supported yet: always empty (docs/serve.md)


def collection(kind: str, getter: Callable[[Ctx], list[dict[str, Any]]]) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        return filtered(getter(ctx), ctx, kind)

    return handler


def item(kind: str, getter: Callable[[Ctx], list[dict[str, Any]]]) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        return one(getter(ctx), ctx, kind.rstrip("s").replace("-", " "))

    return handler


# --------------------------------------------------------------------------------------------- live data


def _by_id(ctx: Ctx) -> tuple[str, tuple[int, ...]]:
    if "id" not in ctx.params:
        return "1", ()
    n = number_id(ctx.param("id"))
    return ("0", ()) if n is None else ("{}.id = ?", (n,))


def submissions(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    info = ctx.server.contest.info
    extra, args = _by_id(ctx)
    rows = select_submissions(ctx.server.db.conn(), submissions_visible(ctx.viewer, info), extra.format("s"), args)
    return [submission_json(r, info) for r in rows]


def judgements(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    info = ctx.server.contest.info
    cond = judgements_visible(ctx.viewer, info, ctx.server.timeline.frozen_from(ctx.now))
    extra, args = _by_id(ctx)
    rows = select_judgements(ctx.server.db.conn(), cond, extra.format("j"), args)
    return [judgement_json(r, info) for r in rows]


def runs(ctx: Ctx) -> list[dict[str, Any]]:
    ctx.contest()
    if ctx.viewer.role is Role.PUBLIC:
        return []  # per-test results are for the team itself and the staff
    info = ctx.server.contest.info
    extra, args = _by_id(ctx)
    rows = select_runs(ctx.server.db.conn(), runs_visible(ctx.viewer, info), extra.format("r"), args)
    return [run_json(r, info) for r in rows]


def submission_files(ctx: Ctx) -> Response:
    ctx.contest()
    sid = number_id(ctx.param("id"))
    info = ctx.server.contest.info
    cond = submissions_visible(ctx.viewer, info)
    conn = ctx.server.db.conn()
    found = select_submissions(conn, cond, "s.id = ?", (sid,)) if sid is not None else []
    if not found:
        raise Refused(404, f"no submission {ctx.param('id')!r}")
    ctx.authenticated("download submission files")
    if not ctx.viewer.staff and found[0]["team_id"] != ctx.viewer.team_id:
        raise Refused(403, "a team may download only its own submissions")
    data = conn.execute("SELECT files FROM submissions WHERE id = ?", (sid,)).fetchone()["files"]
    return Response(
        bytes(data),
        media_type="application/zip",
        headers={"Content-Disposition": 'attachment; filename="files.zip"', "Cache-Control": "private"},
    )


def get_scoreboard(ctx: Ctx) -> Any:
    ctx.contest()
    server = ctx.server
    frozen_from = None if ctx.viewer.staff else server.timeline.frozen_from(ctx.now)
    show = ctx.viewer.staff or server.timeline.started(ctx.now)
    contest = server.contest
    group = ctx.query.get("group_id")
    if group is not None:  # the spec's group scoreboard: ranked among the group's teams only
        if all(g["id"] != group for g in contest.groups):
            raise Refused(400, f"no group {group!r}")
        contest = replace(contest, teams=tuple(t for t in contest.teams if group in t.group_ids))
    with server.db.read() as conn:
        info = contest.info
        key = (events.latest(conn), frozen_from, info.start_s, info.end_s, group, show)
        rows = server.boards.rows(
            key,
            lambda: scoreboard_rows(
                contest, attempts(conn, contest, frozen_from=frozen_from, all_times=False), show_problems=show
            ),
        )
    return scoreboard_json(contest, rows, server.timeline.state_json(ctx.now), ctx.now)


# --------------------------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class RouteSpec:
    method: str
    path: str
    handler: Callable[[Ctx], Any]
    stream: bool = False  # the handler is async and returns a streaming response (the event feed)
    body_limit: str = "small"  # small | submission


C = "/api/contests/{cid}"


def _config(kind: str, getter: Callable[[Ctx], list[dict[str, Any]]]) -> list[RouteSpec]:
    return [
        RouteSpec("GET", f"{C}/{kind}", collection(kind, getter)),
        RouteSpec("GET", f"{C}/{kind}/{{id}}", item(kind, getter)),
    ]


ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec("GET", "/api", get_api),
    RouteSpec("GET", "/api/", get_api),
    RouteSpec("GET", "/api/contests", get_contests),
    RouteSpec("GET", C, get_contest),
    RouteSpec("PATCH", C, actions.patch_contest),
    RouteSpec("GET", f"{C}/access", get_access),
    RouteSpec("GET", f"{C}/state", get_state),
    RouteSpec("GET", f"{C}/account", get_account),
    *_config("judgement-types", judgement_types),
    *_config("languages", languages),
    *_config("problems", problems),
    RouteSpec("GET", f"{C}/problems/{{id}}/statement", problem_statement),
    RouteSpec("POST", f"{C}/problems/{{id}}/rejudge", actions.rejudge_problem),
    *_config("groups", groups),
    *_config("organizations", organizations),
    *_config("teams", teams),
    *_config("accounts", accounts),
    *_config("clarifications", clarifications),
    *_config("submissions", submissions),
    RouteSpec("POST", f"{C}/submissions", actions.submit, body_limit="submission"),
    RouteSpec("GET", f"{C}/submissions/{{id}}/files", submission_files),
    RouteSpec("POST", f"{C}/submissions/{{id}}/rejudge", actions.rejudge_submission),
    *_config("judgements", judgements),
    *_config("runs", runs),
    RouteSpec("GET", f"{C}/scoreboard", get_scoreboard),
    RouteSpec("GET", f"{C}/event-feed", feed.event_feed, stream=True),
)
