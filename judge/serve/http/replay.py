"""`judge serve --replay ARCHIVE [ARCHIVE ...]`: the app of finished contests, read-only (services/lifecycle/replay.py
says what it shows). The Contest API's GET endpoints of what the public sees (``access`` says which; ``runs``
is empty, as for the public of the live server), the event feed (all of it, then the stream ends: the
contest is final), and one page per contest, the final scoreboard with the awards. ``/api/contests`` lists
the contests in the order given, and each ``/api/contests/<cid>/...`` is its own archive's. With one archive
the board is at ``/`` (and ``/scoreboard``); with several, ``/`` lists the contests and each board is at
``/contests/<cid>/`` (the live site's URLs). Every other path is a 404 (a page for a browser outside
``/api``, JSON otherwise), every other method a 405: nothing can be changed."""

from __future__ import annotations

import time
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
from judge.scoreboard.times import format_time, parse_reltime, parse_time
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
    """The replay's endpoints, over the archives it serves (contest id -> its archive, in the order given)."""

    replays: Mapping[str, Replay]
    env: Environment

    @property
    def site(self) -> bool:
        """Several contests: a chooser at ``/``, each contest's pages under ``/contests/<cid>/``."""
        return len(self.replays) > 1

    def replay_of(self, request: Request) -> Replay:
        cid = request.path_params["cid"]
        replay = self.replays.get(cid)
        if replay is None:
            raise HTTPException(404, f"no contest {cid!r}")
        return replay

    async def api(self, request: Request) -> Response:
        return JSONResponse(next(iter(self.replays.values())).api)

    async def contests(self, request: Request) -> Response:
        return JSONResponse([r.docs["contest"] for r in self.replays.values()])

    async def contest(self, request: Request) -> Response:
        return JSONResponse(self.replay_of(request).docs["contest"])

    async def access(self, request: Request) -> Response:
        replay = self.replay_of(request)
        pass_fail = replay.docs["contest"].get("scoreboard_type", "pass-fail") == "pass-fail"
        endpoints = access_json(PUBLIC_VIEWER, pass_fail)["endpoints"]
        return JSONResponse({"capabilities": [], "endpoints": [e for e in endpoints if e["type"] != "accounts"]})

    async def endpoint(self, request: Request) -> Response:
        replay = self.replay_of(request)
        kind = request.path_params["kind"]
        if kind == "runs":
            return JSONResponse([])  # the public sees no runs
        if kind not in PUBLIC:
            raise HTTPException(404, f"no such endpoint in a replay: {kind}")
        return JSONResponse(replay.docs[kind])

    async def item(self, request: Request) -> Response:
        replay = self.replay_of(request)
        kind, oid = request.path_params["kind"], request.path_params["id"]
        if kind not in PUBLIC or kind in OBJECTS:
            raise HTTPException(404, f"no such endpoint in a replay: {kind}/{oid}")
        found = [o for o in replay.docs[kind] if str(o.get("id")) == oid]
        if not found:
            raise HTTPException(404, f"no {kind.rstrip('s')} {oid!r}")
        return JSONResponse(found[0])

    async def event_feed(self, request: Request) -> Response:
        feed = self.replay_of(request).feed
        since = request.query_params.get("since_token", request.query_params.get("since_id"))
        start = 0
        if since is not None:
            if not since.isdigit() or int(since) > len(feed):
                raise HTTPException(400, f"since_token {since!r}: not a token of this feed")
            start = int(since)
        return Response("".join(feed[start:]), media_type="application/x-ndjson")

    def render(self, template: str, status_code: int = 200, **values: Any) -> HTMLResponse:
        html = self.env.get_template(template).render(contests_link=self.site, **values)
        return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)

    async def board(self, request: Request) -> Response:
        """The one contest's board (one archive) or the board of ``/contests/<cid>/`` (several)."""
        if self.site:
            replay = self.replays.get(request.path_params["cid"])
            if replay is None:
                raise HTTPException(404, f"there is no contest {request.path_params['cid']!r} in this replay")
            api_url = f"/api/contests/{replay.contest_id}"
        else:
            replay, api_url = next(iter(self.replays.values())), "/api"
        docs = replay.docs
        return self.render(
            "serve/replay.html",
            contest=docs["contest"],
            state=docs["state"],
            problems=docs["problems"],
            rows=board_rows(docs),
            teams={t["id"]: t for t in docs["teams"]},
            orgs={o["id"]: o for o in docs["organizations"]},
            awards=[a for a in docs["awards"] if a.get("team_ids")],
            penalty_minutes=minutes(_seconds(docs["contest"].get("penalty_time"))),
            api_url=api_url,
        )

    async def chooser(self, request: Request) -> Response:
        """``/`` of several contests: each one's name, dates and board."""
        return self.render("serve/replay_contests.html", contests=[_summary(r) for r in self.replays.values()])

    async def favicon(self, request: Request) -> Response:
        return Response((STATIC / "favicon.ico").read_bytes(), media_type="image/x-icon")

    async def http_error(self, request: Request, exc: Exception) -> Response:
        """An error: for a browser (it accepts text/html) outside /api, a 404 is a page; else JSON."""
        assert isinstance(exc, HTTPException)
        path = request.url.path
        api = path == "/api" or path.startswith("/api/")
        if exc.status_code == 404 and not api and "text/html" in request.headers.get("accept", ""):
            message = str(exc.detail) if exc.detail != "Not Found" else f"there is no page {path}"
            return self.render("serve/replay_error.html", 404, status=404, message=message)
        messages: dict[int, str] = {405: f"{request.method}: a replay is read-only"}
        return _error(exc.status_code, messages.get(exc.status_code, str(exc.detail)))


