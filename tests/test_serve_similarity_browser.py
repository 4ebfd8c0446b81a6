"""Similar submissions' jury pages in a browser (issue 49, docs/similarity.md): Playwright drives Debian's
Chromium against a real `judge serve` process on a loopback port. Three teams submit (one a renamed copy of
another's program); a judge asks for the problem's report, the server's idle judging slot computes it, the
page ranks the pair with links to both submissions, the pair shows side by side with the shared code marked,
and "Mark reviewed" is kept; a team's pages show nothing of it and the jury's pages refuse it.

Screenshots go to ``$JUDGE_ARTIFACTS/serve/similarity-*.png`` (CI keeps them), else to a temporary folder.
Skipped, with the reason, when Playwright or Chromium is missing (.ci/setup installs both).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, write_contest
from test_serve_browser import CHROMIUM, Person, sync_playwright
from test_serve_fuzzing_browser import browser, shots  # noqa: F401 - the fixtures
from test_serve_process import Serve

from judge.serve.model.times import format_time

WAIT_S = 120  # a safety net, not a measurement
SIM = FIXTURES / "similarity"
MARK = "zqcopiedname"

try:
    from playwright.sync_api import Browser, expect
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    pass

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Serve]:
    root = write_contest(tmp_path / "contest", start=format_time(time.time() - 600), rate=(20, 60))
    shutil.copytree(FIXTURES / "sum", root / "problems" / "sum")
    s = Serve(root, tmp_path / "serve.log")
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def test_the_jury_computes_reviews_and_compares_a_pair_side_by_side(
    running: Serve,
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    base = running.base.removesuffix("/api")
    one = running.submit("team1", (SIM / "original.py").read_text().replace("read_grid", MARK))
    two = running.submit("team2", (SIM / "renamed.py").read_text())
    running.submit("team3", (SIM / "independent.py").read_text())
    judge = Person(browser, base, shots, "similarity-judge")
    judge.login("judge")
    judge.go("/admin/similarity")
    expect(judge.page.locator("#similarity")).to_contain_text("not computed")
    judge.shot("overview-before")
    judge.page.locator("#similarity form").first.locator("button").click()  # sum's "Compute"
    deadline = time.monotonic() + WAIT_S
    while judge.page.locator("#pairs").count() == 0 and time.monotonic() < deadline:
        time.sleep(1)
        judge.go("/admin/similarity/sum")
    row = judge.page.locator("#pairs tr").nth(1)
    expect(row).to_contain_text("100 %")
    expect(row.locator(f'a[href="/admin/submissions/{one}"]')).to_have_count(1)
    expect(row.locator(f'a[href="/admin/submissions/{two}"]')).to_have_count(1)
    expect(judge.page.locator("#pairs tr")).to_have_count(2)  # the header and one pair: team3's is its own
    judge.shot("problem")
    row.locator("text=side by side").click()
    expect(judge.page.locator("mark").first).to_be_visible()
    expect(judge.page.locator("body")).to_contain_text(MARK)
    judge.shot("pair")
    judge.page.fill("input[name=note]", "asked both teams")
    judge.page.click("text=Mark reviewed")
    expect(judge.page.locator("body")).to_contain_text("reviewed by judge")
    judge.go("/admin/similarity/sum")
    expect(judge.page.locator("#pairs")).to_contain_text("asked both teams")
    judge.go("/admin/similarity")
    expect(judge.page.locator("#similarity")).to_contain_text("computed")
    judge.shot("overview")

    team = Person(browser, base, shots, "similarity-team2")
    team.login("team2")
    for path in ("/submissions", f"/submissions/{two}", "/scoreboard", "/problems"):
        team.go(path)
        content = team.page.content().lower()
        assert "similar" not in content and MARK not in content, path
    team.go("/admin/similarity/sum")
    expect(team.page.locator("body")).to_contain_text("this page is for judges and admins")
    assert MARK not in team.page.content()
    team.shot("refused")
    for person in (judge, team):
        assert person.dialogs == [], person.name
        person.context.close()
