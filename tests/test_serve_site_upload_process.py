"""A contest package uploaded to a real `judge serve SITE` (issue 44): added live through the page, its own
problem (a package the server did not start with) judged in the real sandbox; the log has one line for a
refused upload and no traceback."""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path

import httpx
from serve_site_fixtures import SITE_PASSWORDS, write_site
from test_serve_process import Serve, wait_for
from test_serve_site_upload import package, zip_of

from judge.runner import Runner
from judge.serve.http.pages.sessions import COOKIE
from judge.serve.model.times import format_time
from judge.serve.model.upload import pack

HELLO = 'name = input().strip()\nprint(f"Hello, {name}!")\n'


def test_a_contest_uploaded_to_judge_serve_is_judged_at_once(
    tmp_path: Path, sandbox_runner: Runner, servers: list[Serve]
) -> None:
    now = format_time(time.time() - 60)
    root = write_site(tmp_path / "site", {"main": {"problems": ("sum",), "start": now}})
    server = Serve(root, tmp_path / "serve.log")
    servers.append(server)
    site = server.base.removesuffix("/api")
    with httpx.Client(base_url=site, timeout=30) as web:
        first = web.get("/login")
        token = re.search(r'name="csrf" value="([^"]+)"', first.text)
        assert token is not None
        r = web.post("/login", data={"csrf": token.group(1), "username": "admin", "password": SITE_PASSWORDS["admin"]})
        assert r.status_code == 303, r.text
        assert web.cookies.get(COOKIE)
        form = web.get("/site/contests/new")
        token = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert token is not None

        def upload(data: bytes) -> httpx.Response:
            files = {"package": ("lab.zip", data, "application/zip")}
            return web.post("/site/contests/upload", data={"csrf": token.group(1)}, files=files)

        refused = upload(zip_of({**package("lab"), "../../escape": "x"}))
        assert refused.status_code == 400 and "outside the package" in refused.text
        files = package("lab")
        files["contest.yaml"] = files["contest.yaml"].replace("2030-01-01T09:00:00Z", now)  # type: ignore[union-attr]
        added = upload(zip_of(files))
        assert added.status_code == 303 and added.headers["location"] == "/site?done=added&contest=lab", added.text
    body = {
        "problem_id": "hello",
        "language_id": "python3",
        "files": [{"data": base64.b64encode(pack({"hello.py": HELLO.encode()})).decode()}],
    }
    auth = ("team2", SITE_PASSWORDS["team2"])
    r = httpx.post(f"{server.base}/contests/lab/submissions", json=body, auth=auth, timeout=30)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]

    def verdict() -> str | None:
        js = httpx.get(f"{server.base}/contests/lab/judgements?submission_id={sid}", auth=auth, timeout=30).json()
        return js[0].get("judgement_type_id") if js else None

    assert wait_for("the judgement", verdict) == "AC"  # the judge knows the uploaded package
    log = server.log.read_text()
    assert "Traceback" not in log and not (tmp_path / "site" / "escape").exists()
