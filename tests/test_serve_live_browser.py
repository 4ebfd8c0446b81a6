"""Running a contest live in a browser (issue 30): Playwright drives Debian's Chromium against a real
`judge serve` process on a loopback port. Before the start a team's problems page counts down; the
organizer moves the start from the contest-times page; the team's countdown follows without a reload,
and the problems appear at the new start, still without a reload. Then the issue's acceptance, during a
contest judged for real: pause and resume judging, the queue, the judges, the balloons, ignoring a
submission, a late team and its account, a disabled account, the audit log.

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
from serve_fixtures import SUM_AC, write_contest
from test_serve_browser import CHROMIUM, Person, sync_playwright
from test_serve_process import Serve

from judge.runner import Runner
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
    admin.page.fill("#start_time", format_time(time.time() + 45))
    admin.page.click("#move-start")
    expect(admin.page.locator("#message")).to_contain_text("times are changed")
    admin.shot("contest-times-moved")

    # the team's page follows without a reload: under a minute left, then the problems
    expect(team.page.locator("#countdown")).to_have_text(re.compile(r"^0:00:[0-4][0-9]$"), timeout=WAIT_MS)
    team.shot("countdown-moved")
    expect(team.page.locator("#problem-list a[href='/problems/sum/']")).to_be_visible(timeout=WAIT_MS)
    # the clock goes on: the time left to the end (5 hours), counted down (issue 43)
    expect(team.page.locator("#time-left")).to_have_text(re.compile(r"^4:59:[0-5][0-9]$"), timeout=WAIT_MS)
    assert team.page.evaluate("window.__loaded_once") == 1
    team.shot("problems-at-the-start")
    for person in (team, admin):
        assert person.dialogs == [], person.name
        person.context.close()


@pytest.fixture
def running(tmp_path: Path, sandbox_runner: Runner) -> Iterator[Serve]:
    root = write_contest(tmp_path / "running", start=format_time(time.time() - 600), rate=(20, 60))
    s = Serve(root, tmp_path / "running.log")
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def test_an_organizer_runs_the_contest(running: Serve, browser: Browser, shots: Path) -> None:
    """The acceptance: without a restart, pause and resume judging, see the queue, the judges, the balloons;
    ignore a submission; add a team and its account; disable an account; read the audit log."""
    base = running.base.removesuffix("/api")
    team2 = Person(browser, base, shots, "ops-team2")
    team2.login("team2")
    admin = Person(browser, base, shots, "ops-admin")
    admin.login("admin")
    admin.go("/admin/judging")
    admin.page.click("#pause")
    expect(admin.page.locator("#paused")).to_be_visible()
    sid = running.submit("team1", SUM_AC)
    expect(admin.page.locator(f"#queued-{sid} .state")).to_have_text("held", timeout=WAIT_MS)  # live
    admin.shot("judging-paused")
    admin.page.click("#resume")
    expect(admin.page.locator(f"#queued-{sid}")).to_have_count(0, timeout=WAIT_MS)
    expect(admin.page.locator("#judges")).to_contain_text("idle")
    admin.shot("judging-resumed")
    admin.go("/admin/balloons")
    expect(admin.page.locator(f"#balloon-{sid}")).to_contain_text("first to solve")
    admin.shot("balloons")

    admin.go(f"/admin/submissions/{sid}")
    admin.page.click("#ignore")
    expect(admin.page.locator("#ignored")).to_be_visible()
    admin.shot("ignored")
    admin.go("/admin/balloons")
    expect(admin.page.locator("#balloon-list")).to_contain_text("no solves yet")

    admin.go("/admin/people")
    admin.page.fill("#team-id", "late")
    admin.page.fill("#team-name", "Late team")
    admin.page.select_option("#team-group", "g")
    admin.page.click("#save-team")
    expect(admin.page.locator("#team-late")).to_contain_text("Late team")
    admin.page.fill("#account-id", "late")
    admin.page.select_option("#account-type", "team")
    admin.page.select_option("#account-team", "late")
    admin.page.click("#save-account")
    password = admin.page.locator("#password").inner_text()
    admin.shot("people-new-account")
    late = Person(browser, base, shots, "ops-late")
    late.go("/login")
    late.page.fill("#username", "late")
    late.page.fill("#password", password)
    late.page.click("form.box button[type=submit]")
    expect(late.page.locator("header .user")).to_have_text("Late team")

    admin.go("/admin/people")
    admin.page.click("#disable-team2")
    expect(admin.page.locator('[data-disabled="team2"]')).to_be_visible()
    team2.go("/submissions")
    assert team2.page.url.endswith("/login")  # the session ended

    admin.go("/admin/audit")
    audit = admin.page.locator("#audit")
    for action in ("judging.pause", "judging.resume", "submission.ignore", "team.add", "account.add"):
        expect(audit).to_contain_text(action)
    expect(audit).to_contain_text("account.disable")
    admin.shot("audit")
    # issue 43: the pause and the disable were asked first (the browser's confirm(), live.js)
    assert [c.split("?")[0] for c in admin.confirms] == ["Pause judging", "Disable account team2"]
    for person in (team2, admin, late):
        assert person.dialogs == [], person.name
        person.context.close()
