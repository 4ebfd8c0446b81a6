"""The HTML pages' plumbing: what a page handler gets (``Page``), the wrapper app.py puts around each (the
session cookie and its stored session, a bounded form, the cross-site check (origin.py) and the CSRF check
on every POST, a worker thread), and rendering with jinja2 (judge/serve/http/templates/, autoescape on).
Page handlers call the same services as the API's handlers (judge/serve/services), for the same viewer, so
a page shows what the API would.

Every page answer carries a Content-Security-Policy that allows scripts from this server only (no inline
script), ``X-Frame-Options: DENY`` and ``Cache-Control: no-store``.

**The contest's base path** (issue 44): a contest's pages live under one prefix, ``Page.base`` ("" for a
single-contest folder: today's URLs; ``/contests/<cid>`` in a site). Every link, form action, poll URL
(``data-live``) and redirect of a contest page is built from it and from nothing else: ``page.url("/submit")``
in the handlers, ``{{ base }}/submit`` in the templates (the render context's ``base``). The site-level pages
(``PageSpec.site``: ``/login``, ``/logout``, ``/static/...``, ``/favicon.ico``) stay at the top, without it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, StrictUndefined
from markupsafe import Markup, escape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from judge import __version__
from judge.scoreboard.render import TEMPLATES as BOARD_TEMPLATES
from judge.serve.http.forms import CLOSE, DEADLINES, MULTIPART, BodyDeadlines, FormFile, parse_form, read_body
from judge.serve.http.origin import cross_site, media_type
from judge.serve.http.pages import confirm
from judge.serve.http.pages.clar_views import notice_context
from judge.serve.http.pages.fuzz_views import notice_context as fuzz_notice_context
from judge.serve.http.pages.sessions import COOKIE, cookie_header, csrf, csrf_ok
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_reltime, format_time
from judge.serve.model.viewer import PUBLIC, Role, Viewer
from judge.serve.services.people import sessions
from judge.serve.site.server import Server
from judge.serve.visibility import Sight, runner_only

# the pages' own templates are "serve/<name>"; the static board's (its style sheet) are shared
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"  # judge/serve/http/templates/
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
FORM_SLACK = 64 * 1024
PACKAGE_FORM = 64 * 1024 * 1024 + FORM_SLACK  # a package version's zip (issue 33: judging/previews.PACKAGE_LIMIT)
ROSTER_FORM = 4 * 1024 * 1024  # a course's roster CSV, sent again (base64) with its confirmation (issue 45)


def environment() -> Environment:
    env = Environment(
        loader=ChoiceLoader([PrefixLoader({"serve": FileSystemLoader(TEMPLATES)}), FileSystemLoader(BOARD_TEMPLATES)]),
        autoescape=True,
        auto_reload=False,  # templates are part of the judge: no stat() of each one on every page
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["clock"] = clock_time
    env.filters["local_times"] = local_times
    env.filters["css_string"] = css_string
    env.globals["contest_time"] = contest_time
    env.globals["confirm_question"] = confirm.question
    return env


class Redirect(Exception):
    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.url = url


class Unconfirmed(Exception):
    """A POST that needs a confirmation and did not carry one (confirm.py): answered with the confirmation
    page, and nothing done."""

    def __init__(self, question: str, back: str) -> None:
        super().__init__(question)
        self.question = question
        self.back = back


@dataclass
class Page:
    """One page request: who asks (from the session cookie), the URL's and the form's values."""

    server: Server
    env: Environment
    cookie: str  # the session cookie the request came with (or a new one: set_cookie)
    viewer: Viewer
    params: Mapping[str, str]
    query: Mapping[str, str]
    form: Mapping[str, str]
    files: Mapping[str, FormFile]
    address: str
    secure: bool
    now: float
    set_cookie: str | None = None  # a new session cookie to send (a first visit, login, logout)
    headers: dict[str, str] = field(default_factory=dict)
    if_none_match: str | None = None  # the request's If-None-Match (a static file's ETag: a 304)
    base: str = ""  # the contest's pages' base path: "" (a single contest) or "/contests/<cid>" (a site)
    site_name: str | None = None  # the site's name (a contest of a site: its pages link to the site's ``/``)
    account: Viewer | None = None  # the session's account when this contest sees it otherwise (not taking part)

    def url(self, path: str) -> str:
        """The URL of the contest's page ``path`` (``/submit``, ``/admin?message=...``): under ``base``. The
        one builder of a contest page's URL in the handlers (the templates use ``{{ base }}``)."""
        if not path.startswith("/"):
            raise ValueError(f"a contest page's path starts with /: {path!r}")
        return self.base + path

    @property
    def contest_id(self) -> str:
        return self.server.contest.info.id

    @property
    def sight(self) -> Sight:
        """What the viewer may see now."""
        return self.server.sight(self.viewer, self.now)

    def need_login(self) -> None:
        if self.viewer.role is Role.PUBLIC:
            raise Redirect("/login")

    def need_team(self) -> None:
        self.need_login()
        if self.viewer.staff:
            raise Redirect(self.url("/admin"))
        if self.viewer.role is not Role.TEAM:
            raise Refused(403, "this page is for teams")

    def need_staff(self) -> None:
        self.need_login()
        if not self.viewer.staff:
            raise Refused(403, "this page is for judges and admins")

    def confirm(self, kind: str, back: str, **slots: object) -> None:
        """Go on only if the form was confirmed (``confirmed=yes``: confirm.py); else the confirmation page
        (``back``: where Cancel leads), and nothing is done."""
        if self.form.get("confirmed") != "yes":
            raise Unconfirmed(confirm.question(kind, **slots), back)

    def render(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        server = self.server
        phase = server.timeline.phase
        state = phase.state_json(self.now)
        team = server.contest.team(self.viewer.team_id) if self.viewer.team_id else None
        common = {
            "contest": server.contest.info,
            "base": self.base,  # every contest link: {{ base }}/submit (the site-level ones have none)
            "site_name": self.site_name,
            "account": self.account if self.account != self.viewer else None,
            "viewer": self.viewer,
            "team": team,
            "csrf": csrf(self.set_cookie or self.cookie),
            "state": state,
            "board_frozen": phase.board_frozen(self.now),
            "freeze_s": phase.freeze_s,
            "judge_version": __version__,
            "path": self.params.get("_path", ""),
            "start_at": None if server.contest.info.start_s is None else format_time(server.contest.info.start_s),
            # the header's notices (each read from storage) are drawn by the pages' layout and by their own
            # fragments only: not by the other fragments live.js polls (issue 32: a team's page every 2-5 s)
            "clar_notice": notice_context(self) if _shows(template, CLAR_NOTICE) else None,
            "fuzz_notice": fuzz_notice_context(self) if _shows(template, FUZZ_NOTICE) else None,  # the jury's only
            "status": status_line(server, self.now),
            "is_course": server.course.state is not None,  # a course's assignment (issue 45): its pages
        }
        html = self.env.get_template(template).render({**common, **context})
        return HTMLResponse(html, status_code=status)


CLAR_NOTICE, FUZZ_NOTICE = "serve/_clar_notice.html", "serve/_fuzzing_notice.html"


def _shows(template: str, notice: str) -> bool:
    """Whether ``template`` draws ``notice``: a whole page (its layout does) or that notice's fragment; the
    other fragments (``serve/_*.html``) do not."""
    return not template.startswith("serve/_") or template == notice


def _clock(seconds: float) -> str:
    return format_reltime(max(0.0, seconds)).split(".")[0]


def status_line(server: Server, now: float) -> dict[str, Any]:
    """The contest clock every page shows (live: an admin may move the start, pause the countdown or change
    the duration): ``stage`` (``unscheduled``, ``paused``, ``before``, ``running``, ``ended``), the seconds
    left to the start or to the end (``left_s``, counted down each second by live.js), what is left of a
    paused countdown, the start and the end, and the time into the contest (never before 0 nor past the
    end: the scoreboard's line)."""
    info = server.contest.info
    start, end = info.start_s, info.end_s
    if start is None:
        stage = "paused" if info.countdown_pause_s is not None else "unscheduled"
    elif now < start:
        stage = "before"
    elif end is None or now < end:
        stage = "running"
    else:
        stage = "ended"
    left = None
    if stage == "before" and start is not None:
        left = start - now
    elif stage == "running" and end is not None:
        left = end - now
    elapsed = None if start is None else min(max(0.0, now - start), info.duration_s)
    return {
        "stage": stage,
        "left_s": None if left is None else round(left, 1),
        "left": None if left is None else _clock(left),
        "paused_left": None if info.countdown_pause_s is None else _clock(info.countdown_pause_s),
        "start_s": start,
        "end_s": end,
        "elapsed": None if elapsed is None else _clock(elapsed),
    }


def clock_time(seconds: float | None) -> Markup:
    """A moment as the viewer's clock shows it: ``<time class="clock">`` with the ISO time, which live.js
    writes in the viewer's own time zone (with the date when it is not today); without scripts the UTC time
    of day."""
    if seconds is None:
        return Markup("")
    text = time.strftime("%H:%M:%S UTC", time.gmtime(seconds))
    return Markup('<time class="clock" datetime="{}">{}</time>').format(format_time(seconds), text)


_ISO_TIME = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def local_times(text: str) -> Markup:
    """A message whose times (``format_time``'s, as the services write them: "closed at 2030-...+00:00") are
    shown in the viewer's clock: each a ``<time class="clock">`` (live.js), the rest escaped."""
    out, last = [], 0
    for m in _ISO_TIME.finditer(text):
        out.append(escape(text[last : m.start()]))
        out.append(Markup('<time class="clock" datetime="{}">{}</time>').format(m.group(0), m.group(0)))
        last = m.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


def css_string(text: str) -> Markup:
    """``text`` inside a CSS string (``"..."``): every character but letters and digits escaped."""
    return Markup("".join(ch if ch.isascii() and ch.isalnum() else f"\\{ord(ch):x} " for ch in text))


def contest_time(seconds: float | None, start_s: float | None) -> str:
    """A moment as contest time, ``h:mm:ss`` since the start (``-h:mm:ss`` before it)."""
    if seconds is None or start_s is None:
        return ""
    since = seconds - start_s
    return ("-" if since < 0 else "") + format_reltime(abs(since)).split(".")[0]


Handler = Callable[[Page], Response]


def check_base(base: str) -> str:
    """A contest's base path as the route table takes it: "" or ``/a/b`` (a leading slash, none at the end,
    no empty, ``.`` or ``..`` segment, nothing a URL would have to escape)."""
    if base == "":
        return base
    segments = base.split("/")
    ok = base.startswith("/") and all(s not in ("", ".", "..") for s in segments[1:])
    if not ok or any(not (ch.isascii() and (ch.isalnum() or ch in "-_./")) for ch in base):
        raise ValueError(f"a page base path is empty or like /contests/main, not {base!r}")
    return base


@dataclass(frozen=True)
class PageSpec:
    method: str
    path: str
    handler: Handler
    form_limit: str = "small"  # small | submission | package | roster
    # the public's answer on the event loop when it needs no storage (None: then ``handler``, in a request
    # thread): what a rush's 100 board polls a second would otherwise wait for a request thread to give
    on_loop: Callable[[Page], Response | None] | None = None
    # a site-level page (/login, /logout, /static/..., /favicon.ico): at the top of the site, never under a
    # contest's base path (False: a contest's page, mounted under its base)
    site: bool = False
    runner: bool = False  # open to a balloon runner's account (issue 47: the balloons, the clock, the home)


def _form_limit(server: Server, kind: str) -> int:
    if kind == "package":
        return PACKAGE_FORM
    if kind == "roster":
        return ROSTER_FORM
    if kind != "submission":
        return FORM_SLACK
    return max(p.code_limit_kib for p in server.contest.problems) * 1024 * 4 + FORM_SLACK


def _admits_form(spec: PageSpec, viewer: Viewer) -> None:
    """Before a form larger than the ordinary one (``FORM_SLACK``) is read: whether this viewer may send it
    at all (issue 43): a submission's or a print-out's form from those logged in, a package from admins;
    the others are sent to the login (or refused) with nothing read."""
    if viewer.role is Role.PUBLIC:
        raise Redirect("/login")
    if spec.form_limit == "package" and viewer.role is not Role.ADMIN:
        raise Refused(403, "only admins may upload packages")
    if spec.form_limit == "roster" and viewer.role is not Role.ADMIN:
        raise Refused(403, "only admins may import a roster")


async def read_form(request: Request, limit: int, seconds: float) -> tuple[dict[str, str], dict[str, FormFile]]:
    """A page's form (urlencoded, or multipart with at most two files)."""
    body = await read_body(request, limit, seconds)
    kind = media_type(request.headers.get("content-type"))
    if kind == MULTIPART:
        form = await parse_form(request.headers, body, max_files=2, max_fields=30, limit=limit)
        return dict(form.fields), form.file_map()
    if kind == "application/x-www-form-urlencoded":
        return dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True)), {}
    return {}, {}


