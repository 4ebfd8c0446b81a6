"""A balloon runner's account (issue 47: accounts.yaml's ``type: balloon``): it sees the balloons page and
its endpoints (the list, marking one delivered) and nothing else: every other page and API endpoint, the
scoreboard and the event feed too, refuses it (403), while the jury still sees the balloons. Judging is
scripted (serve_fixtures.ScriptedJudge)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, T0, Api, FakeClock, make_server, write_contest
from test_serve_pages import Browser, client, csrf_of

from judge.serve.http.api.contest import ROUTES
from judge.serve.http.app import PAGE_SPECS
from judge.serve.site.server import Server

C = "/api/contests/test"
RUNNER = ("runner", "pw-runner")
OPEN_PAGES = {("GET", "/"), ("GET", "/admin/balloons"), ("POST", "/admin/balloons/{id}/done"), ("GET", "/status")}
OPEN_API = {("GET", "/api/contests/{cid}/balloons"), ("POST", "/api/contests/{cid}/balloons/{id}/done")}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    root = write_contest(tmp_path / "contest")
    accounts = json.loads((root / "accounts.yaml").read_text())
    accounts.append({"username": RUNNER[0], "password": RUNNER[1], "type": "balloon"})
    (root / "accounts.yaml").write_text(json.dumps(accounts))
    s = make_server(root, FakeClock(T0 + HOUR))
    api = Api.of(s)
    assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
    s.judging.run_pending()
    yield s
    s.close()


def runner_browser(server: Server) -> Browser:
    b = client(server)
    r = b.post("/login", data={"csrf": csrf_of(b.get("/login").text), "username": RUNNER[0], "password": RUNNER[1]})
    assert r.status_code == 303 and r.headers["location"] == "/admin/balloons"  # where a runner starts
    return b


def filled(path: str) -> str:
    """A route's path with every parameter filled in (a submission's, a problem's, ... id: "1")."""
    return re.sub(r"\{(\w+)(:\w+)?\}", lambda m: "test" if m.group(1) == "cid" else "1", path)


def test_the_runner_sees_and_marks_the_balloons(server: Server) -> None:
    b = runner_browser(server)
    page = b.get("/admin/balloons")
    assert page.status_code == 200 and 'id="balloon-1"' in page.text
    assert 'href="/scoreboard"' not in page.text  # its header offers the balloons only
    r = b.post("/admin/balloons/1/done", data={"csrf": csrf_of(page.text), "done": "1"})
    assert r.status_code == 303
    api = Api.of(server)
    listed = api.get(f"{C}/balloons", RUNNER[0], password=RUNNER[1])
    assert listed.status_code == 200 and listed.json()[0]["done"] is True
    assert api.get(f"{C}/balloons", "judge").json()[0]["done"] is True  # the jury's list is the same
    again = api.request("POST", f"{C}/balloons/1/done", RUNNER[0], RUNNER[1])
    assert again.status_code == 200
    log = [(e["username"], e["action"]) for e in api.get(f"{C}/audit-log", "admin").json()]
    assert ("runner", "balloon.done") in log


def test_every_other_page_refuses_the_runner(server: Server) -> None:
    b = runner_browser(server)
    token = csrf_of(b.get("/admin/balloons").text)
    checked = 0
    for spec in PAGE_SPECS:
        if spec.site or (spec.method, spec.path) in OPEN_PAGES:
            continue
        path = filled(spec.path)
        r = b.get(path) if spec.method == "GET" else b.post(path, data={"csrf": token, "confirmed": "yes"})
        assert r.status_code == 403, (spec.method, spec.path, r.status_code)
        assert "balloon runner" in r.text or spec.form_limit in ("package", "roster"), spec.path  # admins first
        checked += 1
    assert checked > 60  # the pages of every module


def test_every_other_endpoint_refuses_the_runner(server: Server) -> None:
    api = Api.of(server)
    checked = 0
    for spec in ROUTES:
        if (spec.method, spec.path) in OPEN_API:
            continue
        path = filled(spec.path)
        kw: dict[str, object] = {}
        if spec.method in ("POST", "PUT", "PATCH"):  # a body of the type the route takes
            kw = {"content": b"{}", "headers": {"content-type": spec.bodies[0]}}
        if spec.stream:
            kw["params"] = {"stream": "false"}
        r = api.request(spec.method, path, RUNNER[0], RUNNER[1], **kw)
        assert r.status_code == 403, (spec.method, spec.path, r.status_code, r.text[:200])
        checked += 1
    assert checked > 60
    # and the others are refused the balloons as before
    assert api.get(f"{C}/balloons", "team1").status_code == 403
    assert api.get(f"{C}/balloons").status_code == 401
