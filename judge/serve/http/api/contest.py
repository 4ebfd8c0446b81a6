"""The Contest API's endpoints, and the one route table of the app (app.py turns it into routes). Each
handler checks the URL's contest, calls one service (judge/serve/services) and returns its answer as JSON.

Visibility (judge/serve/visibility.py decides; docs/serve.md has the table): the public sees the contest,
its state, judgement types, languages, problems (from the start on), groups, organizations, teams, the
submissions made during the contest (not their files), their judgements (not during the freeze), the frozen
scoreboard, the clarifications sent to everyone, and the event feed of all that. A team sees the same plus
its own account, its own files, its own runs, its own judgements during the freeze, and its own questions and
what the jury sent to it. Judges and admins see everything, live.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.background import BackgroundTask
from starlette.responses import JSONResponse, Response

from judge.serve.http.api import explain, feed, live, previews, workbench
from judge.serve.http.api.context import Ctx
from judge.serve.http.api.domjudge import domjudge_submission
from judge.serve.http.api.previews import ZIP
from judge.serve.http.files import download
from judge.serve.http.forms import JSON, MULTIPART
from judge.serve.http.ids import number_id
from judge.serve.model.apijson import (
    PDF,
    account_json,
    api_json,
    attachment_mime,
    contests_json,
    statement_mime,
    submission_json,
    submission_of,
)
from judge.serve.model.clarification import PROPERTIES as CLARIFICATION_PROPERTIES
from judge.serve.model.clarification import parse_clarification
from judge.serve.model.errors import Refused
from judge.serve.model.upload import SubmissionRequest, parse_upload
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services import documents
from judge.serve.services.desk import clarifications
from judge.serve.services.judging import submissions
from judge.serve.services.lifecycle import awards, control, finalize
from judge.serve.services.problems import config
from judge.serve.site.server import Server
from judge.serve.visibility import Sight

# The endpoints (types as `access` names them) and the properties we serve, and who sees them.
PROPERTIES: dict[str, tuple[str, ...]] = {
    "contest": (
        "id",
        "name",
        "formal_name",
        "start_time",
        "countdown_pause_time",
        "duration",
        "scoreboard_freeze_duration",
        "scoreboard_thaw_time",
        "scoreboard_type",
        "main_scoreboard_group_id",
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
        "attachments",
    ),
    "groups": ("id", "icpc_id", "name", "type"),
    "organizations": ("id", "icpc_id", "name", "formal_name", "country", "country_subdivision", "url"),
    "teams": ("id", "icpc_id", "name", "label", "display_name", "organization_id", "group_ids", "hidden"),
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
    "clarifications": CLARIFICATION_PROPERTIES,
    "awards": ("id", "citation", "team_ids"),
    "scoreboard": ("time", "contest_time", "state", "rows"),
    "event-feed": ("type", "id", "data", "token"),
}
CAPABILITIES = {
    Role.TEAM: ["team_submit", "post_clar"],
    Role.JUDGE: ["post_clar"],
    # contest_start: the PATCH of start_time (refused once the contest is near or has started); listed whether
    # or not it is possible now, as the spec asks of `access` ("regardless of whether ... currently active")
    Role.ADMIN: ["contest_start", "contest_thaw", "admin_submit", "post_clar"],  # awards: no capability
}
PASS_FAIL_PROPERTIES = {"contest": ("penalty_time",), "judgement-types": ("penalty",)}  # only a pass-fail contest's
# What ``?strict=true`` (DOMjudge's parameter; check-api.sh's ``-a strict=1``) leaves out: properties the spec's
# JSON schemas do not have. DOMjudge's ``time_factor`` of a language; the problems' ``attachments`` are the
# spec's (JSON_Format.md) but not yet in its schema (problem.json). The contest's ``shortname``: contests_json.
NOT_IN_SCHEMAS: dict[str, tuple[str, ...]] = {
    "languages": ("time_factor", "allow_submit"),
    "problems": ("attachments",),
}


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


def strict(ctx: Ctx) -> bool:
    """``?strict=true``: DOMjudge's parameter for the spec's properties only (check-api.sh's ``-a strict=1``)."""
    return ctx.query.get("strict", "").lower() in ("1", "true", "yes")


def contest_doc(ctx: Ctx) -> dict[str, Any]:
    """The contest object, with DOMjudge's ``shortname`` unless strict (apijson.contests_json)."""
    return contests_json(documents.contest(ctx.server, ctx.sight), ctx.server.contest.info, strict=strict(ctx))


def get_contests(ctx: Ctx) -> Any:
    return [contest_doc(ctx)]


def get_contest(ctx: Ctx) -> Any:
    ctx.contest()
    return contest_doc(ctx)


def access_json(viewer: Viewer, pass_fail: bool) -> dict[str, Any]:
    def properties(kind: str) -> list[str]:
        return [*PROPERTIES[kind], *(PASS_FAIL_PROPERTIES.get(kind, ()) if pass_fail else ())]

    return {
        "capabilities": CAPABILITIES.get(viewer.role, []),
        "endpoints": [{"type": kind, "properties": properties(kind)} for kind in PROPERTIES],
    }


def get_access(ctx: Ctx) -> Any:
    ctx.contest()
    return access_json(ctx.viewer, ctx.server.contest.info.pass_fail)


def get_account(ctx: Ctx) -> Any:
    ctx.contest()
    return account_json(config.own_account(ctx.server, ctx.sight))


def problem_statement(ctx: Ctx) -> Response:
    """The problem's statement: the PDF (the package's own, or typeset: services/problems/statements.py), as the spec
    expects; without one, the package's Markdown or LaTeX statement (the spec allows any type)."""
    ctx.contest()
    cp, files = config.problem_files(ctx.server, ctx.sight, ctx.param("id"))
    if files.pdf is not None:
        return download(files.pdf.read_bytes(), PDF, f"{cp.id}.pdf", inline=True)
    mime = statement_mime(cp)
    if cp.problem.statement is None or mime is None:
        raise Refused(404, f"problem {cp.id!r} has no statement")
    charset = "; charset=utf-8" if mime.startswith("text/") else ""
    return Response(config.statement_bytes(cp), media_type=mime + charset)


def problem_attachment(ctx: Ctx) -> Response:
    """One of the package's ``attachments/`` (a file reference of the problem's ``attachments``)."""
    ctx.contest()
    name, data = config.attachment_file(ctx.server, ctx.sight, ctx.param("id"), ctx.param("name"))
    return download(data, attachment_mime(name), name)


# --------------------------------------------------------------------------------------------- documents

Getter = Callable[[Server, Sight], Any]
Listing = Callable[[Server, Sight, "list[int] | None"], list[dict[str, Any]]]


def document(getter: Getter) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        ctx.contest()
        return getter(ctx.server, ctx.sight)

    return handler


def spec_only(items: list[dict[str, Any]], ctx: Ctx, kind: str) -> list[dict[str, Any]]:
    """``items`` as they are, or with ``?strict=true`` without the properties the spec's schemas lack."""
    drop = NOT_IN_SCHEMAS.get(kind, ()) if strict(ctx) else ()
    return [{k: v for k, v in o.items() if k not in drop} for o in items] if drop else items


def collection(kind: str, getter: Getter) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        ctx.contest()
        return spec_only(filtered(getter(ctx.server, ctx.sight), ctx, kind), ctx, kind)

    return handler


def item(kind: str, getter: Getter) -> Callable[[Ctx], Any]:
    def handler(ctx: Ctx) -> Any:
        ctx.contest()
        return one(spec_only(getter(ctx.server, ctx.sight), ctx, kind), ctx, kind.rstrip("s").replace("-", " "))

    return handler


def numbered(kind: str, listing: Listing) -> tuple[Callable[[Ctx], Any], Callable[[Ctx], Any]]:
    """The collection and item handlers of live data (an item is looked for among its submission's: every
    live id starts with the submission's number, model/apijson.py)."""

    def many(ctx: Ctx) -> Any:
        ctx.contest()
        return filtered(listing(ctx.server, ctx.sight, None), ctx, kind)

    def single(ctx: Ctx) -> Any:
        ctx.contest()
        n = submission_of(ctx.param("id"))
        return one(listing(ctx.server, ctx.sight, [n]) if n is not None else [], ctx, kind.rstrip("s"))

    return many, single


def get_scoreboard(ctx: Ctx) -> Any:
    ctx.contest()
    body = documents.scoreboard_bytes(ctx.server, ctx.sight, ctx.query.get("group_id"))
    return Response(body, media_type="application/json")


def scoreboard_made(ctx: Ctx) -> Response | None:
    """``get_scoreboard`` when the board and its JSON are made (None: the request thread makes them). When
    they are behind, a thread makes the next after the answer is sent (BackgroundTask; one at a time)."""
    ctx.contest()
    found = documents.scoreboard_bytes_made(ctx.server, ctx.sight, ctx.query.get("group_id"))
    if found is None:
        return None
    body, claim = found
    response = Response(body, media_type="application/json")
    if claim is not None:
        response.background = BackgroundTask(documents.remake_board, ctx.server, claim, lambda: get_scoreboard(ctx))
    return response


# --------------------------------------------------------------------------------------------- changes


def post_submission(ctx: Ctx) -> Response:
    """The spec's team-submit and admin-submit: a JSON body, or DOMjudge's form (domjudge.py)."""
    ctx.contest()
    staff = ctx.viewer.role is Role.ADMIN

    def request() -> SubmissionRequest:
        form = ctx.form
        return parse_upload(ctx.json(), staff=staff) if form is None else domjudge_submission(form, staff=staff)

    sub = submissions.submit(ctx.server, ctx.viewer, request, ctx.now)
    obj = submission_json(sub, ctx.server.contest.info)
    location = f"/api/contests/{ctx.server.contest.info.id}/submissions/{sub.id}"
    return JSONResponse(obj, status_code=201, headers={"Location": location})


def get_clarification(ctx: Ctx) -> Any:
    ctx.contest()
    return one(documents.clarifications(ctx.server, ctx.sight, [ctx.param("id")]), ctx, "clarification")


def post_clarification(ctx: Ctx) -> Response:
    """The spec's post_clar: a team's question; a judge's or admin's answer or announcement."""
    ctx.contest()
    view = clarifications.post(ctx.server, ctx.viewer, lambda: parse_clarification(ctx.json()), ctx.now)
    location = f"/api/contests/{ctx.server.contest.info.id}/clarifications/{view.id}"
    return JSONResponse(view.json(ctx.server), status_code=201, headers={"Location": location})


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


def patch_language(ctx: Ctx) -> Response:
    """Ours (DOMjudge's properties, changed live): ``{"id": <language id>, "time_factor": <number>,
    "allow_submit": <bool>}`` (issue 47: allow_submit), admins."""
    ctx.contest()
    return JSONResponse(control.set_language(ctx.server, ctx.viewer, ctx.param("id"), ctx.json, ctx.now))


def put_removed_intervals(ctx: Ctx) -> Any:
    """Ours (issue 43): the state's ``removed_intervals``, the whole array, admins only; the state object."""
    ctx.contest()
    return control.set_removed_intervals(ctx.server, ctx.viewer, ctx.json, ctx.now)


def rejudge_submission(ctx: Ctx) -> Response:
    """Ours: a rejudging set of the submission (issue 47); without a body it applies itself, as before."""
    ctx.contest()
    return workbench.rejudge(ctx, "submission", ctx.param("id"), default_auto_apply=True)


def rejudge_problem(ctx: Ctx) -> Response:
    ctx.contest()
    return workbench.rejudge(ctx, "problem", ctx.param("id"), default_auto_apply=True)


def change_award(method: str) -> Callable[[Ctx], Response]:
    """The spec's "Modifying awards": POST (a new id), PUT, PATCH, DELETE; admins, before finalize."""

    def handler(ctx: Ctx) -> Response:
        ctx.contest()
        award_id = None if method == "POST" else ctx.param("id")
        obj = awards.edit(ctx.server, ctx.viewer, method, award_id, ctx.json, ctx.now)
        if obj is None:
            return Response(status_code=204)
        if method == "POST":
            location = f"/api/contests/{ctx.server.contest.info.id}/awards/{obj['id']}"
            return JSONResponse(obj, status_code=201, headers={"Location": location})
        return JSONResponse(obj)

    return handler


def post_finalize(ctx: Ctx) -> Response:
    """Ours (the spec has no call for it): finalize the results; the new state object."""
    ctx.contest()
    return JSONResponse(finalize.finalize(ctx.server, ctx.viewer))


def post_unfinalize(ctx: Ctx) -> Response:
    """Ours: take the finalize back (before a rejudge); the new state object."""
    ctx.contest()
    return JSONResponse(finalize.unfinalize(ctx.server, ctx.viewer, ctx.now))


# --------------------------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class RouteSpec:
    method: str
    path: str
    handler: Callable[[Ctx], Any]
    stream: bool = False  # the handler is async and returns a streaming response (the event feed)
    body_limit: str = "small"  # small | submission | package
    # the media types a POST/PUT/PATCH body may have (else 415; none declared: the first); the handler reads
    # ctx.media_type (a multipart body is parsed into ctx.form). A cross-site request is refused whatever its
    # type (http/origin.py).
    bodies: tuple[str, ...] = (JSON,)
    # the public's answer on the event loop when it needs no storage (None: then ``handler``, in a request
    # thread): what a rush's 100 board polls a second would otherwise wait for a request thread to give
    on_loop: Callable[[Ctx], Any | None] | None = None
    runner: bool = False  # open to a balloon runner's account (issue 47: the balloons' endpoints only)


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
    RouteSpec("GET", C, get_contest),
    RouteSpec("PATCH", C, patch_contest),
    RouteSpec("PUT", f"{C}/removed-intervals", put_removed_intervals),
    RouteSpec("GET", f"{C}/access", get_access),
    RouteSpec("GET", f"{C}/state", document(documents.state)),
    RouteSpec("GET", f"{C}/account", get_account),
    *_config("judgement-types", documents.judgement_types),
    *_config("languages", documents.languages),
    RouteSpec("PATCH", f"{C}/languages/{{id}}", patch_language),
    *_config("problems", documents.problems),
    RouteSpec("GET", f"{C}/problems/{{id}}/statement", problem_statement),
    RouteSpec("GET", f"{C}/problems/{{id}}/attachments/{{name}}", problem_attachment),
    RouteSpec("POST", f"{C}/problems/{{id}}/rejudge", rejudge_problem),
    *_config("groups", documents.groups),
    *_config("organizations", documents.organizations),
    *_config("teams", documents.teams),
    *_config("accounts", documents.accounts),
    RouteSpec("GET", f"{C}/clarifications", collection("clarifications", documents.clarifications)),
    RouteSpec("GET", f"{C}/clarifications/{{id}}", get_clarification),
    RouteSpec("POST", f"{C}/clarifications", post_clarification),
    *_live("submissions", documents.submissions_doc),
    RouteSpec("POST", f"{C}/submissions", post_submission, body_limit="submission", bodies=(JSON, MULTIPART)),
    RouteSpec("GET", f"{C}/submissions/{{id}}/files", submission_files),
    RouteSpec("GET", f"{C}/submissions/{{id}}/counterexample", explain.get_counterexample),  # issue 46
    RouteSpec("GET", f"{C}/submissions/{{id}}/counterexample/{{part}}", explain.get_counterexample_file),
    RouteSpec("POST", f"{C}/submissions/{{id}}/rejudge", rejudge_submission),
    RouteSpec("GET", f"{C}/verification", workbench.get_verification),  # ours (issue 47)
    RouteSpec("GET", f"{C}/rejudgings", workbench.get_rejudgings),  # ours (issue 47): rejudging sets
    RouteSpec("POST", f"{C}/rejudgings", workbench.post_rejudging),
    RouteSpec("POST", f"{C}/rejudgings/{{id}}/apply", workbench.apply_rejudging),
    RouteSpec("POST", f"{C}/rejudgings/{{id}}/cancel", workbench.cancel_rejudging),
    *_live("judgements", documents.judgements),
    *_live("runs", documents.runs),
    RouteSpec("GET", f"{C}/runs/{{id}}/output", workbench.get_run_output),  # ours (issue 47)
    *_config("awards", documents.awards),
    RouteSpec("POST", f"{C}/awards", change_award("POST")),
    RouteSpec("PUT", f"{C}/awards/{{id}}", change_award("PUT")),
    RouteSpec("PATCH", f"{C}/awards/{{id}}", change_award("PATCH")),
    RouteSpec("DELETE", f"{C}/awards/{{id}}", change_award("DELETE")),
    RouteSpec("POST", f"{C}/finalize", post_finalize),
    RouteSpec("POST", f"{C}/unfinalize", post_unfinalize),
    RouteSpec("GET", f"{C}/scoreboard", get_scoreboard, on_loop=scoreboard_made),
    RouteSpec("GET", f"{C}/event-feed", feed.event_feed, stream=True),
    # running the contest live (issue 30): our extensions (http/api/live.py)
    RouteSpec("PUT", f"{C}/teams/{{id}}", live.put_team),
    RouteSpec("PUT", f"{C}/groups/{{id}}", live.put_group),
    RouteSpec("PUT", f"{C}/organizations/{{id}}", live.put_organization),
    RouteSpec("POST", f"{C}/import/teams", live.import_teams, body_limit="submission"),
    RouteSpec("POST", f"{C}/import/accounts", live.import_accounts, body_limit="submission"),
    RouteSpec("PUT", f"{C}/accounts/{{id}}", live.put_account),
    RouteSpec("POST", f"{C}/accounts/{{id}}/reset-password", live.reset_password),
    RouteSpec("POST", f"{C}/accounts/{{id}}/disable", live.disable),
    RouteSpec("POST", f"{C}/accounts/{{id}}/enable", live.enable),
    RouteSpec("POST", f"{C}/submissions/{{id}}/ignore", live.ignore),
    RouteSpec("POST", f"{C}/submissions/{{id}}/unignore", live.unignore),
    RouteSpec("GET", f"{C}/judging", live.judging_state),
    RouteSpec("POST", f"{C}/judging/pause", live.pause),
    RouteSpec("POST", f"{C}/judging/resume", live.resume),
    RouteSpec("POST", f"{C}/problems/{{id}}/hold", live.hold),
    RouteSpec("POST", f"{C}/problems/{{id}}/release", live.release),
    RouteSpec("GET", f"{C}/judging/queue", live.judging_queue),
    RouteSpec("GET", f"{C}/judging/judges", live.judges),
    RouteSpec("GET", f"{C}/judging/errors", live.judging_errors),
    RouteSpec("GET", f"{C}/balloons", live.balloon_list, runner=True),
    RouteSpec("POST", f"{C}/balloons/{{id}}/done", live.balloon_done, runner=True),
    RouteSpec("POST", f"{C}/submissions/{{id}}/review", live.review),
    RouteSpec("POST", f"{C}/prints", live.post_print, body_limit="submission"),
    RouteSpec("GET", f"{C}/prints", live.get_prints),
    RouteSpec("GET", f"{C}/audit-log", live.audit_log),
    # live fuzzing (issue 33, docs/live-fuzzing.md): the jury only
    RouteSpec("GET", f"{C}/counterexamples", live.counterexamples),
    RouteSpec("GET", f"{C}/counterexamples/{{id}}", live.counterexample),
    RouteSpec("GET", f"{C}/fuzzing", live.fuzzing_summary),
    RouteSpec("GET", f"{C}/fuzzing/jobs", live.fuzz_jobs),
    # package versions and rejudge previews (issue 33): the jury; applying and uploading: admins
    RouteSpec("POST", f"{C}/counterexamples/{{id}}/add-as-test", previews.add_as_test),
    RouteSpec("GET", f"{C}/previews/{{id}}", previews.get_preview),
    RouteSpec("POST", f"{C}/previews/{{id}}/apply", previews.apply),
    RouteSpec("POST", f"{C}/previews/{{id}}/discard", previews.discard),
    RouteSpec("POST", f"{C}/problems/{{id}}/package", previews.upload, body_limit="package", bodies=(ZIP,)),
)
