"""LTI 1.3's endpoints (issue 48, docs/course.md "The course in your LMS (LTI 1.3)"), at the top of a course's
site:

- ``/lti/login`` (GET or POST): the platform's OIDC login initiation; a redirect to the platform's authorization
  URL, the login's state in a cookie of its own (``SameSite=None; Secure``: the platform posts the launch back
  from its own site, and a Lax cookie would not come with it).
- ``/lti/launch`` (POST): the platform's form post of the id_token; every check (services/lti/launch.py), then
  the user's session (the site's cookie) and a redirect to where they land. A refusal is a 4xx page with one
  line, and one log line; nothing is stored.
- ``/lti/jwks.json``: the tool's public key (the platform checks the deep-linking responses and the client
  assertions with it).
- ``/lti/deep-link`` (a site page: the instructor's session): the assignments to pick, and the signed
  LtiDeepLinkingResponse auto-posted to the platform (a script of our own: no inline script).
- ``/site/lti`` (admins): the platforms registered, the URLs to paste in the LMS, the tool's key id, the LMS
  users mapped, the assignments linked and every score sent or failed; "send the grades now".

The login and the launch come from the platform's site: they are exempt from the cross-site check and the
CSRF token (the state, bound to this browser's cookie and signed by the tool, and the platform's signature on
the id_token take their place)."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from jinja2 import Environment
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from judge import __version__
from judge.course.export import number
from judge.serve.http.forms import BodyDeadlines, read_body
from judge.serve.http.origin import media_type
from judge.serve.http.pages.sessions import cookie_header
from judge.serve.http.pages.site_pages import SitePage
from judge.serve.http.pages.web import SECURITY_HEADERS, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.lti import STATE_S
from judge.serve.model.viewer import PUBLIC, Role
from judge.serve.services.lti import deeplink, launch
from judge.serve.services.lti.deeplink import Choice
from judge.serve.services.lti.grades import lms_status
from judge.serve.services.lti.tool import LtiTool, add_platform
from judge.serve.services.people import access
from judge.serve.site.site import Site

LAUNCH_FORM = 256 * 1024  # an id_token with a platform's custom claims is a few KiB; this is plenty
STATE_COOKIE = "judge_lti_"


def state_cookie_name(state: str) -> str:
    """One cookie per login on its way (two tabs launching at once do not overwrite each other's)."""
    return STATE_COOKIE + hashlib.sha256(state.encode()).hexdigest()[:16]


def _state_cookie(state: str, max_age_s: float) -> str:
    return f"{state_cookie_name(state)}={state}; Path=/lti/; Max-Age={int(max_age_s)}; HttpOnly; SameSite=None; Secure"


def _tool(site: Site) -> LtiTool:
    if site.lti is None:
        raise Refused(404, "this site is in no LMS (no lti.yaml)")
    return site.lti


def _error(env: Environment, site: Site, status: int, message: str) -> Response:
    body = env.get_template("serve/site_error.html").render(
        site_name=site.name, viewer=PUBLIC, csrf="", judge_version=__version__, status_code=status, message=message
    )
    response = HTMLResponse(body, status_code=status)
    for k, v in SECURITY_HEADERS.items():
        response.headers.setdefault(k, v)
    return response


async def _params(request: Request, deadlines: BodyDeadlines) -> dict[str, str]:
    params = dict(request.query_params)
    if request.method == "POST":
        body = await read_body(request, LAUNCH_FORM, deadlines.seconds)
        if media_type(request.headers.get("content-type")) != "application/x-www-form-urlencoded":
            raise Refused(415, "an LTI message is a form post (application/x-www-form-urlencoded)")
        params.update(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))
    return params


def lti_routes(site: Site, env: Environment, deadlines: BodyDeadlines) -> list[Route]:
    """The login, the launch and the tool's JWKS (no session, no CSRF: see the module's words)."""

    def refused(request: Request, where: str, exc: Refused) -> Response:
        address = request.client.host if request.client else "unknown"
        site.log(f"lti: {where} refused ({exc.status}) from {address}: {exc.message}")
        response = _error(env, site, exc.status, exc.message)
        for k, v in exc.headers.items():
            response.headers[k] = v
        return response

    async def login(request: Request) -> Response:
        try:
            tool = _tool(site)
            params = await _params(request, deadlines)
            start = launch.login_start(tool, params, site.clock.now())
        except Refused as exc:
            return refused(request, "login", exc)
        response = RedirectResponse(start.redirect, status_code=302)
        response.headers.append("set-cookie", _state_cookie(start.state, STATE_S))
        response.headers["Cache-Control"] = "no-store"
        return response

    def launched(form: dict[str, str], cookie: str | None) -> launch.Landed:
        tool = _tool(site)
        now = site.clock.now()
        checked = launch.checked(tool, site.people, form, cookie, now)
        server = site.contests()[0].server
        ids = {c.id for c in site.contests() if not c.hidden}
        return launch.complete(tool, server, site.spec.root, checked, ids, now)

    async def launch_endpoint(request: Request) -> Response:
        state = ""
        try:
            form = await _params(request, deadlines)
            state = form.get("state", "")
            cookie = request.cookies.get(state_cookie_name(state)) if state else None
            landed = await run_in_threadpool(launched, form, cookie)
        except Refused as exc:
            return refused(request, "launch", exc)
        response = RedirectResponse(landed.to, status_code=303)
        secure = request.url.scheme == "https"
        response.headers.append("set-cookie", cookie_header(landed.cookie, secure=secure))
        response.headers.append("set-cookie", _state_cookie(state, 0))  # this login is done
        response.headers["Cache-Control"] = "no-store"
        site.log(f"lti: {landed.launch.kind} {landed.viewer.username} launched ({landed.launch.message_type})")
        return response

    async def jwks(request: Request) -> Response:
        if site.lti is None:
            return JSONResponse({"code": 404, "message": "this site is in no LMS"}, status_code=404)
        return JSONResponse(site.lti.jwks(), headers={"Cache-Control": "max-age=300"})

    return [
        Route("/lti/login", login, methods=["GET", "POST"]),
        Route("/lti/launch", launch_endpoint, methods=["POST"]),
        Route("/lti/jwks.json", jwks, methods=["GET"]),
    ]