def _dates(contest: Mapping[str, Any]) -> dict[str, str]:
    """A contest's start and end as the chooser shows them (UTC, to the minute) and their ISO times; empty
    where the archive has none (or none we can read: no date rather than a 500)."""
    try:
        start_s = parse_time(contest.get("start_time"), "start_time")
        moments = {"start": start_s, "end": start_s + _seconds(contest.get("duration"))}
        return {
            **{k: time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t)) for k, t in moments.items()},
            **{f"{k}_iso": format_time(t) for k, t in moments.items()},
        }
    except (ValueError, OverflowError, OSError):
        return {"start": "", "start_iso": "", "end": "", "end_iso": ""}


def _summary(replay: Replay) -> dict[str, Any]:
    """A contest's line in the chooser: its name, start and end, how many teams and problems."""
    contest, docs = replay.docs["contest"], replay.docs
    return {
        "id": replay.contest_id,
        "name": contest.get("name") or replay.contest_id,
        "formal_name": contest.get("formal_name"),
        **_dates(contest),
        "teams": len(docs["teams"]) if isinstance(docs["teams"], list) else 0,
        "problems": len(docs["problems"]) if isinstance(docs["problems"], list) else 0,
    }


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


def create_replay_app(*replays: Replay) -> Starlette:
    """The read-only app of ``replays`` (one or more finished contests, in this order; each contest id
    once: a ValueError otherwise)."""
    by_id = {r.contest_id: r for r in replays}
    if not replays or len(by_id) != len(replays):
        raise ValueError("a replay serves one or more archives, each contest id once")
    h = _Handlers(by_id, environment())
    c = "/api/contests/{cid}"
    if h.site:
        pages = [
            Route("/", h.chooser),
            Route("/contests/{cid}", h.board),
            Route("/contests/{cid}/", h.board),
            Route("/contests/{cid}/scoreboard", h.board),
        ]
    else:
        pages = [Route("/", h.board), Route("/scoreboard", h.board)]
    routes: list[Any] = [
        *pages,
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
    return Starlette(routes=routes, exception_handlers={HTTPException: h.http_error})
