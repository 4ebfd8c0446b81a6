"""A site of two contests in Chromium (issue 44), against the site's app in this process (uvicorn on a free
loopback port, the site's judging pool running with the scripted judge, a fake clock moved by the test): a
team logs in once and goes straight into the practice (the only contest it takes part in that runs),
submits there, comes back to the site's list, and submits in the main contest once it has started; the
public's list and each contest's board; the jury's site overview (every contest, the pool, the people) and
an admin hiding the practice (gone from the public's list, its pages the site's 404), adding a contest
live, where the team submits at once, and uploading a contest package (a bad one refused with its line). Screenshots in
``$JUDGE_ARTIFACTS/serve/site-*.png``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, FakeClock
from serve_site_fixtures import open_test_site, write_site
from test_serve_browser import CHROMIUM, Person, browser, shots  # noqa: F401 - fixtures
from test_serve_site_upload import package, zip_of
from test_serve_ui_browser import Served

from judge.serve.http.site_app import create_site_app
from judge.serve.site.site import Site

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
CONTESTS = {
    "practice": {"problems": ("sum",), "priority": -1, "start": "2030-01-01T09:30:00Z", "duration": "2:00:00"},
    "main": {"problems": ("sum", "divisor"), "start": "2030-01-01T10:30:00Z"},
}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Site, FakeClock, str]]:
    root = write_site(tmp_path / "site", CONTESTS, name="Autumn regional", order=["practice", "main"])
    clock = FakeClock(T0)  # practice running for 30 min; main in 30 min
    opened = open_test_site(root, clock, workers=2)
    opened.start()
    web = Served(create_site_app(opened))
    try:
        yield opened, clock, web.base
    finally:
        web.close()
        opened.stop()
        opened.close()


def paste(person: Person, cid: str, problem: str, code: str) -> None:
    page = person.go(f"/contests/{cid}/submit?problem={problem}")
    page.fill("#code", code)
    page.select_option("#language", "python3")
    page.click("#submit-form button[type=submit]")
    expect(page.locator("#submitted")).to_be_visible()


def test_a_team_logs_in_once_and_submits_in_both_contests(
    site: tuple[Site, FakeClock, str],
    browser,  # noqa: F811
    shots: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    opened, clock, base = site
    public = Person(browser, base, shots, "site-public")
    public.go("/")
    expect(public.page.locator("#contests tr[data-contest]")).to_have_count(2)
    public.shot("home")

    team = Person(browser, base, shots, "site-team1")
    team.login("team1")  # the site's login page: one login
    assert team.page.url.endswith("/contests/practice/submissions")  # the only running contest it is in
    expect(team.page.locator("header a.site-link")).to_have_text("Autumn regional")
    paste(team, "practice", "sum", SUM_WA)
    expect(team.page.locator("#submission-1 .verdict")).to_have_text("WA", timeout=30_000)  # the site's pool
    paste(team, "practice", "sum", SUM_AC)
    expect(team.page.locator("#submission-2 .verdict")).to_have_text("AC", timeout=30_000)
    team.shot("practice-submissions")

    team.go("/")  # the site's list: its contests, their state
    expect(team.page.locator("#my-contests tr[data-contest]")).to_have_count(2)
    expect(team.page.locator('#my-contests tr[data-contest="main"] .state')).to_contain_text("starts at")
    team.shot("home-before-main")
    team.go("/contests/main/submit")
    expect(team.page.locator("#submit-closed")).to_contain_text("has not started yet")

    clock.advance(HOUR)  # the main contest runs (and the practice still does)
    team.go("/")
    expect(team.page.locator('#my-contests tr[data-contest="main"] .state')).to_contain_text("running")
    team.page.click('#my-contests tr[data-contest="main"] a')
    team.page.wait_for_url("**/contests/main/submissions")
    paste(team, "main", "sum", SUM_AC)
    expect(team.page.locator("#submission-1 .verdict")).to_have_text("AC", timeout=30_000)  # main's own ids
    team.shot("main-submissions")

    for cid in ("practice", "main"):
        public.go(f"/contests/{cid}/scoreboard")
        expect(public.page.locator('table.board tr[data-team="team1"]')).to_be_visible()
        public.shot(f"{cid}-board")

    admin = Person(browser, base, shots, "site-admin")
    admin.login("admin")
    admin.go("/site")
    expect(admin.page.locator("#site-contests tr[data-contest]")).to_have_count(2)
    expect(admin.page.locator('#site-teams tr[data-team="team1"]')).to_contain_text("practice, main")
    admin.shot("overview")
    admin.page.click("#hide-practice")
    expect(admin.page.locator('#site-contests tr[data-contest="practice"] .hidden-flag')).to_have_text("hidden")
    expect(admin.page.locator("#message")).to_contain_text("Contest practice is hidden")
    admin.page.fill("#priority-main", "2")
    admin.page.click("#set-priority-main")
    expect(admin.page.locator('#site-contests tr[data-contest="main"] .priority')).to_contain_text("2")
    admin.shot("overview-changed")
    admin.page.click('#site-teams tr[data-team="team2"] a:text("main")')  # the people: the site's
    expect(admin.page.locator("#site-people-note")).to_contain_text("every contest the team takes part in")
    admin.shot("people")

    admin.go("/site")
    admin.page.click("#new-contest-link")  # a contest made live from the site's problems and teams
    admin.page.fill("#new-id", "lab")
    admin.page.fill("#new-name", "Evening lab")
    admin.page.fill("#new-start", "2030-01-01T11:00:00Z")
    admin.page.check("#problem-divisor")
    admin.page.check("#team-team1")
    admin.shot("new-contest")
    admin.page.click("#add-contest")
    expect(admin.page.locator("#message")).to_contain_text("Evening lab is added")
    team.go("/")
    expect(team.page.locator('#my-contests tr[data-contest="lab"] .state')).to_contain_text("running")
    team.page.click('#my-contests tr[data-contest="lab"] a')
    paste(team, "lab", "divisor", SUM_WA)
    expect(team.page.locator("#submission-1 .verdict")).to_have_text("WA", timeout=30_000)
    team.shot("lab-submissions")

    admin.go("/site/contests/new")  # a contest package uploaded: first one with its own people, refused
    bad, good = tmp_path / "bad.zip", tmp_path / "good.zip"
    bad.write_bytes(zip_of({**package("uploaded"), "accounts.yaml": "[]"}))
    good.write_bytes(zip_of(package("uploaded", teams=["team1"])))
    admin.page.set_input_files("#upload-package", str(bad))
    admin.page.click("#upload-contest-button")
    expect(admin.page.locator("#upload-error")).to_contain_text("accounts.yaml: a site's contest has no people")
    admin.shot("upload-refused")
    admin.page.set_input_files("#upload-package", str(good))
    admin.page.click("#upload-contest-button")
    expect(admin.page.locator("#message")).to_contain_text("Contest uploaded is added")
    admin.shot("upload-added")
    team.go("/")
    expect(team.page.locator('#my-contests tr[data-contest="uploaded"]')).to_be_visible()

    public.go("/")
    expect(public.page.locator("#contests tr[data-contest]")).to_have_count(3)  # main, lab, uploaded
    public.go("/contests/practice/scoreboard")
    expect(public.page.locator("#error")).to_have_text("there is no page /contests/practice/scoreboard")
    public.shot("hidden-404")
    team.go("/")
    expect(team.page.locator("#my-contests tr[data-contest]")).to_have_count(3)  # main, lab, uploaded
    assert public.dialogs == team.dialogs == admin.dialogs == []
