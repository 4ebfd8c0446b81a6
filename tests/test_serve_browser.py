"""The contest in a browser: Playwright drives Debian's Chromium against a real `judge serve` process on a
loopback port, judging for real. A team logs in, submits a correct and a wrong solution and sees AC and
WA appear without reloading; the public board updates live and ranks right; an organizer rejudges; a
team named ``<script>alert(1)</script>`` injects nothing (no dialog, no script element).

Screenshots of every page go to ``$JUDGE_ARTIFACTS/serve/`` (CI keeps them), else to a temporary folder.
Skipped, with the reason, when Playwright or Chromium is missing (.ci/setup installs both).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import PASSWORDS, SUM_AC, SUM_WA, write_contest
from test_serve_process import Serve

from judge.runner import Runner
from judge.serve.http.pages import confirm
from judge.serve.model.times import format_time

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = "<script>alert(1)</script>"
WAIT_MS = 90_000  # a safety net for a hung judge, not a measurement

try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright

    # expect() does not follow the context's default timeout (its own is 5 s): what a judging or print
    # thread does shows on a page that refreshes every 2-3 s, a few refreshes under CI's load
    expect.set_options(timeout=WAIT_MS)
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

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
def server(tmp_path: Path, sandbox_runner: Runner) -> Iterator[Serve]:
    root = write_contest(tmp_path / "contest", start=format_time(time.time() - 600), rate=(20, 60))
    teams = json.loads((root / "teams.json").read_text())
    teams[1]["name"] = HOSTILE  # team2
    (root / "teams.json").write_text(json.dumps(teams))
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


class Person:
    """One browser context (its own cookies) that records every dialog a page opens: an alert or a prompt
    (``dialogs``: a page's own forms never open one, an injected script would), and the confirmations the
    pages ask before a hard-to-undo action (``confirms``: answered OK, or Cancel when ``answer`` is False)."""

    def __init__(self, browser: Browser, base: str, shots: Path, name: str) -> None:
        self.context = browser.new_context(viewport={"width": 1200, "height": 760})
        self.context.set_default_timeout(WAIT_MS)
        self.page: Page = self.context.new_page()
        self.base = base
        self.shots = shots
        self.name = name
        self.dialogs: list[str] = []
        self.confirms: list[str] = []
        self.answer = True
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        if dialog.type == "confirm":
            self.confirms.append(dialog.message)
            dialog.accept() if self.answer else dialog.dismiss()
            return
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def go(self, path: str) -> Page:
        self.page.goto(self.base + path)
        return self.page

    def shot(self, label: str) -> None:
        self.page.screenshot(path=str(self.shots / f"{self.name}-{label}.png"), full_page=True)

    def login(self, user: str) -> None:
        self.go("/login")
        self.shot("login")
        self.page.fill("#username", user)
        self.page.fill("#password", PASSWORDS[user])
        self.page.click("form.box button[type=submit]")
        self.page.wait_for_load_state()


def board_ranks(page: Page) -> dict[str, str]:
    rows = page.locator("table.board tr[data-team]")
    return {
        rows.nth(i).get_attribute("data-team") or "": rows.nth(i).locator("td.rank").inner_text()
        for i in range(rows.count())
    }


def test_a_contest_in_the_browser(server: Serve, browser: Browser, shots: Path) -> None:
    base = server.base.removesuffix("/api")
    public = Person(browser, base, shots, "public")
    public.go("/scoreboard")
    public.page.evaluate("window.__loaded_once = 1")  # gone if the page reloads
    public.shot("scoreboard-before")

    team = Person(browser, base, shots, "team1")
    team.login("team1")
    assert team.page.url.endswith("/submissions")
    team.go("/problems")
    team.shot("problems")
    team.go("/problems/divisor/")
    team.shot("statement")
    with team.page.expect_download() as download:
        team.page.click("text=input")
    assert Path(download.value.path()).read_bytes().strip() != b""

    # a correct solution as a file (language from the extension), a wrong one pasted
    team.go("/submit?problem=sum")
    team.page.set_input_files("#file", files=[{"name": "sum.py", "mimeType": "text/plain", "buffer": SUM_AC.encode()}])
    team.shot("submit")
    team.page.click("#submit-form button[type=submit]")
    expect(team.page.locator("#submitted")).to_contain_text("Submission 1 received")
    team.go("/submit?problem=sum")
    team.page.fill("#code", SUM_WA)
    team.page.select_option("#language", "python3")
    team.page.click("#submit-form button[type=submit]")
    expect(team.page.locator("#submitted")).to_contain_text("Submission 2 received")
    team.page.evaluate("window.__loaded_once = 1")
    expect(team.page.locator("#submission-1 .verdict")).to_have_text("AC", timeout=WAIT_MS)
    expect(team.page.locator("#submission-2 .verdict")).to_have_text("WA", timeout=WAIT_MS)
    assert team.page.evaluate("window.__loaded_once") == 1  # no reload: the page polled
    team.shot("my-submissions")
    team.go("/scoreboard")  # its own row marked (issue 43), the clock running
    mine = team.page.locator('tr[data-team="team1"] td.contestant')
    assert mine.evaluate("e => getComputedStyle(e).fontWeight") == "700"
    expect(team.page.locator("#time-left")).to_have_text(re.compile(r"^4:[45][0-9]:[0-5][0-9]$"))
    team.shot("scoreboard")
    team.go("/submissions/2")
    expect(team.page.locator("#verdict")).to_have_text("WA")
    team.shot("feedback")

    # the hostile team: its name shows as text everywhere, and nothing runs
    hostile = Person(browser, base, shots, "team2")
    hostile.login("team2")
    expect(hostile.page.locator("header .user")).to_have_text(HOSTILE)
    hostile.go("/submit?problem=sum")
    hostile.page.fill("#code", SUM_WA)
    hostile.page.fill("#filename", "sum.py")
    hostile.page.click("#submit-form button[type=submit]")
    expect(hostile.page.locator("#submission-3 .verdict")).to_have_text("WA", timeout=WAIT_MS)
    hostile.shot("my-submissions")

    # the public board updated live (no reload): team1 first, team2 and team3 share the second rank
    expect(public.page.locator('tr[data-team="team1"] td.rank')).to_have_text("1", timeout=WAIT_MS)
    expect(public.page.locator('tr[data-team="team2"] td.cell').first).to_contain_text("1 try", timeout=WAIT_MS)
    assert public.page.evaluate("window.__loaded_once") == 1
    assert board_ranks(public.page) == {"team1": "1", "team2": "2", "team3": "2"}
    assert public.page.locator('tr[data-team="team2"] td.contestant').inner_text() == HOSTILE
    assert public.page.locator("main script").count() == 0
    public.shot("scoreboard")

    # the organizer: every submission, one in detail, a rejudge
    admin = Person(browser, base, shots, "admin")
    admin.login("admin")
    assert admin.page.url.endswith("/admin")
    expect(admin.page.locator("#submission-3 td.contestant")).to_have_text(HOSTILE)
    admin.shot("submissions")
    admin.page.click("#submission-2 a")
    expect(admin.page.locator("#verdict")).to_have_text("WA")
    admin.answer = False  # asked first (issue 43): Cancel rejudges nothing
    admin.page.click("#rejudge")
    assert admin.confirms == [confirm.question("rejudge-submission", id=2)]
    expect(admin.page.locator("#message")).to_have_count(0)
    admin.answer = True
    admin.page.check("#rejudge-auto_apply")  # issue 47: a rejudging set that applies itself
    admin.page.click("#rejudge")
    expect(admin.page.locator("#message")).to_contain_text("1 submission(s) queued")
    expect(admin.page.locator("#preview-state b")).to_have_text("applied", timeout=WAIT_MS)
    admin.go("/admin/submissions/2")
    expect(admin.page.locator("#detail")).to_contain_text("(replaced)", timeout=WAIT_MS)
    expect(admin.page.locator("#detail h2").first).to_contain_text("(current): WA", timeout=WAIT_MS)
    admin.shot("submission-detail")
    admin.go("/scoreboard")
    admin.shot("scoreboard")

    for person in (public, team, hostile, admin):
        assert person.dialogs == [], person.name  # the <script> team ran nothing anywhere
    for person in (public, team, hostile, admin):
        person.context.close()
