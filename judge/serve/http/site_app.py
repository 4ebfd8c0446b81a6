"""The ASGI app of a site of contests (issue 44; a single contest folder is served by app.py's
``create_app``, today's URLs).

- The API: ``/api`` and ``/api/contests`` (the contests the viewer may see, in the site's order) are the
  site's; every endpoint under ``/api/contests/<cid>/`` is the route table of app.py, whose contest is
  resolved per request from the URL for who asks (``Site.resolve``: a contest hidden from them is the same
  404 as an unknown id), with the viewer as that contest sees them (a team that does not take part is the
  public there).
- The pages: every contest page under ``/contests/<cid>/`` (its ``Page.base``), the contest's own page
  endpoints (web.py) chosen per request; the site's pages at the top (``/``, ``/login``, ``/logout``,
  ``/site``: pages/site_pages.py), the static files and the favicon.
- One 404 (site_pages.not_found) for a path nothing serves, an unknown contest and a contest hidden from
  the viewer: the routes are the same for every ``cid`` (a wrong method is a 405 for all of them alike).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from judge.serve.http.api.contest import ROUTES, contest_doc
from judge.serve.http.api.context import Ctx
from judge.serve.http.app import (
    PAGE_SPECS,
    ApiContests,
    Cors,
    Lane,
    api_endpoint,
    error,
    http_error,
    internal_error,
)
from judge.serve.http.forms import DEADLINES, BodyDeadlines
from judge.serve.http.pages.sessions import COOKIE
from judge.serve.http.pages.site_pages import FORM_LIMITS, SITE_PAGES, SMALL_FORM, not_found, site_endpoint, viewer_of
from judge.serve.http.pages.web import PageSpec, environment, page_endpoint
from judge.serve.model.apijson import api_json
from judge.serve.services.people.access import REALM
from judge.serve.services.people.accounts import AuthError
from judge.serve.site.site import Site
from judge.serve.visibility import sees_contest

SITE_API = ("/api", "/api/", "/api/contests")  # the site's own endpoints; the rest are a contest's
TOP_PAGES = ("/static/{name}", "/favicon.ico")  # the contests' site-level pages the site serves as they are


def contests_list(site: Site) -> Callable[[Request], Awaitable[Response]]:
    """``GET /api/contests``: the contest object of each contest the viewer may see, as each one shows it."""

    def answer(authorization: str | None, address: str, query: dict[str, str]) -> Any:
        account = site.people.auth.authenticate(authorization, address)
        out = []
        for c in site.seen_by(account):
            server = c.server
            server.timeline.tick()
            ctx = Ctx(server, server.viewer_in(account), {"cid": c.id}, query, b"", server.clock.now())
            out.append(contest_doc(ctx))
        return out

    async def endpoint(request: Request) -> Response:
        address = request.client.host if request.client else "unknown"
        try:
            found = await run_in_threadpool(
                answer, request.headers.get("authorization"), address, dict(request.query_params)
            )
        except AuthError as exc:
            headers = {"WWW-Authenticate": REALM} if exc.status == 401 else {}
            if exc.retry_after_s is not None:
                headers["Retry-After"] = str(max(1, int(exc.retry_after_s + 0.999)))
            return error(exc.status, exc.message, headers)
        return JSONResponse(found)

    return endpoint


async def api_root(request: Request) -> Response:
    return JSONResponse(api_json())


Endpoint = Callable[[Request], Awaitable[Response]]


def _contest_pages(
    site: Site, endpoint_of: Callable[[str], Endpoint], missing: Endpoint
) -> Callable[[Request], Awaitable[Response]]:
    """A contest page of every contest (``/contests/{cid}`` + its path): the contest's own endpoint
    (``endpoint_of``; a contest added live too), or the site's 404 for an unknown contest and for a hidden one
    the viewer may not see."""

    async def endpoint(request: Request) -> Response:
        cid = request.path_params["cid"]
        found = site.contest(cid)
        if found is None or found.hidden:  # the same steps for both: the session looked up, then the 404
            viewer = await run_in_threadpool(viewer_of, site, request.cookies.get(COOKIE), site.clock.now())
            if found is None or not sees_contest(viewer, found.hidden):
                return await missing(request)
        return await endpoint_of(cid)(request)

    return endpoint


async def _to_home(request: Request) -> Response:
    return RedirectResponse(f"/contests/{request.path_params['cid']}/", status_code=303)


def create_site_app(
    site: Site,
    *,
    background: bool = False,
    request_threads: int | None = None,
    change_threads: int = 2,
    deadlines: BodyDeadlines = DEADLINES,
) -> Starlette:
    """The app of ``site`` (several contests). ``background``: start the judging pool and every contest's
    clock with the app, and stop them when it stops. The other options: as app.create_app's."""
    if site.single:
        raise ValueError("a single contest is served by create_app (today's URLs)")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if request_threads is not None:
            anyio.to_thread.current_default_thread_limiter().total_tokens = request_threads
        if background:
            site.start()
        try:
            yield
        finally:
            if background:
                await run_in_threadpool(site.stop)

    env = environment()
    lane = Lane(change_threads)
    missing = not_found(site, env)
    contests = ApiContests(site.people.auth, site.resolve)
    routes: list[Route] = [
        Route(spec.path, api_endpoint(contests, spec, lane, deadlines), methods=[spec.method])
        for spec in ROUTES
        if spec.path not in SITE_API
    ]
    routes += [Route("/api", api_root), Route("/api/", api_root), Route("/api/contests", contests_list(site))]
    made: dict[tuple[str, str, str], Endpoint] = {}  # (contest, method, path): the page's endpoint, made once

    def page_of(spec: PageSpec) -> Callable[[str], Endpoint]:
        def endpoint_of(cid: str) -> Endpoint:
            key = (cid, spec.method, spec.path)
            found = made.get(key)
            if found is None:
                contest = site.contest(cid)
                assert contest is not None
                base = f"/contests/{cid}"
                found = page_endpoint(contest.server, env, spec, lane.run, deadlines, base, site.name)
                made[key] = found  # one dict item: two threads may make it twice, both alike
            return found

        return endpoint_of

    for spec in PAGE_SPECS:
        if not spec.site:
            endpoint = _contest_pages(site, page_of(spec), missing)
            routes.append(Route(f"/contests/{{cid}}{spec.path}", endpoint, methods=[spec.method]))
    routes.append(Route("/contests/{cid}", _contest_pages(site, lambda cid: _to_home, missing)))
    for method, path, handler in SITE_PAGES:
        run = lane.run if method == "POST" else run_in_threadpool
        limit = FORM_LIMITS.get(path, SMALL_FORM)
        routes.append(Route(path, site_endpoint(site, env, method, handler, run, deadlines, limit), methods=[method]))
    first = site.contests()[0].server
    for spec in PAGE_SPECS:
        if spec.site and spec.path in TOP_PAGES:
            routes.append(Route(spec.path, page_endpoint(first, env, spec, lane.run, deadlines), methods=[spec.method]))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return await missing(request)
        return await http_error(request, exc)

    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: on_http_error, Exception: internal_error},
        lifespan=lifespan,
    )
    app.add_middleware(Cors)
    return app
