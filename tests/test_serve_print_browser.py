"""Issue 43 in a browser: a team's print-out is queued (the page says so at once) and sent by the print
queue's thread, the jury's print queue page shows its state live; the jury's clarifications page shows its
own "clarification sent" after an announcement and nothing for a message made up in the URL. Playwright
drives Chromium against a real `judge serve` (the print command: a small Python program writing what it
gets to a file). Screenshots ``print-*.png`` in ``$JUDGE_ARTIFACTS/serve/``, else a temporary folder."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import write_contest
from test_serve_browser import CHROMIUM, Person, sync_playwright
from test_serve_process import Serve, wait_for

from judge.runner import Runner
from judge.serve.model.times import format_time

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
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None and CHROMIUM is not None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def test_a_print_out_is_queued_and_the_jury_sees_its_state(
    tmp_path: Path, sandbox_runner: Runner, servers: list[Serve], browser: Browser, shots: Path
) -> None:
    printed = tmp_path / "printed.txt"
    program = "import sys; open(sys.argv[1], 'ab').write(sys.stdin.buffer.read())"
    command = shlex.join([sys.executable, "-c", program, str(printed)])
    root = write_contest(
        tmp_path / "contest", start=format_time(time.time() - 60), extra=(f"print_command: {json.dumps(command)}",)
    )
    server = Serve(root, tmp_path / "serve.log")
    servers.append(server)
    base = server.base.removesuffix("/api")

    team = Person(browser, base, shots, "print-team1")
    team.login("team1")
    team.go("/print")
    team.page.fill("#print-name", "notes.txt")
    team.page.fill("#print-text", "line one\nline two\n")
    team.page.click("#print")
    team.page.wait_for_load_state()
    expect(team.page.locator("#message")).to_have_text("print-out 1 queued")
    team.shot("queued")

    jury = Person(browser, base, shots, "print-judge")
    jury.login("judge")
    jury.go("/admin/prints")
    expect(jury.page.locator("#print-1 .state")).to_have_text("sent")  # live: the queue's thread sent it
    jury.shot("queue")
    wait_for("the printer's file", lambda: printed.exists() and printed.read_text().endswith("line two\n"))
    assert printed.read_text().startswith("--- team Zeta (team1), ")

    jury.go("/admin/clarifications")
    jury.page.fill("#text", "The printer is on the left.")
    jury.page.click("#announce")
    jury.page.wait_for_load_state()
    expect(jury.page.locator("#message")).to_have_text("clarification sent")
    jury.shot("announced")
    jury.go("/admin/clarifications?message=the%20contest%20is%20cancelled")
    expect(jury.page.locator("#announce-form")).to_be_visible()
    assert jury.page.locator("#message").count() == 0
