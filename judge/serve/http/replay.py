"""`judge serve --replay ARCHIVE`: the app of a finished contest, read-only (services/replay.py says what
it shows). The Contest API's GET endpoints of what the public sees (``access`` says which; ``runs`` is
empty, as for the public of the live server), the event feed (all of it, then the
stream ends: the contest is final), and one page, the final scoreboard with the awards. Every other path is
a 404, every other method a 405: nothing can be changed."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from judge.serve.http.api import access_json
from judge.serve.http.web import SECURITY_HEADERS, environment
from judge.serve.model.viewer import PUBLIC as PUBLIC_VIEWER
from judge.serve.services.replay import PUBLIC, Replay

OBJECTS = ("contest", "state", "scoreboard")  # endpoints that are one object, not a collection


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"code": status, "message": message}, status_code=status)


def create_replay_app(replay: Replay) -> Starlette:
    cid = replay.contest_id
    pass_fail = replay.docs["contest"].get("scoreboard_type", "pass-fail") == "pass-fail"
    env = environment()

    def contest_of(request: Request) -> None:
        if request.path_params["cid"] != cid:
            raise HTTPException(404, f"no contest {request.path_params['cid']!r}")

    async def api(request: Request) -> Response:
        return JSONResponse(replay.api)

    async def contests(request: Request) -> Response:
        return JSONResponse([replay.docs["contest"]])

    async def contest(request: Request) -> Response:
        contest_of(request)
        return JSONResponse(replay.docs["contest"])

    async def access(request: Request) -> Response:
        contest_of(request)
        endpoints = access_json(PUBLIC_VIEWER, pass_fail)["endpoints"]
        return JSONResponse({"capabilities": [], "endpoints": [e for e in endpoints if e["type"] != "accounts"]})

    async def endpoint(request: Request) -> Response:
        contest_of(request)
        kind = request.path_params["kind"]
        if kind == "runs":
            return JSONResponse([])  # the public sees no runs
        if kind not in PUBLIC:
            raise HTTPException(404, f"no such endpoint in a replay: {kind}")
        return JSONResponse(replay.docs[kind])

    async def item(request: Request) -> Response:
        contest_of(request)
        kind, oid = request.path_params["kind"], request.path_params["id"]
        if kind not in PUBLIC or kind in OBJECTS:
            raise HTTPException(404, f"no such endpoint in a replay: {kind}/{oid}")
        found = [o for o in replay.docs[kind] if str(o.get("id")) == oid]
        if not found:
            raise HTTPException(404, f"no {kind.rstrip('s')} {oid!r}")
        return JSONResponse(found[0])

    async def event_feed(request: Request) -> Response:
        contest_of(request)
        since = request.query_params.get("since_token", request.query_params.get("since_id"))
        start = 0
        if since is not None:
            if not since.isdigit() or int(since) > len(replay.feed):
                raise HTTPException(400, f"since_token {since!r}: not a token of this feed")
            start = int(since)
        return Response("".join(replay.feed[start:]), media_type="application/x-ndjson")

    async def board(request: Request) -> Response:
        teams = {t["id"]: t for t in replay.docs["teams"]}
        orgs = {o["id"]: o for o in replay.docs["organizations"]}
        html = env.get_template("serve/replay.html").render(
            contest=replay.docs["contest"],
            state=replay.docs["state"],
            problems=replay.docs["problems"],
            rows=replay.docs["scoreboard"].get("rows", []),
            teams=teams,
            orgs=orgs,
            awards=[a for a in replay.docs["awards"] if a.get("team_ids")],
        )
        return HTMLResponse(html, headers=SECURITY_HEADERS)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        messages: dict[int, str] = {405: f"{request.method}: a replay is read-only"}
        return _error(exc.status_code, messages.get(exc.status_code, str(exc.detail)))

    c = "/api/contests/{cid}"
    routes: list[Any] = [
        Route("/", board),
        Route("/scoreboard", board),
        Route("/api", api),
        Route("/api/", api),
        Route("/api/contests", contests),
        Route(c, contest),
        Route(f"{c}/event-feed", event_feed),
        Route(f"{c}/access", access),
        Route(f"{c}/{{kind}}", endpoint),
        Route(f"{c}/{{kind}}/{{id}}", item),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error})
