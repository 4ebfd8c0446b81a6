"""Clarifications in a browser: Playwright drives Debian's Chromium against a real `judge serve` process (the
contest of test_serve_browser.py, whose team2 is named ``<script>alert(1)</script>``). The jury's page is
open when team1 asks: the question appears there without a reload; the jury answers it to everyone; the
pages team1 and team2 have open show the notice and the unread count without a reload; team2 reads the
answer with the question's text (plain text, newlines kept), never team1's name. Nothing a team typed runs.

Screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (else a temporary folder), named ``clar-*``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")

from playwright.sync_api import Browser, expect  # noqa: E402
from test_serve_browser import WAIT_MS, Person, browser, pytestmark, server, shots  # noqa: E402, F401 - fixtures
from test_serve_process import Serve  # noqa: E402

QUESTION = "Can n be negative?\n<script>alert(2)</script> is in my input"
ANSWER = "No: 1 <= n, always.\nRead the input section."


def test_a_question_answered_to_everyone_reaches_every_team_page_live(
    server: Serve,  # noqa: F811 - the fixture
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    base = server.base.removesuffix("/api")
    jury = Person(browser, base, shots, "clar-judge")
    jury.login("judge")
    jury.go("/admin/clarifications")
    expect(jury.page.locator("#none-waiting")).to_be_visible()
    jury.page.evaluate("window.__loaded_once = 1")  # gone if the page reloads

    team1 = Person(browser, base, shots, "clar-team1")
    team1.login("team1")
    team1.go("/clarifications")
    team1.page.select_option("#problem", "sum")
    team1.page.fill("#text", QUESTION)
    team1.shot("ask")
    team1.page.click("#ask-form button[type=submit]")
    expect(team1.page.locator("#sent")).to_be_visible()
    expect(team1.page.locator("article.clar.question .clar-text")).to_have_text(QUESTION)
    team1.shot("asked")
    team1.go("/submissions")
    team1.page.evaluate("window.__loaded_once = 1")

    team2 = Person(browser, base, shots, "clar-team2")
    team2.login("team2")  # the hostile name
    team2.go("/problems")
    team2.page.evaluate("window.__loaded_once = 1")
    expect(team2.page.locator("#clar-link")).to_have_text("Clarifications")  # nothing unread

    # the jury's page shows the question without a reload; the jury answers it to everyone
    waiting = jury.page.locator("#unanswered tr[id^=waiting-]")
    expect(waiting).to_have_count(1, timeout=WAIT_MS)
    expect(waiting.locator(".clar-text")).to_have_text(QUESTION)
    expect(jury.page.locator("#clar-count")).to_have_text("1", timeout=WAIT_MS)
    assert jury.page.evaluate("window.__loaded_once") == 1
    jury.shot("waiting")
    waiting.locator("a.button").click()
    jury.page.fill("#text", ANSWER)
    jury.page.check("#to-all")
    jury.shot("answer")
    jury.page.click("#send-answer")
    expect(jury.page.locator("#message")).to_have_text("answer sent")
    expect(jury.page.locator("#none-waiting")).to_be_visible()
    expect(jury.page.locator(".clar-row:has(article.question) .clar-meta")).to_contain_text("answered by judge")
    jury.shot("answered")

    # both teams' open pages show the notice, without a reload
    for person in (team1, team2):
        expect(person.page.locator("#clar-toast")).to_be_visible(timeout=WAIT_MS)
        expect(person.page.locator("#clar-toast .clar-text")).to_have_text(ANSWER)
        expect(person.page.locator("#clar-count")).to_have_text("1")
        assert person.page.evaluate("window.__loaded_once") == 1, person.name
        person.shot("notice")

    # team2 reads it: the question's text with the answer, as text, never team1's name
    team2.page.click("#clar-read")
    answer = team2.page.locator("article.clar.answer")
    expect(answer.locator(".clar-text.replied")).to_have_text(QUESTION)
    expect(answer.locator("div.clar-text")).to_have_text(ANSWER)
    assert "Zeta" not in team2.page.locator("main").inner_text()  # team1's name
    expect(team2.page.locator("#clar-toast")).to_have_count(0)
    expect(team2.page.locator("#clar-link")).to_have_text("Clarifications")
    team2.shot("read")
    team1.go("/clarifications")
    expect(team1.page.locator("article.clar")).to_have_count(2)
    team1.shot("read")

    for person in (jury, team1, team2):
        assert person.dialogs == [], person.name  # nothing typed ran anywhere
        assert person.page.locator("main script").count() == 0
        person.context.close()