# ------------------------------------------------------------------------------------------------ deep linking


def _choices(site: Site) -> list[Choice]:
    out = []
    for c in site.contests():
        state = c.server.course.state
        if state is None or c.hidden:
            continue
        top = sum(float(p.problem.secret.max_score) for p in c.server.contest.problems)
        out.append(Choice(c.id, state.assignment.name or c.server.contest.info.name, round(top, 6)))
    return out


def deep_link_form(page: SitePage) -> Response:
    """The assignments an instructor may add to the LMS course (a deep-linking launch lands here)."""
    if page.viewer.role is Role.PUBLIC:
        raise Redirect("/login")
    tool = _tool(page.site)
    ctx = deeplink.open_context(tool, page.query.get("context", ""), page.viewer, page.now)
    choices = [{"id": c.contest_id, "title": c.title, "max": number(c.max_score)} for c in _choices(page.site)]
    return page.render("serve/lti_deep_link.html", choices=choices, context=ctx.token, platform=ctx.platform.name)


def deep_link_send(page: SitePage) -> Response:
    """The signed LtiDeepLinkingResponse for the assignments picked, auto-posted to the platform."""
    tool = _tool(page.site)
    ctx = deeplink.open_context(tool, page.form.get("context", ""), page.viewer, page.now)
    picked = [k.split(":", 1)[1] for k, v in page.form.items() if k.startswith("contest:") and v]
    url, token = deeplink.response(tool, ctx, _choices(page.site), sorted(picked), page.now)
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    csp = SECURITY_HEADERS["Content-Security-Policy"].replace("form-action 'self'", f"form-action 'self' {origin}")
    page.headers["Content-Security-Policy"] = csp
    return page.render("serve/lti_deep_link_post.html", action=url, jwt=token, platform=ctx.platform.name)


# ------------------------------------------------------------------------------------------------ the admins' page


def lti_admin(page: SitePage) -> Response:
    if page.viewer.role is Role.PUBLIC:
        raise Redirect("/login")
    site = page.site
    tool = _tool(site)
    found = lms_status(site.storage, page.viewer)
    users, links, scores = found.users, found.links, found.scores
    names = {p.key: p.name for p in tool.config.platforms}
    context: dict[str, Any] = {
        "urls": tool.config.urls(),
        "tool_url": tool.config.url,
        "kid": tool.kid,
        "platforms": tool.config.platforms,
        "users": users,
        "links": [{"link": k, "platform": names.get((k.issuer, k.client_id), k.issuer)} for k in links],
        "scores": scores,
        "failed": [s for s in scores if s.status == "failed"],
        "message": page.query.get("synced") == "1",
        "added": page.query.get("added") == "1",
    }
    return page.render("serve/lti_admin.html", **context)


def lti_sync(page: SitePage) -> Response:
    """An admin sends the changed scores now (the sync thread does it every ``grade_sync`` seconds)."""
    access.admin(page.viewer, "send grades to the LMS")
    _tool(page.site)
    page.site.sync_grades()
    raise Redirect("/site/lti?synced=1")


def lti_add_platform(page: SitePage) -> Response:
    """An admin registers a platform (the form of /site/lti): tool.add_platform (checked, stored, audited)."""
    tool = _tool(page.site)
    add_platform(tool, page.site.storage, page.viewer, page.form, page.now)
    raise Redirect("/site/lti?added=1")


LTI_SITE_PAGES: tuple[tuple[str, str, Callable[[SitePage], Response]], ...] = (
    ("GET", "/lti/deep-link", deep_link_form),
    ("POST", "/lti/deep-link", deep_link_send),
    ("GET", "/site/lti", lti_admin),
    ("POST", "/site/lti/sync", lti_sync),
    ("POST", "/site/lti/platforms", lti_add_platform),
)

Endpoint = Callable[[Request], Awaitable[Response]]
