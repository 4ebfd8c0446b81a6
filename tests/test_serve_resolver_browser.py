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
from judge.serve.site.server import Server

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


def test_the_end_of_the_contest_in_the_icpc_order(
    served: tuple[Server, FakeClock, str],
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    """Issue 43, in Chromium: after the end the admin page lists the steps in order; "Finalize the results…"
    leads to a confirmation page, and the finalize keeps the board frozen (the public's board and awards
    page show nothing of the freeze); the resolver; "Thaw the scoreboard…", its confirmation; then the
    public's board has the medals and the awards page the awards. Screenshots ``end-*.png``."""
    server, clock, base = served
    api = LiveApi(base)
    for minute, team, problem, verdict in [
        (10, "team1", "sum", "AC"),
        (20, "team2", "sum", "AC"),
        (250, "team3", "sum", "AC"),  # in the freeze: Mu passes Alpha
        (260, "team3", "divisor", "AC"),
    ]:
        submit(api, server, clock, minute, team, problem, verdict)
    at(clock, 301)
    admin = Person(browser, base, shots, "end-admin")
    admin.login("admin")
    page = admin.go("/admin")
    steps = page.locator("#end-steps li").all_inner_texts()
    assert [s.split(":")[0].split(" (")[0] for s in steps[:3]] == [
        "Finalize the results",
        "The awards ceremony",
        "Thaw the scoreboard",
    ]
    admin.shot("1-admin")
    page.click("#finalize")
    page.wait_for_load_state()
    assert page.url.endswith("/admin/finalize") and page.locator("#stays-frozen").is_visible()
    admin.shot("2-confirm-finalize")
    page.click("#confirm")
    page.wait_for_load_state()
    assert "the scoreboard stays frozen: run the resolver, then thaw it" in page.locator("#message").inner_text()
    assert page.locator("#finalized").is_visible()
    admin.shot("3-finalized")
    state = api.get(f"{C}/state").json()
    assert state["finalized"] and not state["thawed"] and not state["end_of_updates"]

    public = Person(browser, base, shots, "end-public")
    board = public.go("/scoreboard")
    assert board.locator("#frozen").is_visible() and board.locator(".medal").count() == 0
    assert [r.get_attribute("data-team") for r in board.locator("table.board tr[data-team]").all()][:2] == [
        "team1",
        "team2",
    ]
    public.shot("1-frozen-board")
    awards = public.go("/awards")
    assert awards.locator("#awards-later").is_visible() and awards.locator("#awards").count() == 0
    public.shot("2-awards-later")

    admin.go("/admin/resolver")
    assert admin.page.locator("#resolver-step").inner_text() == "1"
    page = admin.go("/admin")
    page.click("#thaw")
    page.wait_for_load_state()
    assert page.url.endswith("/admin/thaw") and page.locator("#thaw-now").is_visible()
    admin.shot("4-confirm-thaw")
    page.click("#confirm")
    page.wait_for_load_state()
    assert "the event feed has ended" in page.locator("#message").inner_text()
    admin.shot("5-thawed")
    assert api.get(f"{C}/state").json()["end_of_updates"]

    board = public.go("/scoreboard")
    medals = board.evaluate(
        "Array.from(document.querySelectorAll('table.board tr[data-team]')).map(r => "
        "[r.dataset.team, (r.querySelector('.medal') || {className: ''}).className])"
    )
    assert medals[:3] == [["team3", "medal gold"], ["team1", "medal silver"], ["team2", ""]]
    public.shot("3-final-board")
    awards = public.go("/awards")
    items = awards.locator("#awards li").all_inner_texts()
    assert items[0].startswith("Contest winner") and "Mu" in items[0]
    assert "Gold medal winner: Mu" in items[1] and "Silver medal winner: Zeta" in items[2]
    public.shot("4-awards")
