"""Issue 43 in Chromium (Playwright) against a real `judge serve`: a team's problem page offers the PDF
statement, the attachments and samples.zip, each downloaded as it should be; a submission of a Python file as
Java is refused in the page's words; an admin changes a language's time factor on the contest page and the
team's problem page shows the new limit. Screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (``i43-*.png``)."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_fixtures import FIXTURES, PASSWORDS, SUM_AC
from test_serve_browser import CHROMIUM, Person, browser, shots  # noqa: F401 - fixtures
from test_serve_process import Serve
from test_serve_statements import TESTING_TOOL, contest_with_files, tiny_pdf

from judge.runner import Runner
from judge.serve.model.times import format_time

try:
    from playwright.sync_api import Browser, expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture
def server(tmp_path: Path, sandbox_runner: Runner) -> Iterator[Serve]:
    root = contest_with_files(tmp_path / "contest", start=format_time(time.time() - 600))
    (root / "contest.yaml").write_text(
        (root / "contest.yaml").read_text() + "languages: [{id: java, time_factor: 1.5}]\n"
    )
    s = Serve(root, tmp_path / "serve.log")
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def test_the_problem_page_and_the_time_factors_in_the_browser(server: Serve, browser: Browser, shots: Path) -> None:  # noqa: F811
    base = server.base.removesuffix("/api")
    team = Person(browser, base, shots, "i43-team1")
    team.login("team1")
    page = team.go("/problems/sum/")
    expect(page.locator("#statement-pdf a")).to_have_text("The statement as a PDF")
    expect(page.locator("#attachments li")).to_have_count(2)
    team.shot("problem")
    with page.expect_download() as download:
        page.click("#samples-zip a")
    assert download.value.suggested_filename == "samples-A.zip"
    with zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes())) as zf:
        assert zf.namelist() == ["1.in", "1.ans"]
        assert zf.read("1.in") == (FIXTURES / "sum" / "data" / "sample" / "00.in").read_bytes()
    with page.expect_download() as download:
        page.click("#attachments a:text('testing_tool.py')")
    assert download.value.suggested_filename == "testing_tool.py"
    assert Path(download.value.path()).read_bytes() == TESTING_TOOL
    pdf = team.context.request.get(base + "/problems/sum/statement.pdf")
    assert pdf.headers["content-type"] == "application/pdf" and pdf.body() == tiny_pdf("Sum")

    # a Python file sent as Java: the page speaks of the file, not of a zip
    team.go("/submit?problem=sum")
    team.page.set_input_files("#file", files=[{"name": "sol.py", "mimeType": "text/plain", "buffer": SUM_AC.encode()}])
    team.page.select_option("#language", "java")
    team.page.click("#submit-form button[type=submit]")
    message = team.page.locator(".error, .message").first
    expect(message).to_contain_text("sol.py is not a Java (OpenJDK) source file (.java)")
    assert "zip" not in message.inner_text()
    team.shot("submit-wrong-language")

    # the admin changes Java's factor live; the team's problem page shows it
    admin = Person(browser, base, shots, "i43-admin")
    admin.login("admin")
    admin.go("/admin/contest")
    row = admin.page.locator("#factor-java")
    expect(row.locator("td.factor")).to_have_text("× 1.5")
    row.locator("input[name=time_factor]").fill("2")
    row.get_by_role("button", name="Set").click()  # (the row also has issue 47's Forbid)
    expect(admin.page.locator("#message")).to_contain_text("the time factor of java is changed")
    expect(admin.page.locator("#factor-java td.factor")).to_have_text("× 2.0")
    admin.shot("contest-time-factors")
    team.go("/problems/sum/")
    expect(team.page.locator(".time-factor")).to_contain_text("× 2.0")
    r = httpx.get(server.url("languages/java"), auth=("team1", PASSWORDS["team1"]), timeout=30)
    assert r.json()["time_factor"] == 2.0
    audit = httpx.get(server.url("audit-log"), auth=("admin", PASSWORDS["admin"]), timeout=30).json()
    assert [e["action"] for e in audit] == ["language.time_factor"]
