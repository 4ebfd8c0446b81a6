"""The resolver page in Chromium (Playwright): an admin opens it after the end, before the thaw; it starts
from the frozen board (the public's), space steps through the reveals from the bottom up and stops on the
award holders with their citations, backspace steps back, and the last step is the final board, which is
the thawed scoreboard exactly. The app runs in this process (uvicorn on a free loopback port, a fake clock,
scripted verdicts); screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (CI keeps them).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from serve_fixtures import FIXTURES, PASSWORDS, T0, Api, FakeClock, make_server, write_contest
from test_serve_browser import CHROMIUM, Person, browser, shots  # noqa: F401 - fixtures
from test_serve_passfail import MarkedJudge, at, submit

from judge.serve.http.app import create_app
from judge.serve.model.contest import load_contest
from judge.serve.services.server import Server

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
C = "/api/contests/test"


@pytest.fixture
def contest(tmp_path: Path) -> Path:
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=("medals: {gold: 1, silver: 1}",))
    orgs = [{"id": "uni", "name": "Uni", "formal_name": "Some University"}]
    (root / "organizations.json").write_text(json.dumps(orgs))
    teams = json.loads((root / "teams.json").read_text())
    teams[2]["organization_id"] = "uni"
    (root / "teams.json").write_text(json.dumps(teams))
    return root


@pytest.fixture
def served(contest: Path) -> Iterator[tuple[Server, FakeClock, str]]:
    clock = FakeClock(T0)
    server = make_server(
        contest, clock, MarkedJudge({p.id: p.problem for p in load_contest(contest, FIXTURES).problems})
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(create_app(server), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if uv.started:
                break
            threading.Event().wait(0.05)
        yield server, clock, f"http://127.0.0.1:{port}"
    finally:
        uv.should_exit = True
        thread.join(timeout=10)
        sock.close()
        server.close()


class LiveApi(Api):
    """Api's calls, over HTTP to the running server (Playwright's event loop forbids asyncio.run here)."""

    def __init__(self, base: str) -> None:
        self.base = base

    def request(
        self, method: str, path: str, user: str | None = None, password: str | None = None, **kw: Any
    ) -> httpx.Response:
        auth = None if user is None else (user, password if password is not None else PASSWORDS[user])
        return httpx.request(method, self.base + path, auth=auth, timeout=30, **kw)


def dom_order(page: Page) -> list[str]:
    """The teams as the resolver shows them, top to bottom (rows are placed by their ``top``)."""
    rows = page.evaluate(
        "Array.from(document.querySelectorAll('.resolver-row')).map(e => [parseInt(e.style.top), e.dataset.team])"
    )
    return [team for _, team in sorted(rows)]


def test_the_resolver_steps_to_the_thawed_board(
    served: tuple[Server, FakeClock, str],
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    server, clock, base = served
    api = LiveApi(base)
    # before the freeze (4:00): Zeta (team1) solves A at 10, Alpha (team2) A at 20. In the freeze: Mu (team3)
    # solves A and B, Alpha fails B. Frozen: Zeta, Alpha, Mu; final: Mu, Zeta, Alpha.
    for minute, team, problem, verdict in [
        (10, "team1", "sum", "AC"),
        (20, "team2", "sum", "AC"),
        (250, "team3", "sum", "AC"),
        (255, "team2", "divisor", "WA"),
        (260, "team3", "divisor", "AC"),
    ]:
        submit(api, server, clock, minute, team, problem, verdict)
    at(clock, 301)
    frozen = [r["team_id"] for r in api.get(f"{C}/scoreboard").json()["rows"]]
    assert frozen == ["team1", "team2", "team3"]

    admin = Person(browser, base, shots, "resolver")
    admin.login("admin")
    page = admin.go("/admin/resolver")
    assert page.locator("#resolver-step").inner_text() == "1"
    assert dom_order(page) == frozen  # the frozen board, as the public sees it
    admin.shot("1-frozen")
    seen_citations = []
    for _ in range(50):
        if page.get_attribute("body", "data-last") == "yes":
            break
        page.keyboard.press("Space")
        citation = page.locator("#resolver-citation")
        if citation.is_visible():
            seen_citations.append(citation.inner_text())
            if len(seen_citations) == 1:
                page.wait_for_timeout(900)  # the rows' slide ends
                admin.shot("2-citation")
    else:
        raise AssertionError("the resolver never reached its last step")
    page.wait_for_timeout(900)  # the rows' slide (0.8 s) ends, for the screenshot
    admin.shot("3-final")
    assert any("Gold medal winner" in c and "Mu" in c for c in seen_citations), seen_citations
    assert any("Silver medal winner" in c and "Zeta" in c for c in seen_citations), seen_citations
    last = int(page.locator("#resolver-step").inner_text())
    page.keyboard.press("Backspace")
    assert int(page.locator("#resolver-step").inner_text()) == last - 1
    page.keyboard.press("Space")

    # the thaw (through the API): the public board is now the resolver's last one, rank for rank
    r = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": "2030-01-01T15:01:00Z"})
    assert r.status_code == 200, r.text
    thawed = api.get(f"{C}/scoreboard").json()["rows"]
    assert dom_order(page) == [row["team_id"] for row in thawed] == ["team3", "team1", "team2"]
    ranks = page.evaluate(
        "Array.from(document.querySelectorAll('.resolver-row')).map(e => [e.dataset.team, "
        "e.querySelector('.rank').textContent, e.querySelector('.solved').textContent])"
    )
    assert sorted(ranks) == sorted(
        [row["team_id"], str(row["rank"]), str(row["score"]["num_solved"])] for row in thawed
    )
