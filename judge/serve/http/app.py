"""The ASGI app (Starlette): the route table of api.py and of the HTML pages (pages.py, admin_pages.py,
each wrapped by web.py), each API handler wrapped to authenticate, read a
bounded body, run in a worker thread (SQLite and argon2 block) and answer JSON. Every error is the
spec's ``{"code", "message"}`` object with its status: 404 for unknown paths and ids, 405 for a wrong
method, 4xx for a bad request, and a bare 500 (no traceback) for the judge's own bug.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio.to_thread
from jinja2 import Environment
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from judge.judging.jobs import MAX_FOLDER_FILES
from judge.serve.http.api.contest import ROUTES, RouteSpec
from judge.serve.http.api.context import Ctx
from judge.serve.http.forms import CLOSE, DEADLINES, MULTIPART, BodyDeadlines, parse_form, read_body
from judge.serve.http.origin import cross_site, media_type, unsupported_body
from judge.serve.http.pages.admin_pages import ADMIN_PAGES
from judge.serve.http.pages.awards_page import AWARDS_PAGES
from judge.serve.http.pages.clar_pages import CLAR_PAGES
from judge.serve.http.pages.compare_pages import COMPARE_PAGES
from judge.serve.http.pages.course_pages import COURSE_PAGES
from judge.serve.http.pages.explain_pages import EXPLAIN_PAGES
from judge.serve.http.pages.fuzz_pages import FUZZ_PAGES
from judge.serve.http.pages.live_pages import LIVE_PAGES
from judge.serve.http.pages.overview_pages import OVERVIEW_PAGES
from judge.serve.http.pages.people_pages import PEOPLE_PAGES
from judge.serve.http.pages.preview_pages import PREVIEW_PAGES
from judge.serve.http.pages.print_pages import PRINT_PAGES
from judge.serve.http.pages.rejudging_pages import REJUDGING_PAGES
from judge.serve.http.pages.resolver_page import RESOLVER_PAGES
from judge.serve.http.pages.run_pages import RUN_PAGES
from judge.serve.http.pages.similarity_pages import SIMILARITY_PAGES
from judge.serve.http.pages.team_pages import PAGES
from judge.serve.http.pages.verification_pages import VERIFICATION_PAGES
from judge.serve.http.pages.web import PageSpec, check_base, environment, html_error, page_endpoint
from judge.serve.model.errors import Refused
from judge.serve.model.viewer import PUBLIC, Role, Viewer
from judge.serve.services.judging.previews import PACKAGE_LIMIT
from judge.serve.services.people import access
from judge.serve.services.people.access import REALM
from judge.serve.services.people.accounts import Authenticator, AuthError
from judge.serve.site.server import Server
from judge.serve.visibility import runner_only

SMALL_BODY = 64 * 1024
PACKAGE_BODY = PACKAGE_LIMIT  # a package version's zip (issue 33)
MAX_FILES = MAX_FOLDER_FILES  # a multipart submission's files (DOMjudge's code[])


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"code": status, "message": message}, status_code=status, headers=headers)


def _submission_body_limit(server: Server) -> int:
    """base64 of the largest allowed zip, and room for the rest of the JSON."""
    largest = max(p.code_limit_kib for p in server.contest.problems) * 1024
    return largest * 4 // 3 + SMALL_BODY


T = TypeVar("T")


class Lane:
    """Worker threads of their own for the requests that change something (with a body: a submission, a
    login, a clarification), at most ``threads`` at once: in a rush the request threads are all taken by
    page polls (500 teams' submissions pages every few seconds), and a submission waited behind them, twice
    (its credentials, then its transaction). Its limiter is per event loop, as anyio's own."""

    def __init__(self, threads: int) -> None:
        self._threads = threads
        self._limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.CapacityLimiter] = (
            weakref.WeakKeyDictionary()
        )

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        limiter = self._limiters.get(loop)
        if limiter is None:
            limiter = self._limiters[loop] = anyio.CapacityLimiter(self._threads)
        return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)


def admits_body(spec: RouteSpec, viewer: Viewer) -> None:
    """Before a body larger than the ordinary one (``SMALL_BODY``) is read: whether this viewer may send it
    at all (issue 43: 24 anonymous uploads of 64 MiB each were held in memory before they were refused).
    A route with a larger body takes it from accounts only, a package from admins only; the others are
    refused (401, 403) with nothing read. Every handler of those routes refuses them anyway."""
    if spec.body_limit != "small":
        access.authenticated(viewer, "send this")
    if spec.body_limit == "package":
        access.admin(viewer, "upload packages")


@dataclass(frozen=True)
class ApiContests:
    """Where an API request's contest comes from: a single contest's server (its handlers check the URL's
    id), or a site's, resolved from the URL's ``cid`` for who asks (site/site.py: a contest hidden from them
    is a 404 exactly as an unknown id). ``auth``: the logins (the site's: one login for every contest)."""

    auth: Authenticator
    resolve: Callable[[str | None, Viewer], Server]

    @staticmethod
    def single(server: Server) -> ApiContests:
        return ApiContests(server.auth, lambda cid, viewer: server)


