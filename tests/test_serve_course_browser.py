"""The demo course (`judge course init`, issue 45) in Chromium, against the site's app in this process (uvicorn on
a free loopback port, the site's judging pool with the scripted judge, a fake clock), in a browser whose clock
is in São Paulo: a student submits Lab 1 late and sees the penalty (the submit page's credit, My submissions,
the board's own row); another at the rate limit is told when to come back; s007's extension makes theirs on time;
Homework 1's result is withheld until the due time; the instructor's course page, board, gradebook (downloaded:
the CSV matches the hand computation), and roster with an extension set in bulk. Screenshots in
``$JUDGE_ARTIFACTS/serve/course-*.png``."""

from __future__ import annotations

import base64
import csv
import io
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_fixtures import CHEAP_HASHER, SUM_AC, T0, FakeClock
from serve_site_fixtures import open_test_site
from test_serve_browser import CHROMIUM, WAIT_MS, browser, shots  # noqa: F401 - fixtures
from test_serve_ui_browser import Served

from judge.commands.contest import demo_problems
from judge.course.demo import write_demo_course
from judge.grade.discovery import load_problems
from judge.serve.http.site_app import create_site_app
from judge.serve.model.upload import pack
from judge.serve.site.site import Site

try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
ZONE = "America/Sao_Paulo"  # UTC-3 all year: the pages' times in the viewer's clock


class Person:
    def __init__(self, chromium: Browser, base: str, folder: Path, name: str, password: str) -> None:
        self.context = chromium.new_context(
            viewport={"width": 1200, "height": 760}, timezone_id=ZONE, locale="en-GB", accept_downloads=True
        )
        self.context.set_default_timeout(WAIT_MS)
        self.page: Page = self.context.new_page()
        self.page.on("dialog", lambda d: d.accept())  # the pages' confirmations: OK
        self.base, self.shots, self.name, self.password = base, folder, name, password

    def go(self, path: str) -> Page:
        self.page.goto(self.base + path)
        return self.page

    def shot(self, label: str) -> None:
        self.page.screenshot(path=str(self.shots / f"course-{self.name}-{label}.png"), full_page=True)

    def login(self) -> None:
        self.go("/login")
        self.page.fill("#username", self.name)
        self.page.fill("#password", self.password)
        self.page.click("form.box button[type=submit]")
        self.page.wait_for_load_state()

    def paste(self, cid: str, problem: str, code: str = SUM_AC) -> None:
        page = self.go(f"/contests/{cid}/submit?problem={problem}")
        page.fill("#code", code)
        page.select_option("#language", "python3")
        page.click("#submit-form button[type=submit]")


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[tuple[Site, FakeClock, str, dict[str, str]]]:
    problems, issues = load_problems(demo_problems())
    assert not issues
    counter = itertools.count(1)
    made = write_demo_course(tmp_path / "course", problems, T0, lambda: f"pw-{next(counter):04d}", CHEAP_HASHER.hash)
    passwords = {lg.username: lg.password for lg in made.students} | {s.username: s.password for s in made.staff}
    clock = FakeClock(T0)  # lab1 was due an hour ago: 80 % for a day; hw1 is due in a week
    site = open_test_site(tmp_path / "course", clock, workers=2)
    site.start()
    web = Served(create_site_app(site))
    try:
        yield site, clock, web.base, passwords
    finally:
        web.close()
        site.stop()
        site.close()


