"""Issue 43's walk in Chromium (Playwright), against the app in this process (uvicorn on a free loopback port,
a fake clock moved by the test: before the start, during the contest, in the freeze, after the end; verdicts
scripted, a TLE among them). A team's board, submit page, submissions and problems at each phase; the contest
clock and its live countdown; the ICPC view (no scores); a TLE as "> 1 s"; a held submission "pending"; the
jury's confirmations (Cancel does nothing, OK acts), the people page's POST-redirect-GET (a reload re-posts
nothing and the password is gone), the print queue's delivered mark, the balloons' contest times, the 404
page, the favicon; the resolver without the jury's navigation; the replay's board and 404 page, and a replay
of two contests (its chooser, each board). Screenshots of every page in ``$JUDGE_ARTIFACTS/serve/ui-*.png``
(CI keeps them).
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import uvicorn
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, FakeClock, write_contest
from starlette.applications import Starlette
from test_serve_browser import CHROMIUM, Person, browser, shots  # noqa: F401 - fixtures
from test_serve_replay_site import make_archives
from test_serve_resolver_browser import LiveApi
from test_serve_ui import SUM_TLE, open_ui

from judge.serve.http.replay import create_replay_app
from judge.serve.model.times import format_time
from judge.serve.services.lifecycle.replay import load_replay, load_replays
from judge.serve.site.server import Server

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
C = "/api/contests/test"
TEAM_PAGES = (
    ("/scoreboard", "board"),
    ("/submit", "submit"),
    ("/submissions", "submissions"),
    ("/problems", "problems"),
)


class Served:
    """An ASGI app served by uvicorn in a thread, on a free loopback port, until ``close``."""

    def __init__(self, app: Starlette) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.uv.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        for _ in range(400):
            if self.uv.started:
                break
            threading.Event().wait(0.05)

    def close(self) -> None:
        self.uv.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Server, FakeClock, str]]:
    from judge.serve.http.app import create_app

    root = write_contest(
        tmp_path / "c", scoreboard_type="pass-fail", extra=('penalty_time: "0:20:00"', "medals: {gold: 1}")
    )
    (root / "problems.yaml").write_text(
        "- {id: sum, label: A, rgb: '#e53935'}\n- {id: divisor, label: B, rgb: '#1e88e5'}\n"
    )
    clock = FakeClock(T0 - 147)  # 2 min 27 s before the start
    server = open_ui(root, clock)
    web = Served(create_app(server))
    try:
        yield server, clock, web.base
    finally:
        web.close()
        server.close()


def judge_now(server: Server) -> None:
    server.judging.run_pending()


def paste(person: Person, problem: str, code: str) -> None:
    page = person.go(f"/submit?problem={problem}")
    page.fill("#code", code)
    page.select_option("#language", "python3")
    page.click("#submit-form button[type=submit]")
    expect(page.locator("#submitted")).to_be_visible()


def test_the_walk_before_during_and_after(served: tuple[Server, FakeClock, str], browser, shots: Path) -> None:  # noqa: F811
    server, clock, base = served
    api = LiveApi(base)
    team = Person(browser, base, shots, "ui-team1")
    team.login("team1")

    # before the start: the countdown, and why nothing can be submitted yet
    for path, label in TEAM_PAGES:
        team.go(path)
        team.shot(f"before-{label}")
    team.go("/submit")
    expect(team.page.locator("#submit-closed")).to_contain_text("has not started yet")
    expect(team.page.locator("#countdown")).to_have_text(re.compile(r"^0:0[12]:[0-5][0-9]$"))
    team.go("/scoreboard")
    expect(team.page.locator("#board-clock")).to_contain_text("The contest has not started yet")
    assert "-0:0" not in team.page.inner_text("main")

    # during: three submissions judged, one held while judging is paused
    clock.t = T0 + HOUR + 125
    team.go("/submissions")
    paste(team, "sum", SUM_AC)
    paste(team, "sum", SUM_WA)
    paste(team, "divisor", SUM_TLE)
    judge_now(server)
    team.go("/submissions")
    expect(team.page.locator("#submission-3 .verdict")).to_have_text("TLE")
    assert team.page.locator("table.submissions th").all_inner_texts() == [
        "#",
        "Time",
        "Problem",
        "Language",
        "Verdict",
    ]
    expect(team.page.locator("#time-left")).to_have_text(re.compile(r"^3:5[0-9]:[0-5][0-9]$"))  # counting down
    expect(team.page.locator("#contest-status time.clock")).not_to_contain_text("UTC")  # the viewer's clock
    team.go("/submissions/3")
    expect(team.page.locator("table.runs td.time").last).to_have_text("> 1 s")
    team.shot("during-feedback-tle")
    team.go("/problems/sum/")
    team.shot("during-statement")
    assert "Max score" not in team.page.inner_text("main")

    admin = Person(browser, base, shots, "ui-admin")
    admin.login("admin")
    admin.go("/admin/judging")
    admin.answer = False
    admin.page.click("#pause")  # Cancel: nothing happens
    assert admin.confirms[-1].startswith("Pause judging?")
    expect(admin.page.locator("#judging-state")).to_contain_text("Judging runs")
    admin.answer = True
    admin.page.click("#pause")
    expect(admin.page.locator("#message")).to_have_text(
        "judging is paused: submissions are accepted and wait in the queue until it resumes"
    )
    admin.shot("judging-paused")
    clock.advance(60)  # the rate limit: 3 a minute
    paste(team, "sum", SUM_AC)
    judge_now(server)  # paused: nothing taken
    team.page.evaluate("window.__loaded_once = 1")
    expect(team.page.locator("#submission-4 .verdict")).to_have_text("pending")
    team.shot("during-pending")
    admin.page.click("#resume")
    expect(admin.page.locator("#message")).to_contain_text("judging is resumed")
    judge_now(server)
    expect(team.page.locator("#submission-4 .verdict")).to_have_text("AC", timeout=30_000)  # live, no reload
    assert team.page.evaluate("window.__loaded_once") == 1

    for path, label in TEAM_PAGES:
        team.go(path)
        team.shot(f"during-{label}")
    team.go("/scoreboard")
    mine = team.page.locator('tr[data-team="team1"] td.contestant')
    assert mine.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 243, 176)"  # the team's row
    other = team.page.locator('tr[data-team="team2"] td.contestant')
    assert other.evaluate("e => getComputedStyle(e).backgroundColor") != "rgb(255, 243, 176)"
    balloon = team.page.locator("th.problem .balloon").first
    assert balloon.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(229, 57, 53)"  # A's rgb
    expect(team.page.locator("#freezes-at")).to_contain_text("the scoreboard freezes 4:00:00 into the contest")
    expect(team.page.locator("#board-clock")).to_contain_text("into the contest")

    # prints and balloons, times as contest time; the jury's delivered mark
    team.go("/print")
    team.page.fill("#print-text", "print('hello')\n")
    team.page.fill("#print-name", "hello.py")
    team.page.click("#print")
    admin.go("/admin/prints")
    expect(admin.page.locator("#print-1 .clar-head")).to_contain_text("Zeta (team1)")
    expect(admin.page.locator("#print-1 .clar-head")).not_to_contain_text("team team1")
    admin.shot("prints")
    admin.page.click("#delivered-1")
    expect(admin.page.locator("#print-1 .delivered-mark")).to_have_text("✓ delivered")
    admin.shot("prints-delivered")
    admin.go("/admin/balloons")
    expect(admin.page.locator("#balloon-list")).to_contain_text("1:02:05")
    assert ".000+00:00" not in admin.page.inner_text("#balloon-list")
    admin.shot("balloons")

    # the people page: confirmations, then POST-redirect-GET (a reload re-posts nothing)
    admin.go("/admin/people")
    admin.page.click("#disable-team3")
    assert admin.confirms[-1].startswith("Disable account team3?")
    expect(admin.page.locator("#message")).to_contain_text("account team3 is disabled")
    assert "/admin/people?message=" in admin.page.url
    admin.page.click("#reset-team2")
    assert admin.confirms[-1].startswith("Reset the password of account team2?")
    password = admin.page.locator("#password").inner_text()
    admin.shot("people-password")
    audit = len(api.get(f"{C}/audit-log", "admin").json())
    admin.page.reload()
    expect(admin.page.locator("#message")).to_contain_text("account team2 has a new password")
    expect(admin.page.locator("#password")).to_have_count(0)  # shown once
    assert len(api.get(f"{C}/audit-log", "admin").json()) == audit  # nothing re-posted
    assert api.request("GET", f"{C}/account", "team2", password).status_code == 200
    admin.shot("people-reloaded")
    admin.go("/admin/submissions/2")
    admin.page.click("#rejudge")
    assert admin.confirms[-1].startswith("Rejudge submission 2?")
    expect(admin.page.locator("#message")).to_contain_text("1 submission(s) queued")
    admin.shot("submission-rejudged")
    judge_now(server)
    admin.go("/nowhere/at/all")
    expect(admin.page.locator("#error")).to_contain_text("there is no page /nowhere/at/all")
    admin.shot("not-found")
    icon = admin.context.request.get(base + "/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"] == "image/x-icon"

    # the freeze: its banner in contest time
    clock.t = T0 + 4 * HOUR + 60
    team.go("/scoreboard")
    expect(team.page.locator("#frozen")).to_contain_text("frozen since 4:00:00 into the contest")
    team.shot("frozen-board")

    # after the end: no clock running on, no submit form, the contest has ended
    clock.t = T0 + 5 * HOUR + 27 * 60
    for path, label in TEAM_PAGES:
        team.go(path)
        expect(team.page.locator("#contest-ended")).to_have_text("The contest has ended")
        team.shot(f"after-{label}")
    team.go("/scoreboard")
    line = team.page.inner_text("#board-clock")
    assert line.startswith("The contest has ended ·") and "5:27" not in team.page.inner_text("main")
    team.go("/submit")
    expect(team.page.locator("#submit-form")).to_have_count(0)
    expect(team.page.locator("#submit-closed")).to_contain_text("The contest has ended: no more submissions")

    # the resolver: the audience's screen, without the jury's navigation
    admin.go("/admin/resolver")
    expect(admin.page.locator("header.top")).to_have_count(0)
    admin.page.keyboard.press("Space")
    admin.shot("resolver")

    # finalized, exported and replayed: the replay's board with the live board's colours
    assert api.request("POST", f"{C}/finalize", "admin").status_code == 200
    thaw = {"id": "test", "scoreboard_thaw_time": format_time(clock.now())}
    assert api.request("PATCH", C, "admin", json=thaw).status_code == 200  # the ceremony's order: then the thaw
    archive = admin.context.request.get(base + "/admin/contest-package.zip")
    out = Path(shots) / "ui-archive.zip"
    out.write_bytes(archive.body())
    replay = Served(create_replay_app(load_replay(out)))
    try:
        public = Person(browser, replay.base, shots, "ui-replay")
        public.go("/")
        first = public.page.locator("td.cell.pf-first")
        expect(first.first).to_be_visible()
        assert first.first.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(46, 158, 79)"
        public.shot("board")
        # an unknown path: the replay's 404 page, not raw JSON (issue 44)
        public.go("/nowhere")
        expect(public.page.locator("#error")).to_have_text("there is no page /nowhere")
        public.shot("not-found")
        public.page.click("#replay-home")
        expect(public.page.locator("#replay-board")).to_be_visible()
        public.context.close()
    finally:
        replay.close()
        out.unlink()
    for person in (team, admin):
        assert person.dialogs == [], person.name
        person.context.close()


def test_a_replay_of_several_contests(browser, shots: Path, tmp_path: Path) -> None:  # noqa: F811
    """Issue 44: two finished contests' archives as one site: the chooser, a contest's board under
    /contests/<cid>/ with the live board's colours, back to the chooser, the 404 page."""
    with ThreadPoolExecutor(1) as pool:  # the archives' contests run through asyncio: not on Playwright's loop
        archives = pool.submit(make_archives, tmp_path).result()
    replay = Served(create_replay_app(*load_replays([archives["practice"], archives["test"]])))
    try:
        public = Person(browser, replay.base, shots, "ui-replay-site")
        public.go("/")
        rows = public.page.locator("#replay-contests tr[data-contest]")
        expect(rows).to_have_count(2)
        assert [rows.nth(i).get_attribute("data-contest") for i in range(2)] == ["practice", "test"]
        expect(rows.nth(0)).to_contain_text("2019-12-31 09:30 UTC")
        public.shot("chooser")
        public.page.click("text=Test contest")
        assert public.page.url == replay.base + "/contests/test/"
        first = public.page.locator("td.cell.pf-first")
        expect(first.first).to_be_visible()
        assert first.first.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(46, 158, 79)"
        expect(public.page.locator("#replay-awards")).to_contain_text("Gold medal winner")
        public.shot("board-test")
        public.page.click("#replay-contests-link")
        public.page.click("text=Practice")
        expect(public.page.locator("#replay-board")).to_be_visible()
        public.shot("board-practice")
        public.go("/contests/nope/")
        expect(public.page.locator("#error")).to_have_text("there is no contest 'nope' in this replay")
        public.shot("not-found")
        assert public.dialogs == []
        public.context.close()
    finally:
        replay.close()
