"""Acceptance of issue 46 in `judge serve`, in the real sandbox: the demo course (`judge course init`), whose
labs and homework say ``counterexamples: team``, served by `judge serve` as a process; a student's wrong Rummy
program (the package's own ``runs_of_three.py``) is judged WA, and within the policy's budget the search on
an idle judging slot finds an input it fails on, which the student's submission page shows (the page, its
live part, the downloads; in Chromium too, screenshot, when Playwright and Chromium are here) and another
student cannot see."""

from __future__ import annotations

import base64
import csv
import html
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from serve_fixtures import PASSWORDS
from test_fuzz_search import off_by_one_from
from test_serve_browser import CHROMIUM, sync_playwright
from test_serve_explain import cex, open_live, submit
from test_serve_process import ROOT, Serve, wait_for

from judge.runner import Runner
from judge.serve.model.upload import pack

WRONG = ROOT / "problems" / "rummy" / "submissions" / "wrong_answer" / "runs_of_three.py"  # lays runs of three only


def course(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """`judge course init`: the demo course, and the students' passwords (from the logins CSV)."""
    dest, logins = tmp_path / "course", tmp_path / "logins.csv"
    done = subprocess.run(
        [sys.executable, "-m", "judge", "course", "init", str(dest), "--logins", str(logins)],
        cwd=tmp_path, capture_output=True, text=True, check=False, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for cid, show in (("lab1", "team"), ("hw1", "team"), ("exam", "jury")):  # the exam shows verdicts only
        assert f"counterexamples: {show}" in (dest / "contests" / cid / "contest.yaml").read_text()
    with logins.open(newline="") as f:
        return dest, {row["username"]: row["password"] for row in csv.DictReader(f)}


def test_a_students_wrong_rummy_gets_its_counterexample_on_its_page(
    tmp_path: Path, sandbox_runner: Runner, servers: list[Serve]
) -> None:
    root, passwords = course(tmp_path)
    server = Serve(root, tmp_path / "serve.log", "--problems", str(root / "problems"), cwd=tmp_path)
    servers.append(server)
    api = f"{server.base}/contests/lab1"
    student = ("s001", passwords["s001"])
    body = {
        "problem_id": "rummy",
        "language_id": "python3",
        "files": [{"data": base64.b64encode(pack({"runs_of_three.py": WRONG.read_bytes()})).decode()}],
    }
    r = httpx.post(f"{api}/submissions", json=body, auth=student, timeout=30)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]

    def ended() -> dict[str, object] | None:
        got = httpx.get(f"{api}/submissions/{sid}/counterexample", auth=student, timeout=30)
        doc = got.json() if got.status_code == 200 else None
        return doc if doc is not None and doc["status"] not in ("queued", "running") else None

    page_base = server.base.removesuffix("/api") + "/contests/lab1"
    watch = _Watch(page_base, sid, passwords["s001"], tmp_path) if CHROMIUM and sync_playwright else None
    try:
        _check(root, server, api, sid, passwords, ended, watch)
    finally:
        if watch is not None:
            watch.close()


def _check(root: Path, server: Serve, api: str, sid: str, passwords: dict[str, str], ended, watch) -> None:  # type: ignore[no-untyped-def]
    doc = wait_for("the counterexample", ended)
    assert doc["status"] == "found" and doc["verdict"] == "WA" and doc["failure"] == "WA", doc  # within the budget
    found = base64.b64decode(str(doc["input"]))
    counts = [int(t) for t in found.split()]
    assert len(counts) == 13 and sum(counts) > 0  # a hand of Rummy: 13 counts
    assert base64.b64decode(str(doc["output"])) != base64.b64decode(str(doc["answer"]))
    tests = {tuple(p.read_bytes().split()) for p in (root / "problems" / "rummy" / "data").rglob("*.in")}
    assert tuple(found.split()) not in tests  # never one of the tests

    site = server.base.removesuffix("/api")
    with httpx.Client(base_url=site, timeout=30) as browser:  # the student's page, as a browser gets it
        token = re.search(r'name="csrf" value="([^"]+)"', browser.get("/login").text)
        assert token is not None
        login = {"csrf": token.group(1), "username": "s001", "password": passwords["s001"]}
        assert browser.post("/login", data=login).status_code == 303
        page = html.unescape(browser.get(f"/contests/lab1/submissions/{sid}").text)
        assert "An input your program fails on" in page and found.decode().strip() in page
        assert browser.get(f"/contests/lab1/submissions/{sid}/counterexample/input").content == found
    other = httpx.get(f"{api}/submissions/{sid}/counterexample", auth=("s002", passwords["s002"]), timeout=30)
    assert other.status_code == 404
    assert "counterexamples: submission 1 (rummy): found" in server.log.read_text()
    assert (
        not (root.parent / ".hypothesis").exists()
        and (root / "contests" / "lab1" / "explain-work").stat().st_mode & 0o077 == 0
    )
    if watch is not None:
        watch.check()


class _Watch:
    """The student's submission page open in Chromium from the start: ``check`` once the search has ended (the
    counterexample on the page without a reload), with a screenshot."""

    def __init__(self, base: str, sid: str, password: str, out: Path) -> None:
        assert sync_playwright is not None and CHROMIUM is not None
        artifacts = os.environ.get("JUDGE_ARTIFACTS")
        self.shots = Path(artifacts) / "serve" if artifacts else out
        self.shots.mkdir(parents=True, exist_ok=True)
        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = self.page = self.browser.new_page(viewport={"width": 1200, "height": 760})
        page.set_default_timeout(120_000)  # a safety net, not a measurement
        page.goto(base.rsplit("/contests/", 1)[0] + "/login")
        page.fill("#username", "s001")
        page.fill("#password", password)
        page.click("form.box button[type=submit]")
        page.wait_for_load_state()
        page.goto(f"{base}/submissions/{sid}")
        page.evaluate("window.__loaded_once = 1")

    def check(self) -> None:
        from playwright.sync_api import expect

        expect(self.page.locator("#cx h2")).to_have_text("An input your program fails on")
        expect(self.page.locator("#cx-input")).to_contain_text("1")
        assert self.page.evaluate("window.__loaded_once") == 1  # it appeared without a reload
        self.page.screenshot(path=str(self.shots / "explain-course-s001-found.png"), full_page=True)

    def close(self) -> None:
        self.browser.close()
        self.pw.stop()


def test_judge_serve_on_a_local_dask_cluster_cancels_the_open_searches(
    tmp_path: Path, sandbox_runner: Runner, servers: list[Serve]
) -> None:
    """`judge serve --cluster local:1` on a database holding a search queued on local slots (test_serve_explain's
    contest, `counterexamples: team`): it runs none, so it cancels it at the start ("not searched: judging runs
    on a cluster" for the jury, the same 404 as for none for the team) and says so once in its log."""
    live = open_live(tmp_path, off_by_one_from(37))
    sid = submit(live.api, "team1")
    live.server.judging.run_pending()
    assert cex(live.api, sid, "team1")[1]["status"] == "queued"
    live.server.close()
    server = Serve(tmp_path / "contest", tmp_path / "serve.log", "--cluster", "local:1")
    servers.append(server)
    jury = server.get(f"submissions/{sid}/counterexample", "judge")  # cancelled before the server answers
    assert jury["status"] == "cancelled" and jury["cancelled"] == "not searched: judging runs on a cluster"
    team = httpx.get(server.url(f"submissions/{sid}/counterexample"), auth=("team1", PASSWORDS["team1"]), timeout=30)
    assert team.status_code == 404
    assert server.kill(signal.SIGTERM) == 143
    said = [line for line in server.log.read_text().splitlines() if "counterexample" in line and "GET" not in line]
    assert said == [
        "judge serve: note: counterexample searches for rejected submissions are off on a cluster (--cluster; "
        "docs/explain.md): none is queued, and those still queued are cancelled",
        "judge serve: contest 'test': 1 counterexample search(es) not run: not searched: judging runs on a cluster",
    ]