def cells(text: str) -> dict[str, dict[str, str]]:
    rows = list(csv.reader(io.StringIO(text)))
    return {row[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}


def test_the_demo_course_for_a_student_and_the_instructor(
    demo: tuple[Site, FakeClock, str, dict[str, str]],
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    site, clock, base, passwords = demo

    def person(name: str) -> Person:
        p = Person(browser, base, shots, name, passwords[name])
        p.login()
        return p

    # a student submits Lab 1 an hour late: 80 %
    ada = person("s001")
    page = ada.go("/contests/lab1/submit")
    expect(page.locator("#course-credit")).to_contain_text("Late: a submission now counts 80 %")
    until = page.locator("#course-credit time.clock").first  # T0 + 23 h = 2030-01-02 09:00 UTC: 06:00 in São Paulo
    expect(until).to_have_text("02/01/2030 06:00:00")
    expect(page.locator("#limit-rummy td.left")).to_have_text("5 of 5")
    ada.shot("lab1-submit-late")
    ada.paste("lab1", "rummy")
    expect(ada.page.locator("#submission-1 .verdict")).to_have_text("AC", timeout=WAIT_MS)
    expect(ada.page.locator("#submission-1 .course-credit")).to_contain_text("100 × 80 %: late 1 h")
    ada.shot("lab1-my-submissions")
    ada.go("/contests/lab1/submit")
    expect(ada.page.locator("#limit-rummy td.left")).to_have_text("4 of 5")
    ada.go("/contests/lab1/scoreboard")
    expect(ada.page.locator("table.board tr[data-team]")).to_have_count(1)  # their own row only
    expect(ada.page.locator("#student-s001 td.score")).to_have_text("80")
    ada.shot("lab1-board")
    # Homework 1: the samples only until the due time (a week away)
    ada.paste("hw1", "memory")
    expect(ada.page.locator("#submission-1 .verdict")).to_contain_text(
        "judged: shown after the due time", timeout=WAIT_MS
    )
    ada.go("/contests/hw1/submissions/1")
    expect(ada.page.locator("table.runs tr")).to_have_count(2)  # the header and the one sample test
    ada.shot("hw1-withheld")

    # another student at the rate limit: 5 at once, one back every 30 minutes
    body = {"problem_id": "rummy", "language_id": "python3"}
    body["files"] = [{"data": base64.b64encode(pack({"r.py": SUM_AC.encode()})).decode()}]
    for _ in range(5):
        clock.advance(60)
        r = httpx.post(f"{base}/api/contests/lab1/submissions", auth=("s002", passwords["s002"]), json=body)
        assert r.status_code == 201, r.text
    alan = person("s002")
    alan.paste("lab1", "rummy")
    expect(alan.page.locator("#error")).to_contain_text("no submissions left for rummy")
    expect(alan.page.locator("#error time.clock")).to_have_text("01/01/2030 07:31:00")  # the message's time too
    expect(alan.page.locator("#limit-rummy td.left")).to_have_text("0 of 5")
    expect(alan.page.locator("#limit-rummy time.clock").first).to_have_text("01/01/2030 07:31:00")  # T0 + 31 min
    alan.shot("lab1-rate-limit")

    # s007's extension of two days: on time
    s007 = person("s007")
    expect(s007.go("/contests/lab1/submit").locator("#course-override")).to_contain_text("extension 2d")
    s007.paste("lab1", "rummy")
    expect(s007.page.locator("#submission-7 .course-credit")).to_contain_text("extension 2d: on time", timeout=WAIT_MS)
    s007.shot("lab1-extension")
    judged(site)

    # the instructor
    teacher = person("instructor")
    teacher.go("/contests/lab1/admin/course")
    expect(teacher.page.locator("#overrides")).to_contain_text("s007")
    teacher.shot("lab1-course")
    teacher.go("/contests/lab1/scoreboard")
    expect(teacher.page.locator("table.board tr[data-team]")).to_have_count(30)
    expect(teacher.page.locator("#student-s007 td.score")).to_have_text("100")
    expect(teacher.page.locator("#student-s002")).to_contain_text("100 × 80 %: late")
    teacher.shot("lab1-board")
    teacher.go("/contests/lab1/admin/course/gradebook")
    expect(teacher.page.locator("#grade-s001")).to_contain_text("180")
    teacher.shot("gradebook")
    with teacher.page.expect_download() as found:
        teacher.page.click("#download-gradebook")
    download = found.value
    assert download.suggested_filename == "gradebook-csv.csv"
    book = cells(Path(download.path()).read_text(encoding="utf-8"))
    assert len(book) == 30
    hand = {  # lab1: due T0 - 1 h, 80 % for a day; hw1: on time; exam: nothing yet
        "s001": {"lab1": "80", "lab1 raw": "100", "lab1 minutes late": "60", "hw1": "100", "total": "180"},
        "s002": {"lab1": "80", "lab1 raw": "100", "lab1 minutes late": "65", "hw1": "0", "total": "80"},
        "s007": {"lab1": "100", "lab1 override": "extension 2d", "lab1 override used": "yes", "total": "100"},
        "s010": {"lab1": "0", "hw1": "0", "exam": "0", "total": "0"},
    }
    for student, expected in hand.items():
        assert {k: book[student][k] for k in expected} == expected, student

    # the roster: an extension for section B's students on Lab 1 (its contest runs two weeks after its close)
    teacher.go("/contests/lab1/admin/course/roster")
    expect(teacher.page.locator("#roster tr[id^=student-]")).to_have_count(30)
    teacher.page.select_option("#section", "B")
    teacher.page.select_option("#kind", "extension")
    teacher.page.fill("#value", "3d")
    teacher.page.fill("#note", "the lab moved")
    teacher.page.click("#set-overrides")
    expect(teacher.page.locator("#overrides-set")).to_be_visible()
    expect(teacher.page.locator("#student-s016")).to_contain_text("section B")
    expect(teacher.page.locator("#student-s007")).to_contain_text("extension 2d")  # section A: theirs as it was
    teacher.shot("lab1-roster")
    teacher.go("/contests/lab1/admin/course")
    expect(teacher.page.locator("#overrides")).to_contain_text("the lab moved")


def judged(site: Site) -> None:
    """Until the pool has judged every submission (a safety net of WAIT_MS, not a measurement)."""
    for _ in range(WAIT_MS // 50):
        if not any(c.server.judging.pending() for c in site.contests()):
            return
        threading.Event().wait(0.05)
    raise AssertionError("the pool did not judge the submissions")
