"""Live fuzzing's jury pages in a browser (issue 33, docs/live-fuzzing.md): Playwright drives Debian's Chromium
against a real `judge serve` process on a loopback port. A counterexample is stored while the jury's page is
open (directly with the storage's add_counterexample, as the fuzz jobs will store it); the jury's header
shows the notice without a reload, the Fuzzing page lists it, its page shows the input, the output, the
answer and the "Add as test" button; the team's pages show nothing of it, and /admin/fuzzing refuses it.

Screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (CI keeps them), else to a temporary folder. Skipped, with the
reason, when Playwright or Chromium is missing (.ci/setup installs both).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, SUM_AC, write_contest
from test_serve_browser import CHROMIUM, Person, sync_playwright
from test_serve_process import Serve

from judge.serve.model.records import Counterexample
from judge.serve.model.times import format_time
from judge.serve.storage import DB_NAME, open_storage

WAIT_MS = 60_000  # a safety net, not a measurement
MARK = "zq-found-by-fuzzing"

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
def running(tmp_path: Path) -> Iterator[tuple[Serve, Path]]:
    root = write_contest(tmp_path / "contest", start=format_time(time.time() - 600), rate=(20, 60))
    shutil.copytree(FIXTURES / "sum", root / "problems" / "sum")
    (root / "problems" / "sum" / "fuzz.py").write_text("# live fuzzing's hooks: only their presence matters here\n")
    s = Serve(root, tmp_path / "serve.log")
    yield s, root
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


def test_the_jury_sees_a_counterexample_live_and_the_team_nothing(
    running: tuple[Serve, Path], browser: Browser, shots: Path
) -> None:
    server, root = running
    base = server.base.removesuffix("/api")
    sid = int(server.submit("team1", SUM_AC))
    judge = Person(browser, base, shots, "fuzz-judge")
    judge.login("judge")
    judge.go("/admin")
    expect(judge.page.locator("#fuzz-link")).to_have_text("Fuzzing")
    expect(judge.page.locator("#fuzz-toast")).to_have_count(0)
    judge.page.evaluate("window.__loaded_once = 1")  # gone if the page reloads

    storage = open_storage(root / DB_NAME)
    with storage.write() as w:
        cid = w.add_counterexample(
            Counterexample(
                "sum", sid, sid, f"2 2\n{MARK}\n".encode(), b"4\n", b"0\n", "WA", "expected 4, got 0", True, time.time()
            )
        )
    storage.close()

    toast = judge.page.locator("#fuzz-toast")
    expect(toast).to_contain_text("New counterexample for problem A", timeout=WAIT_MS)  # live, no reload
    expect(judge.page.locator("#fuzz-count")).to_have_text("1")
    assert judge.page.evaluate("window.__loaded_once") == 1
    judge.shot("notice")
    judge.page.click("#fuzz-see")
    row = judge.page.locator(f"#counterexample-{cid}")
    expect(row).to_contain_text("WA")
    expect(row).to_contain_text("Zeta")
    expect(row).to_contain_text("expected 4, got 0")
    expect(judge.page.locator("#fuzz-summary-sum")).to_contain_text("yes")
    expect(judge.page.locator("#fuzz-summary-divisor")).to_contain_text("no (no fuzz.py)")
    expect(judge.page.locator("#fuzz-toast")).to_have_count(0)  # seen now
    judge.shot("fuzzing-page")
    judge.page.click(f"#open-{cid}")
    expect(judge.page.locator("#input")).to_contain_text(MARK)
    expect(judge.page.locator("#output")).to_have_text("0")
    expect(judge.page.locator("#answer")).to_have_text("4")
    expect(judge.page.locator("#message")).to_have_text("expected 4, got 0")
    expect(judge.page.locator("#add-test")).to_be_visible()
    judge.shot("counterexample")

    team = Person(browser, base, shots, "fuzz-team1")
    team.login("team1")
    for path in ("/submissions", f"/submissions/{sid}", "/scoreboard", "/problems", "/clarifications"):
        team.go(path)
        content = team.page.content().lower()
        assert "fuzz" not in content and "counterexample" not in content and MARK not in content, path
    team.go("/submissions")
    team.shot("submissions")
    team.go("/admin/fuzzing")
    expect(team.page.locator("body")).to_contain_text("this page is for judges and admins")
    team.shot("fuzzing-refused")
    for person in (judge, team):
        assert person.dialogs == [], person.name
        person.context.close()
