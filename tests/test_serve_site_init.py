"""`judge site init DIR` (issue 44): a demo site through the real command, a practice contest running now
(two problems, two hours, judging priority -1) and a main contest an hour later (every problem, five
hours, frozen for the last hour), both pass-fail, sharing four teams whose one login works in both."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

from serve_fixtures import FakeClock
from serve_site_fixtures import open_test_site
from test_serve_site import SiteApi

from judge.serve.http.site_app import create_site_app
from judge.serve.model.site import load_site

ROOT = Path(__file__).parent.parent


def _init(dest: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "judge", "site", "init", str(dest), *extra],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",  # works from any folder
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_judge_site_init_writes_a_ready_demo_site(tmp_path: Path) -> None:
    dest = tmp_path / "demo"
    before = time.time()
    proc = _init(dest)
    assert proc.returncode == 0, proc.stderr
    passwords = dict(re.findall(r"^  (team\d|judge|admin)\s+(\S+)\s+\(", proc.stdout, re.M))
    assert sorted(passwords) == ["admin", "judge", "team1", "team2", "team3", "team4"]
    assert "serve it with: judge serve" in proc.stdout
    for secret in (dest, dest / "accounts.yaml", dest / "contests" / "main"):
        assert stat.S_IMODE(secret.stat().st_mode) & 0o077 == 0, secret  # owner-only
    assert all(p not in (dest / "accounts.yaml").read_text() for p in passwords.values())  # hashes only
    site = load_site(dest)
    assert not site.single and [c.info.id for c in site.contests] == ["practice", "main"]
    practice, main = site.contests
    assert practice.info.judging_priority == -1 and main.info.judging_priority == 0
    assert len(practice.problems) == 2 and len(main.problems) == len(list((dest / "problems").iterdir()))
    assert practice.info.pass_fail and main.info.pass_fail
    start = practice.info.start_s
    assert start is not None and before - 60 <= start <= time.time()  # running now
    assert practice.info.duration_s == 2 * 3600 and main.info.duration_s == 5 * 3600
    assert main.info.start_s == start + 3600 and main.info.freeze_duration_s == 3600
    assert [t.id for t in site.people.teams] == ["team1", "team2", "team3", "team4"]

    opened = open_test_site(dest, FakeClock(start + 60))
    try:
        api = SiteApi(create_site_app(opened))
        assert [c["id"] for c in api.get("/api/contests").json()] == ["practice", "main"]
        for cid in ("practice", "main"):
            r = api.request("GET", f"/api/contests/{cid}/account", "team2", passwords["team2"])
            assert r.status_code == 200 and r.json()["team_id"] == "team2", cid
        state = api.get("/api/contests/practice/state").json()
        assert state["started"] is not None and api.get("/api/contests/main/state").json()["started"] is None
    finally:
        opened.close()


def test_judge_site_init_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    proc = _init(tmp_path / "x")
    assert proc.returncode == 2 and "not an empty folder" in proc.stderr and "Traceback" not in proc.stderr
    assert [p.name for p in (tmp_path / "x").iterdir()] == ["keep.txt"]