def api_endpoint(contests: ApiContests, spec: RouteSpec, lane: Lane, deadlines: BodyDeadlines) -> Any:
    seconds = deadlines.package_seconds if spec.body_limit == "package" else deadlines.seconds
    has_body = spec.method in ("POST", "PUT", "PATCH")  # a body of one of spec.bodies' types, or none

    def body_limit(server: Server) -> int:
        limit = _submission_body_limit(server) if spec.body_limit == "submission" else SMALL_BODY
        return PACKAGE_BODY if spec.body_limit == "package" else limit

    def admit(authorization: str | None, address: str, cid: str | None) -> tuple[Server, Viewer]:
        """Who asks (the site's account), the contest they ask of, and who they are there."""
        account = contests.auth.authenticate(authorization, address)
        server = contests.resolve(cid, account)
        server.timeline.tick()
        viewer = server.viewer_in(account)  # as this contest sees them
        if has_body and account.role is Role.TEAM and viewer.role is Role.PUBLIC:
            raise Refused(403, f"your team does not take part in contest {cid!r}")  # a site's (issue 44)
        if runner_only(viewer) and not spec.runner:  # issue 47: a balloon runner's account, the balloons only
            raise Refused(403, "a balloon runner's account sees the balloons and nothing else")
        return server, viewer

    def answer(authorization: str | None, address: str, params: dict[str, Any], query: dict[str, str]) -> Any:
        """A request without a body, in one trip to a worker thread (the answer under load is mostly the
        wait for a thread, so one trip instead of three)."""
        server, viewer = admit(authorization, address, params.get("cid"))
        return spec.handler(Ctx(server, viewer, params, query, b"", server.clock.now()))

    async def endpoint(request: Request) -> Response:
        address = request.client.host if request.client else "unknown"
        authorization = request.headers.get("authorization")
        params, query = dict(request.path_params), dict(request.query_params)
        content_type = request.headers.get("content-type")
        unread = has_body  # a refusal before the body was read closes the connection: the rest is not read
        try:
            refusal = cross_site(
                spec.method, request.headers.get("origin"), request.url.scheme, request.headers.get("host")
            )
            if refusal is not None:
                raise Refused(403, refusal)
            if has_body and (refusal := unsupported_body(content_type, spec.bodies)) is not None:
                raise Refused(415, refusal)
            if not has_body and not spec.stream:
                result = None
                if spec.on_loop is not None and authorization is None:
                    # the public's, when made: on the loop (no storage, no hashing), else in a thread
                    public = contests.resolve(params.get("cid"), PUBLIC)
                    if public.timeline.settled():
                        result = spec.on_loop(Ctx(public, PUBLIC, params, query, b"", public.clock.now()))
                if result is None:
                    result = await run_in_threadpool(answer, authorization, address, params, query)
            else:
                run = lane.run if has_body else run_in_threadpool
                server, viewer = await run(admit, authorization, address, params.get("cid"))
                if has_body:
                    admits_body(spec, viewer)
                limit = body_limit(server)
                body = await read_body(request, limit, seconds) if has_body else b""
                unread = False
                kind = (media_type(content_type) or spec.bodies[0]) if has_body else None
                form = None
                if kind == MULTIPART:  # one of spec.bodies (else the 415 above)
                    form = await parse_form(request.headers, body, max_files=MAX_FILES, max_fields=16, limit=limit)
                    body = b""
                ctx = Ctx(server, viewer, params, query, body, server.clock.now(), kind, form)
                result = await spec.handler(ctx) if spec.stream else await lane.run(spec.handler, ctx)
        except Refused as exc:
            return error(exc.status, exc.message, {**exc.headers, **(CLOSE if unread else {})})
        except AuthError as exc:
            headers = {"WWW-Authenticate": REALM} if exc.status == 401 else {}
            if exc.retry_after_s is not None:
                headers["Retry-After"] = str(max(1, int(exc.retry_after_s + 0.999)))
            return error(exc.status, exc.message, {**headers, **(CLOSE if unread else {})})
        if isinstance(result, Response):
            return result
        return JSONResponse(result)

    return endpoint


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    messages = {404: f"no such endpoint: {request.url.path}", 405: f"{request.method} is not allowed here"}
    return error(exc.status_code, messages.get(exc.status_code, str(exc.detail)), dict(exc.headers or {}))


