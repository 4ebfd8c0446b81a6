"""The site-level pages of a site of contests (issue 44), at the top of the site: ``/`` (the contests the
viewer may see: a team's own first, each with its state and its link under ``/contests/<cid>/``),
``/login`` (one login for every contest; a team that takes part in exactly one running contest goes
straight into it), ``/logout``, ``/site`` (staff: every contest with its state, hidden, archived, judging
priority and queue; the judging pool's slots across contests; the site's audit log) and its admin forms
(hide, show, archive, restore, judging priority: services/lifecycle/registry.py). The 404 page of the site
(``not_found``) is the one answer for an unknown contest and for a contest hidden from the viewer.

Their plumbing is web.py's (the session cookie, the CSRF token of every form, the cross-site check, the
security headers), over the site's people instead of a contest's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from jinja2 import Environment
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from judge import __version__
from judge.serve.http.forms import CLOSE, DEADLINES, BodyDeadlines, FormFile
from judge.serve.http.ids import number_id
from judge.serve.http.live_views import judges_json
from judge.serve.http.origin import cross_site
from judge.serve.http.pages.sessions import COOKIE, basic_header, cookie_header, csrf, csrf_ok
from judge.serve.http.pages.web import SECURITY_HEADERS, Redirect, read_form, status_line
from judge.serve.model.errors import Refused
from judge.serve.model.viewer import PUBLIC, Role, Viewer
from judge.serve.services.judging import submissions
from judge.serve.services.lifecycle.contest_upload import UPLOAD_LIMIT
from judge.serve.services.lifecycle.registry import ContestChange, NewContest, parse_priority, site_audit
from judge.serve.services.people import access, sessions
from judge.serve.services.people.accounts import AuthError
from judge.serve.site.site import Site, SiteContest

SMALL_FORM = 16 * 1024
UPLOAD_FORM = UPLOAD_LIMIT + 64 * 1024  # a contest package's zip and the form around it (admins only)
FORM_LIMITS = {"/site/contests/upload": UPLOAD_FORM}  # a larger form: read only from an admin (issue 43)


@dataclass
class SitePage:
    """One request of a site-level page: who asks (the site's session), the URL's and the form's values."""

    site: Site
    env: Environment
    cookie: str
    viewer: Viewer
    params: dict[str, str]
    query: dict[str, str]
    form: dict[str, str]
    address: str
    secure: bool
    now: float
    set_cookie: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    files: dict[str, FormFile] = field(default_factory=dict)

    def render(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        common = {
            "site_name": self.site.name,
            "viewer": self.viewer,
            "csrf": csrf(self.set_cookie or self.cookie),
            "judge_version": __version__,
        }
        return HTMLResponse(self.env.get_template(template).render({**common, **context}), status_code=status)


SiteHandler = Callable[[SitePage], Response]


def viewer_of(site: Site, cookie: str | None, now: float) -> Viewer:
    """The site's account of a session cookie (the public without one)."""
    return sessions.viewer_of(site.people, cookie, now) if sessions.well_formed(cookie) else PUBLIC


# ------------------------------------------------------------------------------------------------ contests


def _takes_part(c: SiteContest, viewer: Viewer) -> bool:
    return viewer.team_id is not None and c.server.contest.team(viewer.team_id) is not None


def contest_line(c: SiteContest, viewer: Viewer, now: float) -> dict[str, Any]:
    """A contest as the site's pages list it: its id, name, state, whether the viewer's team takes part."""
    server = c.server
    return {
        "id": c.id,
        "name": server.contest.info.name,
        "status": status_line(server, now),
        "mine": _takes_part(c, viewer),
        "hidden": c.hidden,
        "archived": c.archived,
    }


def _running(c: SiteContest, now: float) -> bool:
    return c.server.timeline.phase.running(now)


def landing(site: Site, viewer: Viewer, now: float) -> str:
    """Where a login leads: a team that takes part in exactly one running contest, straight into it; else the
    site's list of contests."""
    if viewer.role is Role.TEAM:
        running = [c for c in site.seen_by(viewer) if _takes_part(c, viewer) and _running(c, now)]
        if len(running) == 1:
            return f"/contests/{running[0].id}/"
    return "/"


def home(page: SitePage) -> Response:
    lines = [contest_line(c, page.viewer, page.now) for c in page.site.seen_by(page.viewer)]
    mine = [line for line in lines if line["mine"]]
    others = [line for line in lines if not line["mine"]]
    return page.render("serve/site_home.html", mine=mine, others=others)


def login_form(page: SitePage) -> Response:
    if page.viewer.role is not Role.PUBLIC:
        raise Redirect("/")
    return page.render("serve/site_login.html", message=None, username="")


def login(page: SitePage) -> Response:
    username = page.form.get("username", "")
    password = page.form.get("password", "")
    try:
        viewer = page.site.people.auth.authenticate(basic_header(username, password), page.address)
    except AuthError as exc:
        if exc.retry_after_s is not None:
            page.headers["Retry-After"] = str(max(1, int(exc.retry_after_s + 0.999)))
        return page.render("serve/site_login.html", status=exc.status, message=exc.message, username=username)
    page.set_cookie = sessions.log_in(page.site.people, viewer, page.now)  # a new session: no fixation
    raise Redirect(landing(page.site, viewer, page.now))


def logout(page: SitePage) -> Response:
    sessions.log_out(page.site.people, page.cookie)
    page.set_cookie = sessions.new_cookie()
    raise Redirect("/")


def domjudge_link(page: SitePage) -> Response:
    """``/team/submission/<id>``: the link DOMjudge's ``submit`` client prints after a submission (its URL has
    no contest, and a site's submission ids are per contest): the logged-in team's newest own submission of
    that id among the contests it takes part in (the one it just sent), else the site's list; the login
    first. Nothing of a contest the team does not take part in is looked at."""
    if page.viewer.role is Role.PUBLIC:
        raise Redirect("/login")
    sid = number_id(page.params["sid"])
    newest: tuple[float, str] | None = None
    if sid is not None and page.viewer.role is Role.TEAM:
        for c in page.site.seen_by(page.viewer):
            if not _takes_part(c, page.viewer):
                continue
            sight = c.server.sight(c.server.viewer_in(page.viewer), page.now)
            for sub in submissions.submissions(c.server, sight, [sid]):
                if sub.team_id == page.viewer.team_id and (newest is None or sub.time_s > newest[0]):
                    newest = (sub.time_s, c.id)
    if newest is None:
        raise Redirect("/")
    raise Redirect(f"/contests/{quote(newest[1])}/submissions/{sid}")


# ------------------------------------------------------------------------------------------------ staff


def overview(page: SitePage) -> Response:
    """``/site``: every contest with its state and its queue, the judging pool across contests, the audit log."""
    if page.viewer.role is Role.PUBLIC:
        raise Redirect("/login")
    access.staff(page.viewer, "see the site's overview")
    site = page.site
    rows = []
    for c in site.contests():
        line = contest_line(c, page.viewer, page.now)
        info = c.server.package.info
        rows.append(
            {
                **line,
                "priority": c.priority,
                "priority_set": c.record.judging_priority is not None,
                "priority_yaml": info.judging_priority,
                "teams": len(c.server.contest.teams),
                "pending": c.server.judging.pending(),
            }
        )
    pool = site.pool if site.pool is not None else site.contests()[0].server.pool
    judges = judges_json(pool.status(), page.now)
    audit = site_audit(site.storage, page.viewer) if page.viewer.role is Role.ADMIN else []
    message = _done_message(site, page.query.get("done"), page.query.get("contest"))
    people = [
        {
            "id": t.id,
            "name": t.display_name or t.name,
            "contests": [c.id for c in site.contests() if c.server.contest.team(t.id) is not None],
        }
        for t in site.people.current().teams
    ]
    return page.render(
        "serve/site_overview.html", rows=rows, judges=judges, audit=audit, message=message, people=people
    )


DONE = {  # what a change's redirect says (only these: never a text from the URL)
    "hide": "{name} is hidden: the jury sees it, to everyone else it does not exist.",
    "show": "{name} is shown again.",
    "archive": "{name} is archived: read-only (no submissions, clarifications or print-outs).",
    "restore": "{name} is open again.",
    "priority": "{name}'s judging priority is now {priority}.",
    "added": "{name} is added: its pages are under /contests/{id}/, its teams see it now.",
}


def _done_message(site: Site, done: str | None, contest_id: str | None) -> str | None:
    found = None if contest_id is None else site.contest(contest_id)
    if done not in DONE or found is None:
        return None
    return DONE[done].format(name=found.server.contest.info.name, priority=found.priority, id=found.id)


def change(page: SitePage) -> Response:
    """An admin's change of a contest (the overview's forms): hide, show, archive, restore, priority."""
    access.admin(page.viewer, "hide, archive or prioritize contests")
    cid, action = page.params["cid"], page.form.get("action", "")
    changes = {
        "hide": ContestChange(hidden=True),
        "show": ContestChange(hidden=False),
        "archive": ContestChange(archived=True),
        "restore": ContestChange(archived=False),
    }
    if action == "priority":
        what = ContestChange(judging_priority=parse_priority(page.form.get("priority", "")))
    elif action in changes:
        what = changes[action]
    else:
        raise Refused(400, f"unknown action {action!r}")
    page.site.change(page.viewer, cid, what)
    raise Redirect(f"/site?done={action}&contest={quote(cid)}")


def _new_form(page: SitePage, error: str | None, status: int = 200, upload_error: str | None = None) -> Response:
    site = page.site
    teams = [(t.id, t.display_name or t.name) for t in site.people.current().teams]
    return page.render(
        "serve/site_new_contest.html",
        status=status,
        problems=site.problem_ids(),
        teams=teams,
        form=page.form,
        error=error,
        upload_error=upload_error,
        upload_mib=UPLOAD_LIMIT // 2**20,
    )


def new_contest_form(page: SitePage) -> Response:
    """``/site/contests/new``: a contest made from the site's problems and teams (admins)."""
    if page.viewer.role is Role.PUBLIC:
        raise Redirect("/login")
    access.admin(page.viewer, "add contests")
    return _new_form(page, None)


def add_contest(page: SitePage) -> Response:
    access.admin(page.viewer, "add contests")
    form = page.form
    site = page.site
    problems = tuple(p for p in site.problem_ids() if form.get(f"problem-{p}") == "on")
    teams = tuple(t.id for t in site.people.current().teams if form.get(f"team-{t.id}") == "on")
    try:
        priority = parse_priority(form.get("priority", "")) or 0
        new = NewContest(
            id=form.get("id", "").strip(),
            name=form.get("name", ""),
            start=form.get("start", ""),
            duration=form.get("duration", ""),
            freeze=form.get("freeze", ""),
            problems=problems,
            teams=teams,
            judging_priority=priority,
        )
        added = site.add_new(page.viewer, new)
    except Refused as exc:
        if exc.status >= 500 or exc.status in (401, 403):
            raise
        return _new_form(page, exc.message, exc.status)
    raise Redirect(f"/site?done=added&contest={quote(added.id)}")


def upload_contest(page: SitePage) -> Response:
    """An admin uploads a contest package (a zip: contest.yaml, problems.yaml, its problems/; or an archive
    `judge contest export` wrote), added live (Site.add_upload); refused: the page again with the one line."""
    access.admin(page.viewer, "add contests")
    package = page.files.get("package")
    try:
        if package is None or not package.data:
            raise Refused(400, "choose the contest package's zip to upload")
        added = page.site.add_upload(page.viewer, package.data, page.form.get("id", "").strip() or None)
    except Refused as exc:
        if exc.status >= 500 or exc.status in (401, 403):
            raise
        page.form = {k: v for k, v in page.form.items() if k == "id"}  # the other form keeps its defaults
        return _new_form(page, None, exc.status, upload_error=exc.message)
    raise Redirect(f"/site?done=added&contest={quote(added.id)}")


# ------------------------------------------------------------------------------------------------ plumbing


def site_endpoint(
    site: Site,
    env: Environment,
    method: str,
    handler: SiteHandler,
    changes: Callable[..., Awaitable[Any]] = run_in_threadpool,
    deadlines: BodyDeadlines = DEADLINES,
    limit: int = SMALL_FORM,
) -> Callable[[Request], Awaitable[Response]]:
    """A site-level page's endpoint: the session's viewer, a form with its CSRF token (POST), a thread. A form
    larger than ``SMALL_FORM`` (a contest package) is read only when an admin's session sends it."""

    def run(page: SitePage) -> Response:
        page.viewer = viewer_of(site, page.cookie, page.now)
        return handler(page)

    async def endpoint(request: Request) -> Response:
        cookie = request.cookies.get(COOKIE)
        fresh = not sessions.well_formed(cookie)
        if cookie is None or fresh:
            cookie = sessions.new_cookie()
        page = SitePage(
            site=site,
            env=env,
            cookie=cookie,
            viewer=PUBLIC,
            params=dict(request.path_params),
            query=dict(request.query_params),
            form={},
            address=request.client.host if request.client else "unknown",
            secure=request.url.scheme == "https",
            now=site.clock.now(),
            set_cookie=cookie if fresh else None,
        )
        unread = method == "POST"
        try:
            refusal = cross_site(method, request.headers.get("origin"), request.url.scheme, request.headers.get("host"))
            if refusal is not None:
                raise Refused(403, refusal)
            if method == "POST":
                seconds = deadlines.seconds
                if limit > SMALL_FORM:  # who sends it, before it is read (the admins' only)
                    sender = await run_in_threadpool(viewer_of, site, cookie, page.now)
                    if sender.role is not Role.ADMIN:
                        raise Refused(403, "only admins may upload contest packages")
                    seconds = deadlines.package_seconds
                page.form, page.files = await read_form(request, limit, seconds)
                unread = False
                if fresh or not csrf_ok(cookie, page.form.get("csrf")):
                    raise Refused(403, "this form has expired or did not come from this site: reload the page")
            response = await (changes if method == "POST" else run_in_threadpool)(run, page)
        except Redirect as r:
            response = RedirectResponse(r.url, status_code=303)
        except Refused as exc:
            status = exc.status
            response = page.render("serve/site_error.html", status=status, status_code=status, message=exc.message)
            for k, v in (exc.headers or {}).items():
                response.headers[k] = v
        for k, v in {**SECURITY_HEADERS, **page.headers, **(CLOSE if unread else {})}.items():
            response.headers.setdefault(k, v)
        if page.set_cookie is not None:
            response.headers.append("set-cookie", cookie_header(page.set_cookie, secure=page.secure))
        return response

    return endpoint


def not_found(site: Site, env: Environment) -> Callable[[Request], Awaitable[Response]]:
    """The site's one answer for a path nothing serves, an unknown contest and a contest hidden from the
    viewer alike: for a browser (it accepts text/html) outside /api, the site's 404 page; else the API's JSON
    error. Nothing in it depends on whether the contest exists."""

    async def answer(request: Request) -> Response:
        path = request.url.path
        api = path == "/api" or path.startswith("/api/")
        if api or "text/html" not in request.headers.get("accept", ""):
            return JSONResponse({"code": 404, "message": f"no such endpoint: {path}"}, status_code=404)
        cookie = request.cookies.get(COOKIE)
        viewer = await run_in_threadpool(viewer_of, site, cookie, site.clock.now())
        page = SitePage(
            site, env, cookie or "", viewer, {}, {}, {}, "", request.url.scheme == "https", site.clock.now()
        )
        response = page.render("serve/site_error.html", status=404, status_code=404, message=f"there is no page {path}")
        for k, v in SECURITY_HEADERS.items():
            response.headers.setdefault(k, v)
        return response

    return answer


SITE_PAGES: tuple[tuple[str, str, SiteHandler], ...] = (
    ("GET", "/", home),
    ("GET", "/login", login_form),
    ("POST", "/login", login),
    ("POST", "/logout", logout),
    ("GET", "/team/submission/{sid}", domjudge_link),
    ("GET", "/site", overview),
    ("GET", "/site/contests/new", new_contest_form),
    ("POST", "/site/contests/new", add_contest),
    ("POST", "/site/contests/upload", upload_contest),
    ("POST", "/site/contests/{cid}/change", change),
)
