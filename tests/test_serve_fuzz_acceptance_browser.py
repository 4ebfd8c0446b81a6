"""Issue 33's acceptance in a browser, end to end, with nothing stored by hand: a real `judge serve --fuzz`
judging and fuzzing for real (one worker, the sandbox) on a contest whose test set is weak (the fixture
tests/fixtures_fuzz/add: a wrong solution, wrong when both numbers exceed 100, passes its tests). A team
submits it and it is accepted; live fuzzing flags it on the jury's Fuzzing page within the contest; the
admin opens the counterexample, presses "Add as test", watches the rejudge preview list exactly that
submission, applies it, and the submission is rejudged WA, while a right one stays AC.

Screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (else a temporary folder). Skipped, with the reason, when
Playwright or Chromium is missing, or no sandbox can run programs here.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import write_contest
from test_serve_browser import CHROMIUM, WAIT_MS, Person, shots  # noqa: F401 - shots: the fixture
from test_serve_preview_browser import ADD, browser, submit, verdict  # noqa: F401 - browser: the fixture
from test_serve_process import Serve, wait_for

from judge.runner import Runner
from judge.serve.model.times import format_time

try:
    from playwright.sync_api import Browser, expect
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    Browser = None  # type: ignore[assignment, misc]

pytestmark = [
    pytest.mark.skipif(Browser is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture
def server(tmp_path: Path, sandbox_runner: Runner) -> Iterator[Serve]:
    root = write_contest(tmp_path / "contest", start=format_time(time.time() - 600), scoreboard_type="pass-fail")
    (root / "problems.yaml").write_text("- {id: add, label: A}\n")
    s = Serve(root, tmp_path / "serve.log", "--problems", str(ADD.parent), "--fuzz", "--fuzz-examples", "100")
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def test_a_wrong_accepted_submission_is_flagged_added_as_a_test_previewed_and_rejudged(
    server: Serve,
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    right = submit(server, "team1", ADD / "submissions" / "accepted" / "add.py")
    wrong = submit(server, "team2", ADD / "submissions" / "fuzz_bugs" / "wa_big_both.py")
    for sid in (right, wrong):
        assert wait_for(f"submission {sid} judged", lambda sid=sid: verdict(server, sid)) == "AC"  # weak tests

    base = server.base.removesuffix("/api")
    admin = Person(browser, base, shots, "fuzz-acceptance")
    admin.login("admin")
    admin.go("/admin/fuzzing")
    row = admin.page.locator("table.counterexamples tr[id^=counterexample-]")
    expect(row).to_have_count(1, timeout=WAIT_MS * 6)  # found by live fuzzing; the page refreshes by itself
    expect(row).to_contain_text(wrong)
    admin.shot("flagged")
    row.locator("a[id^=open-]").click()
    expect(admin.page.locator("body")).to_contain_text("101")  # the shrunk input: both numbers over 100
    admin.shot("counterexample")
    admin.page.click("#add-test")
    admin.page.wait_for_url("**/admin/previews/*")
    expect(admin.page.locator("#preview-state")).to_contain_text("ready", timeout=WAIT_MS * 3)
    expect(admin.page.locator(f"#run-{wrong}")).to_contain_text("WA")
    expect(admin.page.locator(f"#run-{right}")).not_to_have_class("changes")
    admin.shot("preview")
    admin.page.click("#apply")
    expect(admin.page.locator("#preview-state")).to_contain_text("applied")
    assert wait_for(f"submission {wrong} rejudged", lambda: verdict(server, wrong) == "WA")
    assert verdict(server, right) == "AC"
    admin.go("/admin/fuzzing")
    expect(admin.page.locator("table.counterexamples tr[id^=counterexample-]")).to_contain_text("added")
    admin.shot("added")
