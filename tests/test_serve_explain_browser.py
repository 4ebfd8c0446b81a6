"""A rejected submission's counterexample in Chromium (issue 46): Playwright drives Debian's Chromium against
the app in this process (uvicorn on a free loopback port), with the scripted judge and runner of
tests/test_serve_explain.py, the test moving the judging and the search on. The team submits a wrong program
on its submit page, stays on the submission page, and sees the verdict, then "Searching…", then "An input
your program fails on" appear without a reload; its download buttons give the files; the jury's submission
page shows it too; another team's browser gets the 404 page. Screenshots in ``$JUDGE_ARTIFACTS/serve/``."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_live import listening
from test_fuzz_search import off_by_one_from
from test_serve_browser import CHROMIUM, Person, browser, shots  # noqa: F401 - fixtures
from test_serve_explain import WRONG, open_live, search_all

from judge.serve.http.app import create_app

try:
    from playwright.sync_api import Browser, expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


def test_the_team_sees_its_counterexample_appear(tmp_path: Path, browser: Browser, shots: Path) -> None:  # noqa: F811
    live = open_live(tmp_path, off_by_one_from(37))
    try:
        with listening(create_app(live.server)) as (host, port):
            base = f"http://{host}:{port}"
            team = Person(browser, base, shots, "explain-team1")
            team.login("team1")
            team.go("/submit?problem=double")
            team.page.set_input_files(
                "#file", files=[{"name": "double.py", "mimeType": "text/x-python", "buffer": WRONG.encode()}]
            )
            team.page.click("form.box button[type=submit]")
            team.page.wait_for_load_state()
            team.go("/submissions/1")
            team.page.evaluate("window.__loaded_once = 1")  # gone if the page reloads
            part = team.page.locator("#counterexample")
            expect(part).to_be_attached()
            expect(team.page.locator("#cx")).to_have_count(0)  # not judged yet: nothing shown
            team.shot("pending")

            live.server.judging.run_pending()  # WA: a search is queued
            expect(team.page.locator("#verdict")).to_have_text("WA")
            expect(team.page.locator("#cx-searching")).to_contain_text(
                "Searching for a small input your program fails on"
            )
            team.shot("searching")

            search_all(live.server)  # the idle slot's search finds 38 (37 is a secret test's input: never shown)
            expect(team.page.locator("#cx h2")).to_have_text("An input your program fails on")
            expect(team.page.locator("#cx-input")).to_have_text("38")
            expect(team.page.locator("#cx-answer")).to_have_text("76")
            expect(team.page.locator("#cx-output")).to_have_text("77")
            expect(team.page.locator("#cx-verdict")).to_have_text("WA")
            assert team.page.evaluate("window.__loaded_once") == 1  # no reload
            team.shot("found")
            for part_name, data in (("input", b"38\n"), ("answer", b"76\n"), ("output", b"77\n")):
                with team.page.expect_download() as got:
                    team.page.click(f"#cx-download-{part_name}")
                download = got.value
                assert (
                    download.suggested_filename
                    == f"submission-1.{dict(input='in', answer='ans', output='out')[part_name]}"
                )
                assert Path(download.path()).read_bytes() == data

            judge = Person(browser, base, shots, "explain-judge")
            judge.login("judge")
            judge.go("/admin/submissions/1")
            expect(judge.page.locator("#cx h2")).to_have_text("An input the program fails on")
            expect(judge.page.locator("#cx-input")).to_have_text("38")
            expect(judge.page.locator("#cx-jury")).to_contain_text("shown to team (shown to the team)")
            judge.shot("jury")

            other = Person(browser, base, shots, "explain-team2")
            other.login("team2")
            other.go("/submissions/1")
            assert "fails on" not in other.page.content() and "38" not in other.page.inner_text("main")
            other.shot("other-team")
            for person in (team, judge, other):
                assert person.dialogs == [], person.name
                person.context.close()
    finally:
        live.server.close()
