"""Running a contest live in a browser (issue 30): Playwright drives Debian's Chromium against a real
`judge serve` process on a loopback port. Before the start a team's problems page counts down; the
organizer moves the start from the contest-times page; the team's countdown follows without a reload,
and the problems appear at the new start, still without a reload.

Screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (CI keeps them), else to a temporary folder. Skipped, with
the reason, when Playwright or Chromium is missing (.ci/setup installs both).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import write_contest
from test_serve_browser import CHROMIUM, Person, sync_playwright
from test_serve_process import Serve

from judge.serve.model.times import format_time

WAIT_MS = 60_000  # a safety net, not a measurement

try:
    from playwright.sync_api import Browser, expect
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    pass

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    artifacts = os.environ.get("JUDGE_ARTIFACTS")
    out = Path(artifacts) / "serve" if artifacts else tmp_path_factory.mktemp("serve-shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Serve]:
    root = write_contest(tmp_path / "contest", start=format_time(time.time() + 600))
    s = Serve(root, tmp_path / "serve.log")
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


@pytest.fixture
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None and CHROMIUM is not None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def test_moving_the_start_moves_the_countdown(server: Serve, browser: Browser, shots: Path) -> None:
    base = server.base.removesuffix("/api")
    team = Person(browser, base, shots, "live-team1")
    team.login("team1")
    team.go("/problems")
    team.page.evaluate("window.__loaded_once = 1")  # gone if the page reloads
    expect(team.page.locator("#countdown")).to_have_text(re.compile(r"^0:(09:[0-5][0-9]|10:00)$"))
    expect(team.page.locator("#problem-list")).to_contain_text("shown when the contest starts")
    team.shot("countdown-before")

    admin = Person(browser, base, shots, "live-admin")
    admin.login("admin")
    admin.go("/admin/contest")
    admin.shot("contest-times")
    admin.page.fill("#start_time", format_time(time.time() + 33))
    admin.page.click("#move-start")
    expect(admin.page.locator("#message")).to_contain_text("times are changed")
    admin.shot("contest-times-moved")

    # the team's page follows without a reload: under a minute left, then the problems
    expect(team.page.locator("#countdown")).to_have_text(re.compile(r"^0:00:[0-4][0-9]$"), timeout=WAIT_MS)
    team.shot("countdown-moved")
    expect(team.page.locator("#problem-list a[href='/problems/sum/']")).to_be_visible(timeout=WAIT_MS)
    expect(team.page.locator("#contest-status")).to_contain_text("started", timeout=WAIT_MS)
    assert team.page.evaluate("window.__loaded_once") == 1
    team.shot("problems-at-the-start")
    for person in (team, admin):
        assert person.dialogs == [], person.name
        person.context.close()