def confirm_page(page: Page, asked: Unconfirmed) -> HTMLResponse:
    """The question, and the same form again, confirmed (``page.form`` without its token and confirmation)."""
    fields = {k: v for k, v in page.form.items() if k not in ("csrf", "confirmed")}
    action = page.params.get("_path") or page.url("/")  # the request's own path: under the base already
    return page.render("serve/confirm.html", question=asked.question, back=asked.back, action=action, fields=fields)


def error_page(page: Page, status: int, message: str) -> HTMLResponse:
    return page.render("serve/error.html", status=status, status_code=status, message=message)


async def html_error(
    server: Server, env: Environment, request: Request, status: int, message: str, base: str = ""
) -> Response:
    """The pages' error page for a request no page handles (app.py: an unknown path, for a browser), as the
    viewer of its session, its links under the contest's ``base``; no new cookie."""
    now = server.clock.now()
    cookie = request.cookies.get(COOKIE) or ""
    viewer = PUBLIC
    if sessions.well_formed(cookie):
        viewer = await run_in_threadpool(session_viewer, server, cookie, now)
    page = Page(
        server=server,
        env=env,
        cookie=cookie or sessions.new_cookie(),
        viewer=viewer,
        params={"_path": request.url.path},
        query={},
        form={},
        files={},
        address=request.client.host if request.client else "unknown",
        secure=request.url.scheme == "https",
        now=now,
        base=base,
    )
    response = await run_in_threadpool(error_page, page, status, message)
    for k, v in SECURITY_HEADERS.items():
        response.headers.setdefault(k, v)
    return response


