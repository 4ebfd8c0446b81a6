"""The Contest API's endpoints, and the one route table of the app (app.py turns it into routes). Each
handler checks the URL's contest, calls one service (judge/serve/services) and returns its answer as JSON.

Visibility (judge/serve/visibility.py decides; docs/serve.md has the table): the public sees the contest,
its state, judgement types, languages, problems (from the start on), groups, organizations, teams, the
submissions made during the contest (not their files), their judgements (not during the freeze), the frozen
scoreboard and the event feed of all that. A team sees the same plus its own account, its own files, its own
runs and its own judgements during the freeze. Judges and admins see everything, live.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.responses import JSONResponse, Response

from judge.serve.http import feed
from judge.serve.http.context import Ctx, number_id
from judge.serve.model.apijson import account_json, api_json, statement_mime, submission_json
from judge.serve.model.errors import Refused
from judge.serve.model.upload import parse_upload
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services import config, control, documents, submissions
from judge.serve.services.server import Server
from judge.serve.visibility import Sight

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
    return [documents.contest(ctx.server, ctx.sight)]


def access_json(viewer: Viewer) -> dict[str, Any]:
    return {
        "capabilities": CAPABILITIES.get(viewer.role, []),
        "endpoints": [{"type": kind, "properties": list(props)} for kind, props in PROPERTIES.items()],
    }


def get_access(ctx: Ctx) -> Any:
    ctx.contest()
    return access_json(ctx.viewer)


def get_account(ctx: Ctx) -> Any:
    ctx.contest()
    return account_json(config.own_account(ctx.server, ctx.sight))


def problem_statement(ctx: Ctx) -> Response:
    """The statement file of the package (Markdown for ours; the spec expects PDF, any type is allowed)."""
    ctx.contest()
    cp = config.problem(ctx.server, ctx.sight, ctx.param("id"))
    mime = statement_mime(cp)
    if cp.problem.statement is None or mime is None:
        raise Refused(404, f"problem {cp.id!r} has no statement")
    charset = "; charset=utf-8" if mime.startswith("text/") else ""
    return Response(config.statement_bytes(cp), media_type=mime + charset)


def clarifications(server: Server, sight: Sight) -> list[dict[str, Any]]:
    return []  # not supported yet: always empty (docs/serve.md)


# --------------------------------------------------------------------------------------------- documents

Getter = Callable[[Server, Sight], Any]
Listing = Callable[[Server, Sight, "list[int] | None"], list[dict[str, Any]]]


def document(getter: Getter) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        ctx.contest()
        return getter(ctx.server, ctx.sight)

    return handler


def collection(kind: str, getter: Getter) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        ctx.contest()
        return filtered(getter(ctx.server, ctx.sight), ctx, kind)

    return handler


def item(kind: str, getter: Getter) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        ctx.contest()
        return one(getter(ctx.server, ctx.sight), ctx, kind.rstrip("s").replace("-", " "))

    return handler


def numbered(kind: str, listing: Listing) -> tuple[Callable[[Ctx], Any], Callable[[Ctx], Any]]:
    """The collection and item handlers of live data (numeric ids: an item is fetched by its id alone)."""

    def many(ctx: Ctx) -> Any:
        ctx.contest()
        return filtered(listing(ctx.server, ctx.sight, None), ctx, kind)

    def single(ctx: Ctx) -> Any:
        ctx.contest()
        n = number_id(ctx.param("id"))
        return one(listing(ctx.server, ctx.sight, [n]) if n is not None else [], ctx, kind.rstrip("s"))

    return many, single


def get_scoreboard(ctx: Ctx) -> Any:
    ctx.contest()
    return documents.scoreboard_doc(ctx.server, ctx.sight, ctx.query.get("group_id"))


# --------------------------------------------------------------------------------------------- changes


def post_submission(ctx: Ctx) -> Response:
    """The spec's team-submit and admin-submit."""
    ctx.contest()
    staff = ctx.viewer.role is Role.ADMIN
    sub = submissions.submit(ctx.server, ctx.viewer, lambda: parse_upload(ctx.json(), staff=staff), ctx.now)
    obj = submission_json(sub, ctx.server.contest.info)
    location = f"/api/contests/{ctx.server.contest.info.id}/submissions/{sub.id}"
    return JSONResponse(obj, status_code=201, headers={"Location": location})


