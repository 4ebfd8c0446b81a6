"""Issue 43's malformed uploads, against `judge serve` itself: a package zip the file system cannot hold (`a`
and `a/b`, a 300-character member name, a member `.`) and a people import of deeply nested YAML or with
keys that are not strings were 500s with a traceback in the log. Each is a 4xx now, and the log has one
line for it (uvicorn's access line), no traceback."""

from __future__ import annotations

import io
import re
import time
import zipfile
from pathlib import Path

import httpx
from serve_fixtures import FIXTURES, PASSWORDS, write_contest
from test_serve_process import Serve, wait_for

from judge.runner import Runner
from judge.serve.model.times import format_time


def package(*names: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for path in sorted((FIXTURES / "sum").rglob("*")):
            if path.is_file():
                z.writestr(f"sum/{path.relative_to(FIXTURES / 'sum').as_posix()}", path.read_bytes())
        for name in names:
            z.writestr(name, b"x\n")
    return out.getvalue()


def test_malformed_uploads_are_4xx_with_one_log_line(
    tmp_path: Path, sandbox_runner: Runner, servers: list[Serve]
) -> None:
    contest = write_contest(tmp_path / "contest", start=format_time(time.time() - 60))
    log = tmp_path / "serve.log"
    server = Serve(contest, log)
    servers.append(server)
    before = len(log.read_text().splitlines())
    sent = 0
    for names in (("sum/a", "sum/a/b"), ("sum/" + "n" * 300,), (".",)):
        r = httpx.post(
            server.url("problems/sum/package"),
            content=package(*names),
            headers={"content-type": "application/zip"},
            auth=("admin", PASSWORDS["admin"]),
            timeout=60,
        )
        sent += 1
        assert r.status_code == 400 and "\n" not in r.json()["message"], r.text
    with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=60) as admin:
        token = re.search(r'name="csrf" value="([^"]+)"', admin.get("/login").text)
        assert token is not None
        r = admin.post("/login", data={"csrf": token.group(1), "username": "admin", "password": PASSWORDS["admin"]})
        assert r.status_code == 303
        sent += 1
        token = re.search(r'name="csrf" value="([^"]+)"', admin.get("/admin/people").text)
        assert token is not None
        for name, text in (
            ("teams.yaml", "- {id: x, name: " + "[" * 5000 + "]" * 5000 + "}\n"),
            ("teams.yaml", "- {1: x, id: t9, name: N}\n"),
            ("accounts.yaml", "- {username: u, type: team, null: x}\n"),
        ):
            files = {"file": (name, text.encode())}
            r = admin.post("/admin/people/import", data={"csrf": token.group(1)}, files=files)
            sent += 1
            assert r.status_code == 400 and 'id="error"' in r.text, (text[:40], r.status_code)
    r = httpx.get(f"{server.base}/contests/test/state", timeout=30)  # the last request: its line comes last
    assert r.status_code == 200

    def written() -> list[str]:
        lines = log.read_text().splitlines()[before:]
        return lines if any('"GET /api/contests/test/state' in line for line in lines) else []

    lines = wait_for("the access log lines", written)
    assert "Traceback" not in log.read_text() and " 500" not in log.read_text()
    posts = [line for line in lines if '"POST ' in line]
    assert len(posts) == sent and all('" 400' in p for p in posts if "/login" not in p), posts
    assert all('"GET ' in line or '"POST ' in line for line in lines), lines  # nothing but access lines
