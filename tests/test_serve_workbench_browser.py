"""The jury's workbench in a browser (issue 47): a real `judge serve` judging for real (one worker, the
sandbox) on the fixture contest. A judge opens a wrong submission and sees why it failed: the failing
test's output, its answer and the diff side by side, stderr and the validator's message; a team sees the
same of its sample test only. The judge compares the wrong submission with a right one, starts a rejudge of
the problem, reviews the rejudging set (before → after) and applies it.

Screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (else a temporary folder). Skipped, with the reason, when
Playwright or Chromium is missing, or no sandbox can run programs here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import PASSWORDS, SUM_AC, SUM_WA, write_contest
from test_serve_browser import CHROMIUM, WAIT_MS, Person, shots  # noqa: F401 - shots: the fixture
from test_serve_process import Serve, wait_for

from judge.runner import Runner
from judge.serve.model.times import format_time

try:
    from playwright.sync_api import Browser, expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

RUNNER_PASSWORD = "pw-runner"

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture
def server(tmp_path: Path, sandbox_runner: Runner) -> Iterator[Serve]:
    root = write_contest(tmp_path / "contest", start=format_time(time.time() - 600), scoreboard_type="pass-fail")
    accounts = json.loads((root / "accounts.yaml").read_text())  # and a balloon runner
    (root / "accounts.yaml").write_text(
        json.dumps([*accounts, {"username": "runner", "password": RUNNER_PASSWORD, "type": "balloon"}])
    )
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


def verdict(server: Serve, sid: str) -> str | None:
    current = [j for j in server.get("judgements") if j["submission_id"] == sid and j["current"]]
    return current[-1].get("judgement_type_id") if current else None


def test_a_judge_sees_why_a_submission_failed(server: Serve, browser: Browser, shots: Path) -> None:  # noqa: F811
    base = server.base.removesuffix("/api")
    right = server.submit("team1", SUM_AC)
    wrong = server.submit("team2", SUM_WA)
    assert wait_for("the right one judged", lambda: verdict(server, right)) == "AC"
    assert wait_for("the wrong one judged", lambda: verdict(server, wrong)) == "WA"

    judge = Person(browser, base, shots, "workbench-judge")
    judge.login("judge")
    judge.go(f"/admin/submissions/{wrong}")
    failing = judge.page.locator(".run-output").first
    expect(failing.locator("table.diff tr.changed td.l")).to_have_text("-1")
    expect(failing.locator("table.diff tr.changed td.r")).to_have_text("3")
    judge.shot("wrong-submission")
    judge.page.click("a.output-link")  # the run's own page (pass-fail: judging stopped at the failed test)
    expect(judge.page.locator("h1")).to_contain_text("run 1")
    expect(judge.page.locator(".run-file").filter(has_text="test input")).to_contain_text("1 2")
    judge.shot("run-page")
    judge.go(f"/admin/submissions/{wrong}")  # compared with the right one: any two
    judge.page.fill("#compare input[name=b]", right)
    judge.page.click("#compare button")
    expect(judge.page.locator("#verdict-a")).to_have_text("WA")
    expect(judge.page.locator("#verdict-b")).to_have_text("AC")
    expect(judge.page.locator("table.diff tr.changed td.l")).to_have_text("print(a - b)")
    judge.shot("compare")

    # a rejudge of the problem: a set, reviewed (before → after, the board's change), then applied
    judge.go("/admin?problem_id=sum")
    judge.page.click("#rejudge-problem")  # asked first (confirm): Person answers OK
    expect(judge.page.locator("h1")).to_have_text("Rejudging 1: problem sum")
    expect(judge.page.locator("#preview-state b")).to_have_text("ready", timeout=WAIT_MS)
    expect(judge.page.locator("#preview-runs tr[id^=run-]")).to_have_count(2)
    expect(judge.page.locator(f"#run-{wrong}")).to_contain_text("WA")
    judge.shot("rejudging-ready")
    assert len(server.get(f"judgements?submission_id={wrong}")) == 1  # held: in no document yet
    judge.page.click("#apply")
    expect(judge.page.locator("#preview-state b")).to_have_text("applied")
    judge.shot("rejudging-applied")
    assert [j["current"] for j in server.get(f"judgements?submission_id={wrong}")] == [False, True]
    judge.go(f"/admin/submissions/{wrong}")
    expect(judge.page.locator("h2", has_text="Judgement 2 (current)")).to_have_count(1)

    team = Person(browser, base, shots, "workbench-team2")
    team.login("team2")
    team.go(f"/submissions/{wrong}")
    expect(team.page.locator("a.output-link")).to_have_count(1)  # the sample test's only
    team.page.click("a.output-link")
    expect(team.page.locator("table.diff tr.changed td.l")).to_have_text("-1")
    team.shot("sample-run")


def test_the_overviews_and_a_balloon_runner_in_the_browser(
    server: Serve,
    browser: Browser,
    shots: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PASSWORDS, "runner", RUNNER_PASSWORD)  # Person.login's
    base = server.base.removesuffix("/api")
    sent = [server.submit(user, code) for user, code in (("team1", SUM_WA), ("team1", SUM_AC), ("team3", SUM_WA))]
    for sid in sent:
        assert wait_for(f"submission {sid} judged", lambda sid=sid: verdict(server, sid)) in ("AC", "WA")

    judge = Person(browser, base, shots, "workbench-judge")
    judge.login("judge")
    judge.go("/admin/overview")
    expect(judge.page.locator("#team-team1 .logged-in")).to_contain_text("no")
    expect(judge.page.locator("#overview-totals")).to_contain_text("3 teams")
    judge.shot("team-overview")
    judge.go("/admin/statistics")
    chart = judge.page.locator("#time-chart svg")
    expect(chart.locator("rect.accepted")).to_have_count(1)
    expect(chart.locator("rect.rejected")).not_to_have_count(0)
    box = chart.bounding_box()
    assert box is not None and box["width"] > 600 and box["height"] > 200  # drawn, not an empty box
    expect(judge.page.locator("#problem-sum .first-solve")).to_contain_text("Zeta")
    judge.shot("statistics")
    judge.go("/admin/rejudgings")
    judge.shot("rejudgings")
    judge.go("/admin/verification")
    judge.shot("verification")

    runner = Person(browser, base, shots, "workbench-runner")
    runner.login("runner")
    assert runner.page.url.endswith("/admin/balloons")
    expect(runner.page.locator("tr[id^=balloon-]")).to_have_count(1)
    expect(runner.page.locator("header nav a")).to_have_count(1)
    runner.shot("balloons")
    runner.go("/scoreboard")
    expect(runner.page.locator("#error")).to_contain_text("balloon runner")
    runner.shot("refused")

    # languages live: an admin forbids Python 3; a team is no longer offered it
    admin = Person(browser, base, shots, "workbench-admin")
    admin.login("admin")
    admin.go("/admin/contest")
    admin.page.click("#allow-python3")
    expect(admin.page.locator("#message")).to_contain_text("takes no more submissions")
    expect(admin.page.locator("#factor-python3 .allowed")).to_have_text("not allowed")
    admin.page.locator("#factors").scroll_into_view_if_needed()
    admin.shot("languages")
    team = Person(browser, base, shots, "workbench-team1")
    team.login("team1")
    team.go("/submit")
    expect(team.page.locator("option[value=python3]")).to_have_count(0)