def submission_files(ctx: Ctx) -> Response:
    ctx.contest()
    what = ctx.param("id")
    data = submissions.submission_files(ctx.server, ctx.sight, number_id(what), what=what)
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": 'attachment; filename="files.zip"', "Cache-Control": "private"},
    )


def patch_contest(ctx: Ctx) -> Response:
    """The spec's thaw: ``{"id": <contest id>, "scoreboard_thaw_time": <TIME>}``, admins only."""
    ctx.contest()
    obj = control.patch_contest(ctx.server, ctx.viewer, ctx.json, ctx.now)
    return JSONResponse(obj) if obj is not None else Response(status_code=204)


def rejudge_submission(ctx: Ctx) -> Response:
    ctx.contest()
    what = ctx.param("id")
    queued = submissions.rejudge_submission(ctx.server, ctx.viewer, number_id(what), ctx.now, what=what)
    return JSONResponse({"submission_ids": [str(s) for s in queued]}, status_code=202)


def rejudge_problem(ctx: Ctx) -> Response:
    ctx.contest()
    queued = submissions.rejudge_problem(ctx.server, ctx.viewer, ctx.param("id"), ctx.now)
    return JSONResponse({"submission_ids": [str(s) for s in queued]}, status_code=202)


# --------------------------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class RouteSpec:
    method: str
    path: str
    handler: Callable[[Ctx], Any]
    stream: bool = False  # the handler is async and returns a streaming response (the event feed)
    body_limit: str = "small"  # small | submission


C = "/api/contests/{cid}"


def _config(kind: str, getter: Getter) -> list[RouteSpec]:
    return [
        RouteSpec("GET", f"{C}/{kind}", collection(kind, getter)),
        RouteSpec("GET", f"{C}/{kind}/{{id}}", item(kind, getter)),
    ]


def _live(kind: str, listing: Listing) -> list[RouteSpec]:
    many, single = numbered(kind, listing)
    return [RouteSpec("GET", f"{C}/{kind}", many), RouteSpec("GET", f"{C}/{kind}/{{id}}", single)]


ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec("GET", "/api", get_api),
    RouteSpec("GET", "/api/", get_api),
    RouteSpec("GET", "/api/contests", get_contests),
    RouteSpec("GET", C, document(documents.contest)),
    RouteSpec("PATCH", C, patch_contest),
    RouteSpec("GET", f"{C}/access", get_access),
    RouteSpec("GET", f"{C}/state", document(documents.state)),
    RouteSpec("GET", f"{C}/account", get_account),
    *_config("judgement-types", documents.judgement_types),
    *_config("languages", documents.languages),
    *_config("problems", documents.problems),
    RouteSpec("GET", f"{C}/problems/{{id}}/statement", problem_statement),
    RouteSpec("POST", f"{C}/problems/{{id}}/rejudge", rejudge_problem),
    *_config("groups", documents.groups),
    *_config("organizations", documents.organizations),
    *_config("teams", documents.teams),
    *_config("accounts", documents.accounts),
    *_config("clarifications", clarifications),
    *_live("submissions", documents.submissions_doc),
    RouteSpec("POST", f"{C}/submissions", post_submission, body_limit="submission"),
    RouteSpec("GET", f"{C}/submissions/{{id}}/files", submission_files),
    RouteSpec("POST", f"{C}/submissions/{{id}}/rejudge", rejudge_submission),
    *_live("judgements", documents.judgements),
    *_live("runs", documents.runs),
    RouteSpec("GET", f"{C}/scoreboard", get_scoreboard),
    RouteSpec("GET", f"{C}/event-feed", feed.event_feed, stream=True),
)
