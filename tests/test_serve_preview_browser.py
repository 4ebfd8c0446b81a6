"""The rejudge preview in a browser (issue 33): a real `judge serve` judging for real (one worker, the
sandbox) on the fixture tests/fixtures_fuzz/add, whose test set is weak: a wrong solution (wrong when both
numbers exceed 100) is accepted. Its counterexample is stored as the live fuzzing stores one; an admin adds
it as a test from a POST form, watches the preview page fill in (the input validator and fuzz.py's answer
run on the idle judge, then the accepted submissions on the new test), sees exactly the wrong submission
change and the board's change, and applies it: that submission alone is rejudged, now WA.

Screenshots go to ``$JUDGE_ARTIFACTS/serve/`` (else a temporary folder). Skipped, with the reason, when
Playwright or Chromium is missing, or no sandbox can run programs here.
"""

from __future__ import annotations

import base64
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_fixtures import PASSWORDS, write_contest
from test_serve_browser import CHROMIUM, WAIT_MS, Person, shots  # noqa: F401 - shots: the fixture
from test_serve_process import Serve, wait_for

from judge.runner import Runner
from judge.serve.model.records import Counterexample
from judge.serve.model.times import format_time
from judge.serve.model.upload import pack
from judge.serve.storage import DB_NAME, open_storage

ADD = Path(__file__).parent / "fixtures_fuzz" / "add"

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
    root = write_contest(tmp_path / "contest", start=format_time(time.time() - 600), scoreboard_type="pass-fail")
    (root / "problems.yaml").write_text("- {id: add, label: A}\n")
    shutil.copytree(ADD, root / "problems" / "add")
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


def submit(server: Serve, user: str, source: Path) -> str:
    body = {
        "problem_id": "add",
        "language_id": "python3",
        "files": [{"data": base64.b64encode(pack({"add.py": source.read_bytes()})).decode()}],
    }
    r = httpx.post(server.url("submissions"), json=body, auth=(user, PASSWORDS[user]), timeout=30)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def verdict(server: Serve, sid: str) -> str | None:
    current = [j for j in server.get("judgements") if j["submission_id"] == sid and j["current"]]
    return current[-1].get("judgement_type_id") if current else None


def test_add_as_test_preview_and_apply_in_the_browser(server: Serve, browser: Browser, shots: Path) -> None:  # noqa: F811
    right = submit(server, "team1", ADD / "submissions" / "accepted" / "add.py")
    wrong = submit(server, "team2", ADD / "submissions" / "fuzz_bugs" / "wa_big_both.py")
    for sid in (right, wrong):
        assert wait_for(f"submission {sid} judged", lambda sid=sid: verdict(server, sid)) == "AC"  # the weak tests
    found = Counterexample("add", int(wrong), 2, b"101 101\n", b"202\n", b"203\n", "WA", "wrong answer", True, 0.0)
    storage = open_storage(server.log.parent / "contest" / DB_NAME)  # stored as the live fuzzing stores one
    with storage.write() as w:
        cid = w.add_counterexample(found)
    storage.close()

    base = server.base.removesuffix("/api")
    admin = Person(browser, base, shots, "preview-admin")
    admin.login("admin")
    admin.go("/admin")
    admin.page.evaluate(  # the "Add as test" button of the counterexample's page (F3's): a POST form
        """cid => { const f = document.createElement("form"); f.method = "post";
        f.action = `/admin/counterexamples/${cid}/add-as-test`;
        f.appendChild(document.querySelector("input[name=csrf]").cloneNode());
        document.body.appendChild(f); f.submit(); }""",
        cid,
    )
    # a POST without the confirmation (as without JavaScript): the question, on a page of its own; nothing yet
    expect(admin.page.locator("#confirm-question")).to_contain_text(f"Add the input of counterexample {cid}")
    admin.shot("confirm-add")
    admin.page.click("#confirm-yes")
    admin.page.wait_for_url("**/admin/previews/*")
    admin.shot("started")
    expect(admin.page.locator("#preview-state")).to_contain_text("ready", timeout=WAIT_MS)  # refreshed live
    expect(admin.page.locator(f"#run-{wrong}")).to_contain_text("WA")
    expect(admin.page.locator(f"#run-{right}")).not_to_have_class("changes")
    expect(admin.page.locator("#preview-board")).to_contain_text("Alpha")  # team2 loses its solve
    admin.shot("ready")
    admin.answer = False  # Cancel: nothing happens
    admin.page.click("#apply")
    assert admin.confirms == [
        "Apply preview 1? Package version 2 becomes current and 1 submission(s) are rejudged: "
        "verdicts and the scoreboard change."
    ]
    expect(admin.page.locator("#preview-state")).to_contain_text("ready")
    admin.answer = True
    admin.page.click("#apply")
    expect(admin.page.locator("#preview-state")).to_contain_text("applied")
    admin.shot("applied")
    assert wait_for(f"submission {wrong} rejudged", lambda: verdict(server, wrong) == "WA")
    assert verdict(server, right) == "AC"
    judgements = server.get("judgements")
    assert sorted(j["submission_id"] for j in judgements) == sorted([right, wrong, wrong])  # only it, again
    zipped = admin.context.request.get(base + "/admin/problems/add/package.zip")
    assert zipped.status == 200 and b"add/data/secret/fuzz-1.ans" in zipped.body()
    # the same input found again (issue 43): "added", and no second "Add as test"
    storage = open_storage(server.log.parent / "contest" / DB_NAME)
    with storage.write() as w:
        again = w.add_counterexample(found)
    storage.close()
    admin.go("/admin/fuzzing")
    expect(admin.page.locator(f"#counterexample-{again}")).to_contain_text(f"added secret/fuzz-{cid}")
    admin.shot("fuzzing-added")
    admin.go(f"/admin/counterexamples/{again}")
    expect(admin.page.locator("#added")).to_contain_text(f"added as secret/fuzz-{cid}")
    expect(admin.page.locator("#add-test")).to_have_count(0)
    admin.shot("counterexample-added")