def _not_found(server: Server, env: Environment, base: str) -> Callable[[Request, Exception], Awaitable[Response]]:
    """An unknown path: for a browser (it accepts text/html) outside /api, the pages' 404 page (its links
    under the contest's ``base``); else the API's JSON error."""

    async def handler(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        path = request.url.path
        api = path == "/api" or path.startswith("/api/")
        if exc.status_code == 404 and not api and "text/html" in request.headers.get("accept", ""):
            return await html_error(server, env, request, 404, f"there is no page {path}", base)
        return await http_error(request, exc)

    return handler


async def internal_error(request: Request, exc: Exception) -> Response:
    return error(500, f"internal error (judge's bug, not yours): {type(exc).__name__}")


class Cors:
    """``Access-Control-Allow-Origin: *`` on every answer, as the spec recommends."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"access-control-allow-origin", b"*")]
            await send(message)

        await self.app(scope, receive, send_with_header)


# every HTML page of a contest: the contest's own (under its base path) and the site-level ones (PageSpec.site)
PAGE_SPECS: tuple[PageSpec, ...] = (
    *PAGES,
    *ADMIN_PAGES,
    *CLAR_PAGES,
    *RESOLVER_PAGES,
    *LIVE_PAGES,
    *PEOPLE_PAGES,
    *PRINT_PAGES,
    *FUZZ_PAGES,  # live fuzzing's and the rejudge preview's (issue 33)
    *PREVIEW_PAGES,
    *AWARDS_PAGES,  # the final awards (issue 43)
    *COURSE_PAGES,  # a course's assignment (issue 45)
    *SIMILARITY_PAGES,  # similar submissions (issue 49)
    *RUN_PAGES,  # why a run failed (issue 47)
    *COMPARE_PAGES,  # two submissions compared (issue 47)
    *REJUDGING_PAGES,  # rejudgings as sets (issue 47)
    *VERIFICATION_PAGES,  # judgements verified before the teams see them (issue 47)
    *OVERVIEW_PAGES,  # the team overview and the statistics (issue 47)
    *EXPLAIN_PAGES,  # counterexamples for rejected submissions (issue 46)
)


def page_path(spec: PageSpec, base: str) -> str:
    """Where ``spec`` is mounted: a contest's page under its ``base`` (its home, ``/``, at ``base + "/"``),
    a site-level page at the top."""
    return spec.path if spec.site else check_base(base) + spec.path


def page_routes(
    server: Server,
    env: Environment,
    *,
    base: str = "",
    site: bool | None = None,
    changes: Callable[..., Awaitable[Any]] = run_in_threadpool,
    deadlines: BodyDeadlines = DEADLINES,
    site_name: str | None = None,
) -> list[Route]:
    """The routes of ``server``'s pages, a contest's pages under ``base`` ("" or ``/contests/<cid>``): all of
    them (``site`` None), only the site-level ones (True) or only the contest's (False). Each page's
    ``Page.base`` is ``base`` (a site-level page's too: the login sends to this contest's page)."""
    return [
        Route(
            page_path(spec, base),
            page_endpoint(server, env, spec, changes, deadlines, base, site_name),
            methods=[spec.method],
        )
        for spec in PAGE_SPECS
        if site is None or spec.site is site
    ]


def create_app(
    server: Server,
    *,
    background: bool = False,
    request_threads: int | None = None,
    change_threads: int = 2,
    deadlines: BodyDeadlines = DEADLINES,
    page_base: str = "",
) -> Starlette:
    """The app for ``server``. ``background``: start the judging pool and the contest clock with the app
    (the lifespan; `judge serve`), and stop them (letting running judgements finish) when it stops.
    ``request_threads``: at most this many requests at once in worker threads (`judge serve
    --request-threads`; None: anyio's 40), the rest wait their turn on the event loop. ``change_threads``:
    the requests with a body (submissions, logins, forms) have that many threads of their own (Lane).
    ``deadlines``: how long a request body may take to arrive (forms.BodyDeadlines). ``page_base``: the
    contest's pages under this path ("": today's URLs; ``/contests/<cid>``, as in a site of contests: issue
    44), the site-level pages (``/login``, ``/logout``, ``/static/...``, ``/favicon.ico``) and the API where
    they are."""
    page_base = check_base(page_base)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if request_threads is not None:
            # the threads share one interpreter lock: more of them do not serve more, but each one waiting
            # for it wakes every switch interval and takes a core from the event loop (docs/serve.md)
            anyio.to_thread.current_default_thread_limiter().total_tokens = request_threads
        if background:
            server.start()
        try:
            yield
        finally:
            if background:
                await run_in_threadpool(server.stop)

    env = environment()
    lane = Lane(change_threads)
    contests = ApiContests.single(server)
    routes = [Route(spec.path, api_endpoint(contests, spec, lane, deadlines), methods=[spec.method]) for spec in ROUTES]
    routes += page_routes(server, env, base=page_base, changes=lane.run, deadlines=deadlines)
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: _not_found(server, env, page_base), Exception: internal_error},
        lifespan=lifespan,
    )
    app.add_middleware(Cors)
    return app
