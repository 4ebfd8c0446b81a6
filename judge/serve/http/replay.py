"""`judge serve --replay ARCHIVE`: the app of a finished contest, read-only (services/lifecycle/replay.py says what
it shows). The Contest API's GET endpoints of what the public sees (``access`` says which; ``runs`` is
empty, as for the public of the live server), the event feed (all of it, then the
stream ends: the contest is final), and one page, the final scoreboard with the awards. Every other path is
a 404, every other method a 405: nothing can be changed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from judge.scoreboard.passfail import Cell
from judge.scoreboard.passfailview import cell_view, minutes
from judge.scoreboard.times import parse_reltime
from judge.serve.http.api.contest import access_json
from judge.serve.http.pages.team_pages import STATIC
from judge.serve.http.pages.web import SECURITY_HEADERS, environment
from judge.serve.model.viewer import PUBLIC as PUBLIC_VIEWER
from judge.serve.services.lifecycle.replay import PUBLIC, Replay

OBJECTS = ("contest", "state", "scoreboard")  # endpoints that are one object, not a collection


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"code": status, "message": message}, status_code=status)


@dataclass(frozen=True)
class _Handlers:
    """The replay's endpoints, over the archive it serves."""

    replay: Replay
    env: Environment

    def contest_of(self, request: Request) -> None:
        if request.path_params["cid"] != self.replay.contest_id:
            raise HTTPException(404, f"no contest {request.path_params['cid']!r}")

    async def api(self, request: Request) -> Response:
        return JSONResponse(self.replay.api)

    async def contests(self, request: Request) -> Response:
        return JSONResponse([self.replay.docs["contest"]])

    async def contest(self, request: Request) -> Response:
        self.contest_of(request)
        return JSONResponse(self.replay.docs["contest"])

    async def access(self, request: Request) -> Response:
        self.contest_of(request)
        pass_fail = self.replay.docs["contest"].get("scoreboard_type", "pass-fail") == "pass-fail"
        endpoints = access_json(PUBLIC_VIEWER, pass_fail)["endpoints"]
        return JSONResponse({"capabilities": [], "endpoints": [e for e in endpoints if e["type"] != "accounts"]})

    async def endpoint(self, request: Request) -> Response:
        self.contest_of(request)
        kind = request.path_params["kind"]
        if kind == "runs":
            return JSONResponse([])  # the public sees no runs
        if kind not in PUBLIC:
            raise HTTPException(404, f"no such endpoint in a replay: {kind}")
        return JSONResponse(self.replay.docs[kind])

    async def item(self, request: Request) -> Response:
        self.contest_of(request)
        kind, oid = request.path_params["kind"], request.path_params["id"]
        if kind not in PUBLIC or kind in OBJECTS:
            raise HTTPException(404, f"no such endpoint in a replay: {kind}/{oid}")
        found = [o for o in self.replay.docs[kind] if str(o.get("id")) == oid]
        if not found:
            raise HTTPException(404, f"no {kind.rstrip('s')} {oid!r}")
        return JSONResponse(found[0])

    async def event_feed(self, request: Request) -> Response:
        self.contest_of(request)
        feed = self.replay.feed
        since = request.query_params.get("since_token", request.query_params.get("since_id"))
        start = 0
        if since is not None:
            if not since.isdigit() or int(since) > len(feed):
                raise HTTPException(400, f"since_token {since!r}: not a token of this feed")
            start = int(since)
        return Response("".join(feed[start:]), media_type="application/x-ndjson")

    async def board(self, request: Request) -> Response:
        docs = self.replay.docs
        html = self.env.get_template("serve/replay.html").render(
            contest=docs["contest"],
            state=docs["state"],
            problems=docs["problems"],
            rows=board_rows(docs),
            teams={t["id"]: t for t in docs["teams"]},
            orgs={o["id"]: o for o in docs["organizations"]},
            awards=[a for a in docs["awards"] if a.get("team_ids")],
            penalty_minutes=minutes(_seconds(docs["contest"].get("penalty_time"))),
        )
        return HTMLResponse(html, headers=SECURITY_HEADERS)

    async def favicon(self, request: Request) -> Response:
        return Response((STATIC / "favicon.ico").read_bytes(), media_type="image/x-icon")


def _seconds(reltime: Any) -> float:
    return 0.0 if reltime is None else parse_reltime(reltime, "time")


def _score_css(c: dict[str, Any], max_score: float | None) -> str:
    """A score contest's cell, as the live board colours it (pages._score_rows)."""
    if max_score is not None and c.get("score", 0) >= max_score - 1e-9:
        return "ac"
    return "partial" if c.get("score", 0) > 0 else "wa" if c.get("num_judged") else "none"


def board_rows(docs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The archive's final scoreboard as the live board's page draws it: a pass-fail cell through the same
    view and macro (passfailview.py, _passfail.html: its colours, first to solve from the archive's
    first-to-solve awards), a score cell with the live board's classes."""
    contest = docs["contest"]
    pass_fail = contest.get("scoreboard_type", "pass-fail") == "pass-fail"
    penalty_s = _seconds(contest.get("penalty_time"))
    first = {
        a["id"].removeprefix("first-to-solve-"): set(a.get("team_ids", []))
        for a in docs["awards"]
        if str(a.get("id", "")).startswith("first-to-solve-")
    }
    max_scores = {p["id"]: p.get("max_score") for p in docs["problems"]}
    rows = []
    for r in docs["scoreboard"].get("rows", []):
        cells = []
        for c in r.get("problems", []):
            if not pass_fail:
                cells.append({**c, "css": _score_css(c, max_scores.get(c["problem_id"]))})
                continue
            time_s = None if c.get("time") is None else _seconds(c["time"])
            tries = int(c.get("num_judged", 0))
            solved = bool(c.get("solved"))
            cell = Cell(
                problem_id=c["problem_id"],
                num_judged=tries,
                num_pending=int(c.get("num_pending", 0)),
                solved=solved,
                time_s=time_s,
                penalty_s=(time_s or 0.0) + (tries - 1) * penalty_s if solved else 0.0,
                first=solved and r["team_id"] in first.get(c["problem_id"], set()),
            )
            cells.append(cell_view(cell, penalty_s))
        score = r.get("score", {})
        total = minutes(_seconds(score.get("total_time"))) if pass_fail else None
        rows.append({**r, "cells": cells, "total_minutes": total})
    return rows


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    messages: dict[int, str] = {405: f"{request.method}: a replay is read-only"}
    return _error(exc.status_code, messages.get(exc.status_code, str(exc.detail)))


def create_replay_app(replay: Replay) -> Starlette:
    h = _Handlers(replay, environment())
    c = "/api/contests/{cid}"
    routes: list[Any] = [
        Route("/", h.board),
        Route("/scoreboard", h.board),
        Route("/favicon.ico", h.favicon),
        Route("/api", h.api),
        Route("/api/", h.api),
        Route("/api/contests", h.contests),
        Route(c, h.contest),
        Route(f"{c}/event-feed", h.event_feed),
        Route(f"{c}/access", h.access),
        Route(f"{c}/{{kind}}", h.endpoint),
        Route(f"{c}/{{kind}}/{{id}}", h.item),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _http_error})
