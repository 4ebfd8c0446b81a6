"""Reading `judge serve` through each of its channels, for tests/test_serve_visibility.py: the API and the
pages through the real ASGI app on one event loop, the event feed folded to the latest state of each object,
and the HTML of the submissions lists and the scoreboard page parsed back into what they show."""

from __future__ import annotations

import asyncio
import html as htmllib
import re
from typing import Any

import httpx
from serve_fixtures import PASSWORDS, Api

from judge.serve.http.app import create_app
from judge.serve.site.server import Server


class LoopApi(Api):
    """serve_fixtures.Api on one event loop and one connection for all its requests (Api.request starts a
    new loop, and with it new worker threads, for each: a check makes some fifty requests)."""

    def __init__(self, server: Server, runner: asyncio.Runner) -> None:
        super().__init__(create_app(server))
        self.runner = runner
        self.transport = httpx.ASGITransport(app=self.app, client=(self.address, 40000), raise_app_exceptions=False)
        self.client = httpx.AsyncClient(transport=self.transport, base_url="http://testserver")

    def request(
        self, method: str, path: str, user: str | None = None, password: str | None = None, **kw: Any
    ) -> httpx.Response:
        auth = None if user is None else (user, password if password is not None else PASSWORDS[user])
        return self.runner.run(self.client.request(method, path, auth=auth, **kw))


class Browser:
    """The pages as a browser asks for them (as tests/test_serve_pages.py's): its own cookie jar, no
    redirects followed."""

    def __init__(self, api: LoopApi) -> None:
        self.runner = api.runner
        self.client = httpx.AsyncClient(transport=api.transport, base_url="http://testserver")

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        return self.runner.run(self.client.request(method, path, **kw))

    def get(self, path: str) -> httpx.Response:
        r = self.request("GET", path)
        assert r.status_code == 200, (path, r.status_code, r.text[:300])
        return r

    def post(self, path: str, **data: str) -> httpx.Response:
        token = re.search(r'name="csrf" value="([^"]+)"', self.get("/login").text)
        assert token is not None
        return self.request("POST", path, data={"csrf": token.group(1), **data})


def log_in(api: LoopApi, user: str | None) -> Browser:
    b = Browser(api)
    if user is not None:
        r = b.post("/login", username=user, password=PASSWORDS[user])
        assert r.status_code == 303, r.text
    return b


def folded(events: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """The event feed folded to the latest state of each object, by type and id (deletions removed)."""
    latest: dict[tuple[str, str | None], Any] = {}
    for e in events:
        latest[(e["type"], e["id"])] = e["data"]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for (kind, oid), data in latest.items():
        if data is not None:
            out.setdefault(kind, {})[str(oid)] = data
    return out


def by_id(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(o["id"]): o for o in objects}


ROW = re.compile(r'<tr id="submission-(\d+)">(.*?)</tr>', re.S)
VERDICT = re.compile(r'<td class="verdict [^"]*">(.*?)</td>', re.S)


def page_rows(html: str) -> dict[str, str | None]:
    """A submissions page's rows: id -> the verdict shown (None: "judging…", pending or hidden)."""
    rows = {}
    for sid, body in ROW.findall(html):
        verdict = VERDICT.search(body)
        assert verdict is not None, body
        text = htmllib.unescape(verdict.group(1)).strip()
        rows[sid] = None if "judging…" in text or ">pending<" in text else text
    return rows


BOARD_ROW = re.compile(
    r'data-team="([^"]+)">\s*<td class="rank">(\d+)</td>\s*<td class="contestant">.*?</td>\s*'
    r'<td class="num score">([^<]*)</td>(.*?)</tr>',
    re.S,
)
CELL = re.compile(r'<td class="cell [^"]*">(.*?)</td>', re.S)
CELL_TEXT = re.compile(
    r'<span class="score">([^<]*)</span><br><span class="small">(\d+) tr(?:y|ies)(?: \+ (\d+) pending)?'
)


def page_board(html: str) -> list[tuple[str, int, str, list[tuple[str, int, int] | None]]]:
    """The /scoreboard page: (team, rank, score, cells) per row; a cell (score, judged, pending), None if empty."""
    rows = []
    for team, rank, score, body in BOARD_ROW.findall(html):
        cells: list[tuple[str, int, int] | None] = []
        for cell in CELL.findall(body):
            m = CELL_TEXT.search(cell)
            assert m is not None or not cell.strip(), cell
            cells.append(None if m is None else (m.group(1), int(m.group(2)), int(m.group(3) or 0)))
        rows.append((team, int(rank), score.strip(), cells))
    return rows


def api_board(board: dict[str, Any]) -> list[tuple[str, int, str, list[tuple[str, int, int] | None]]]:
    """The API's scoreboard as the page shows it (an empty cell: nothing judged, nothing pending)."""
    return [
        (
            r["team_id"],
            r["rank"],
            f"{r['score']['score']:g}",
            [
                (f"{c['score']:g}", c["num_judged"], c["num_pending"]) if c["num_judged"] or c["num_pending"] else None
                for c in r.get("problems", [])
            ],
        )
        for r in board["rows"]
    ]


FEEDBACK_VERDICT = re.compile(r'id="verdict">(.*?)</dd>', re.S)
TEST_ROW = re.compile(r'<tr>\s*<td class="num">')


def feedback(html: str) -> tuple[str | None, int]:
    """A team's feedback page (/submissions/<id>): the verdict shown (None: "judging…") and how many tests."""
    verdict = FEEDBACK_VERDICT.search(html)
    assert verdict is not None, html[:500]
    text = htmllib.unescape(verdict.group(1)).strip()
    return (None if "judging…" in text or ">pending<" in text else text), len(TEST_ROW.findall(html))