def session_viewer(server: Server, cookie: str | None, now: float) -> Viewer:
    """Who the session cookie belongs to (the site's sessions: one login for every contest), as this contest
    sees them (``Server.viewer_in``: a team that does not take part is the public here)."""
    return server.viewer_in(sessions.viewer_of(server.people, cookie, now))


def known_viewer(server: Server, cookie: str | None, now: float) -> Viewer | None:
    """``session_viewer`` when it needs no storage (sessions.known_viewer); None otherwise."""
    viewer = sessions.known_viewer(server.people, cookie, now)
    return None if viewer is None else server.viewer_in(viewer)


def _on_loop(server: Server, answer: Callable[[Page], Response | None], page: Page, fresh: bool) -> Response | None:
    """``answer`` on the event loop when the viewer is known without storage (no cookie, or a session kept
    in memory); None: the page's handler answers in a thread."""
    account = PUBLIC if fresh else sessions.known_viewer(server.people, page.cookie, page.now)
    if account is None:
        return None
    page.viewer, page.account = server.viewer_in(account), account
    return answer(page)


def page_endpoint(
    server: Server,
    env: Environment,
    spec: PageSpec,
    changes: Callable[..., Awaitable[Any]] = run_in_threadpool,
    deadlines: BodyDeadlines = DEADLINES,
    base: str = "",
    site_name: str | None = None,
) -> Any:
    """``spec``'s endpoint; ``changes`` runs a POST's work in a thread (http/app.py's Lane: threads of its own);
    a form must arrive within ``deadlines``; ``base``: the contest's pages' base path (``Page.base``);
    ``site_name``: the site's, for a contest of a site."""
    base = check_base(base)
    limit = _form_limit(server, spec.form_limit)
    seconds = deadlines.package_seconds if spec.form_limit == "package" else deadlines.seconds

    def ticked(page: Page) -> Response:
        """The page, for the session's viewer, after the contest clock's tick (one trip to a worker thread)."""
        account = sessions.viewer_of(server.people, page.cookie, page.now)
        page.viewer, page.account = server.viewer_in(account), account  # as this contest sees the account
        server.timeline.tick()
        if runner_only(page.viewer) and not (spec.runner or spec.site):  # issue 47: the balloons only
            raise Refused(403, "a balloon runner's account sees the balloons and nothing else")
        try:
            return spec.handler(page)
        except Unconfirmed as asked:  # the confirmation page, drawn here (its header reads storage)
            return confirm_page(page, asked)

    async def endpoint(request: Request) -> Response:
        now = server.clock.now()
        cookie = request.cookies.get(COOKIE)
        fresh = not sessions.well_formed(cookie)
        if cookie is None or fresh:
            cookie = sessions.new_cookie()
        page = Page(
            server=server,
            env=env,
            cookie=cookie,
            viewer=PUBLIC,
            params={**request.path_params, "_path": request.url.path},
            query=dict(request.query_params),
            form={},
            files={},
            address=request.client.host if request.client else "unknown",
            secure=request.url.scheme == "https",
            now=now,
            set_cookie=cookie if fresh else None,
            if_none_match=request.headers.get("if-none-match"),
            base=base,
            site_name=site_name,
        )
        unread = spec.method == "POST"  # an answer before the form was read closes the connection
        try:
            refusal = cross_site(
                spec.method, request.headers.get("origin"), request.url.scheme, request.headers.get("host")
            )
            if refusal is not None:
                raise Refused(403, refusal)
            if spec.method == "POST":
                if spec.form_limit != "small":  # who asks, from memory when the session is kept there
                    known = known_viewer(server, page.cookie, page.now)
                    if known is None:
                        known = await run_in_threadpool(session_viewer, server, page.cookie, page.now)
                    page.viewer = known
                    _admits_form(spec, page.viewer)
                page.form, page.files = await read_form(request, limit, seconds)
                unread = False
                if fresh or not csrf_ok(cookie, page.form.get("csrf")):
                    raise Refused(403, "this form has expired or did not come from this site: reload the page")
            response = None
            if spec.on_loop is not None and server.timeline.settled():
                response = _on_loop(server, spec.on_loop, page, fresh)
            if response is None:
                response = await (changes if spec.method == "POST" else run_in_threadpool)(ticked, page)
            if spec.on_loop is not None and fresh and page.viewer.role is Role.PUBLIC:
                # a first visit to a page answered on the loop when made gets no session cookie, from either
                # path: it has no form to protect, and a browser without one keeps being answered there
                page.set_cookie = None
        except Redirect as r:
            response = RedirectResponse(r.url, status_code=303)
        except Refused as exc:
            if page.viewer is PUBLIC and not fresh:  # refused before the session was looked up (CSRF, Origin)
                try:
                    page.viewer = await run_in_threadpool(session_viewer, server, page.cookie, page.now)
                except Refused:  # the database cannot be reached (503): the refusal as the public's page
                    pass
            response = error_page(page, exc.status, exc.message)
            for k, v in (exc.headers or {}).items():
                response.headers[k] = v
        for k, v in {**SECURITY_HEADERS, **page.headers, **(CLOSE if unread else {})}.items():
            response.headers.setdefault(k, v)
        if page.set_cookie is not None:
            response.headers.append("set-cookie", cookie_header(page.set_cookie, secure=page.secure))
        return response

    return endpoint
