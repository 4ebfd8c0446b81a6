"""A pass-fail contest's board in Chromium (Playwright) against a real `judge serve`, judging for real: the
cells (tries / minute, the first solve in its own colour, tried, pending in the freeze), the totals, the
organization under the team's name, live updates without a reload, the staff's live view.

The contest started 4 h 10 min ago, so its last hour (the freeze) is on: the submissions made before it are
an admin's, dated back (the spec's admin-submit with a ``time``); a team then submits in the freeze, which
the public sees pending and the staff see judged. Screenshots go to ``$JUDGE_ARTIFACTS/serve/``.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_fixtures import PASSWORDS, SUM_AC, SUM_WA, write_contest
from test_serve_browser import CHROMIUM, WAIT_MS, Person, board_ranks, browser, shots  # noqa: F401 - fixtures
from test_serve_process import Serve

from judge.runner import Runner
from judge.serve.model.times import format_time
from judge.serve.model.upload import pack

try:
    from playwright.sync_api import Browser, expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
IN_THE_FREEZE_S = 4 * 3600 + 600  # how long ago the contest started: 4 h 10 min


@pytest.fixture
def start() -> float:
    return time.time() - IN_THE_FREEZE_S


@pytest.fixture
def server(tmp_path: Path, sandbox_runner: Runner, start: float) -> Iterator[Serve]:
    root = write_contest(tmp_path / "contest", start=format_time(start), rate=(20, 60), scoreboard_type="pass-fail")
    (root / "organizations.json").write_text(
        json.dumps([{"id": "uni", "name": "Uni", "formal_name": "Some University"}])
    )
    teams = json.loads((root / "teams.json").read_text())
    teams[0]["organization_id"] = "uni"  # team1
    (root / "teams.json").write_text(json.dumps(teams))
    s = Serve(root, tmp_path / "serve.log")
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def dated(server: Serve, team: str, source: str, at_s: float, problem: str = "sum") -> None:
    """An admin's submission for ``team``, made at ``at_s``."""
    body = {
        "problem_id": problem,
        "language_id": "python3",
        "team_id": team,
        "time": format_time(at_s),
        "files": [{"data": base64.b64encode(pack({"sum.py": source.encode()})).decode()}],
    }
    r = httpx.post(server.url("submissions"), json=body, auth=("admin", PASSWORDS["admin"]), timeout=30)
    assert r.status_code == 201, r.text


def test_the_pass_fail_board_in_the_browser(server: Serve, browser: Browser, shots: Path, start: float) -> None:  # noqa: F811
    base = server.base.removesuffix("/api")

    def minute(m: float) -> float:
        return start + m * 60

    # before the freeze: team3 fails sum at minute 10 and solves it at 47 (47 + 20 = 67, the first solve);
    # team2 fails divisor at 30 (tried: no cost) and solves sum at 52 (52)
    dated(server, "team3", SUM_WA, minute(10))
    dated(server, "team3", SUM_AC, minute(47.5))
    dated(server, "team2", SUM_WA, minute(30), problem="divisor")
    dated(server, "team2", SUM_AC, minute(52))
    public = Person(browser, base, shots, "passfail-public")
    public.go("/scoreboard")
    public.page.evaluate("window.__loaded_once = 1")  # gone if the page reloads
    cell = 'tr[data-team="{}"] td.cell'
    expect(public.page.locator(cell.format("team3")).first).to_contain_text("2 / 47", timeout=WAIT_MS)
    expect(public.page.locator(cell.format("team2")).first).to_contain_text("1 / 52", timeout=WAIT_MS)
    assert "pf-first" in (public.page.locator(cell.format("team3")).first.get_attribute("class") or "")
    assert "pf-solved" in (public.page.locator(cell.format("team2")).first.get_attribute("class") or "")
    expect(public.page.locator(cell.format("team2")).nth(1)).to_have_class(re.compile("pf-tried"), timeout=WAIT_MS)
    assert board_ranks(public.page) == {"team2": "1", "team3": "2", "team1": "3"}  # 52 < 67
    expect(public.page.locator('tr[data-team="team1"] td.contestant')).to_contain_text("Some University")

    # in the freeze team1 solves sum in the browser: pending for the public (no reload), judged for staff
    team = Person(browser, base, shots, "passfail-team1")
    team.login("team1")
    team.go("/submit?problem=sum")
    team.page.fill("#code", SUM_AC)
    team.page.select_option("#language", "python3")
    team.page.click("#submit-form button[type=submit]")
    expect(team.page.locator("#submission-5 .verdict")).to_have_text("AC", timeout=WAIT_MS)  # its own verdict
    expect(public.page.locator(cell.format("team1")).first).to_contain_text("+1 pending", timeout=WAIT_MS)
    assert "pf-pending" in (public.page.locator(cell.format("team1")).first.get_attribute("class") or "")
    assert public.page.evaluate("window.__loaded_once") == 1
    expect(public.page.locator("#frozen")).to_be_visible()
    public.shot("scoreboard-frozen")

    admin = Person(browser, base, shots, "passfail-admin")
    admin.login("admin")
    admin.go("/scoreboard")
    expect(admin.page.locator(cell.format("team1")).first).to_contain_text(re.compile(r"1\s/\s25\d"), timeout=WAIT_MS)
    assert board_ranks(admin.page) == {"team2": "1", "team3": "2", "team1": "3"}  # 250 > 67
    admin.shot("scoreboard-live")
    for person in (public, team, admin):
        assert person.dialogs == [], person.name
        person.context.close()
