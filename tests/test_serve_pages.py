"""The HTML pages of `judge serve` through the real app (Starlette's Browser: HTTP requests, cookies,
redirects): session cookie flags, CSRF on every POST, who sees which page, submitting through the API's
code path (the same refusals), feedback (samples in full, secret tests verdict only), escaping, and the
organizers' rejudge, thaw and downloads. The judging is the scripted JudgeFn (test_serve_browser.py
judges for real)."""

from __future__ import annotations

import asyncio
import html as htmllib
import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_fixtures import HOUR, PASSWORDS, SUM_AC, SUM_WA, T0, FakeClock, db, make_server, write_contest
from starlette.applications import Starlette

from judge.serve.http.app import create_app
from judge.serve.http.pages.sessions import COOKIE
from judge.serve.site.server import Server

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    root = write_contest(tmp_path / "contest")
    teams = json.loads((root / "teams.json").read_text())
    teams[1]["name"] = HOSTILE  # team2
    (root / "teams.json").write_text(json.dumps(teams))
    s = make_server(root, clock)
    yield s
    s.close()


class Browser:
    """A browser's side of HTTP through the ASGI app: a cookie jar kept between requests, no redirects
    followed (the tests look at them)."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.cookies = httpx.Cookies()

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app, client=("127.0.0.1", 40000), raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=self.cookies) as c:
                r = await c.request(method, path, **kw)
                self.cookies = httpx.Cookies(c.cookies)
                return r

        return asyncio.run(go())

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, **kw)


def client(server: Server) -> Browser:
    return Browser(create_app(server))


def text(r: httpx.Response) -> str:
    return htmllib.unescape(r.text)


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m, html[:500]
    return m.group(1)


def login(server: Server, user: str) -> Browser:
    c = client(server)
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"csrf": token, "username": user, "password": PASSWORDS[user]})
    assert r.status_code == 303, r.text
    return c


def stored(server: Server) -> int:
    return int(db(server).execute("SELECT count(*) FROM submissions").fetchone()[0])


def submit(c: Browser, code: str, problem: str = "sum", name: str = "sol.py", language: str = "") -> httpx.Response:
    token = csrf_of(c.get("/submit").text)
    return c.post(
        "/submit",
        data={"csrf": token, "problem": problem, "language": language},
        files={"file": (name, code.encode())},
    )


def test_session_cookie_flags_and_a_new_session_at_login(server: Server) -> None:
    c = client(server)
    r = c.get("/login")
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    flags = [f.strip().lower() for f in cookie.split(";")]
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
    assert "secure" not in flags  # plain HTTP here; Secure behind an HTTPS proxy
    assert r.headers["x-frame-options"] == "DENY"
    assert "script-src 'self'" in r.headers["content-security-policy"]
    before = c.cookies[COOKIE]
    token = csrf_of(r.text)
    bad = c.post("/login", data={"csrf": token, "username": "team1", "password": "nope"})
    assert bad.status_code == 401 and "wrong username or password" in bad.text
    ok = c.post("/login", data={"csrf": token, "username": "team1", "password": PASSWORDS["team1"]})
    assert ok.status_code == 303 and ok.headers["location"] == "/submissions"
    assert c.cookies[COOKIE] != before  # a new session id: no fixation
    assert c.get("/submissions").status_code == 200
    # logout ends it
    out = c.post("/logout", data={"csrf": csrf_of(c.get("/submissions").text)})
    assert out.status_code == 303
    assert c.get("/submissions").headers["location"] == "/login"


def test_a_forged_or_tampered_cookie_is_the_public(server: Server) -> None:
    c = login(server, "team1")
    value = c.cookies[COOKIE]
    payload, mac = value.rsplit(".", 1)
    forged = client(server)
    forged.cookies.set(COOKIE, payload + "." + "0" * len(mac))
    assert forged.get("/submissions").headers["location"] == "/login"


def test_every_post_needs_the_csrf_token(server: Server) -> None:
    c = login(server, "team1")
    for data in ({}, {"csrf": "x" * 64}):
        r = c.post("/submit", data={**data, "problem": "sum", "language": "python3", "code": SUM_AC})
        assert r.status_code == 403 and "reload the page" in r.text
    other = login(server, "team3")  # another session's token is not this one's
    r = c.post(
        "/submit",
        data={"csrf": csrf_of(other.get("/submit").text), "problem": "sum", "language": "python3", "code": SUM_AC},
    )
    assert r.status_code == 403
    assert stored(server) == 0
    fresh = client(server)  # no session at all: even the login form is refused
    r = fresh.post("/login", data={"username": "team1", "password": PASSWORDS["team1"]})
    assert r.status_code == 403
    admin = login(server, "admin")
    for path in ("/admin/thaw", "/admin/submissions/1/rejudge", "/admin/problems/sum/rejudge", "/logout"):
        assert admin.post(path, data={}).status_code == 403, path


def test_a_team_submits_a_file_or_pasted_code_through_the_api_path(server: Server) -> None:
    c = login(server, "team1")
    r = submit(c, SUM_AC)
    assert r.status_code == 303 and r.headers["location"] == "/submissions?submitted=1"
    token = csrf_of(c.get("/submit").text)
    r = c.post("/submit", data={"csrf": token, "problem": "sum", "language": "python3", "code": SUM_WA})
    assert r.status_code == 303
    rows = db(server).execute("SELECT team_id, language_id, problem_id FROM submissions ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [("team1", "python3", "sum"), ("team1", "python3", "sum")]
    page = c.get("/submissions?fragment=1").text
    assert page.count(">pending<") == 2  # queued, not taken by a judge yet
    server.judging.run_pending()
    page = c.get("/submissions?fragment=1").text
    assert re.search(r'id="submission-1">.*?verdict ac">AC<', page, re.S)
    assert re.search(r'id="submission-2">.*?verdict wa">WA<', page, re.S)


def test_submit_refusals_are_the_apis_shown_as_a_message(server: Server) -> None:
    c = login(server, "team1")
    r = submit(c, "x", name="sol.xyz")
    assert r.status_code == 400 and "no language has the extension '.xyz'" in text(r)
    r = submit(c, SUM_AC, problem="nope")
    assert r.status_code == 400 and "unknown problem 'nope'" in text(r)
    r = submit(c, "#" * (17 * 1024))  # code_limit 16 KiB
    assert r.status_code == 413 and "16 KiB" in r.text
    for _ in range(3):  # rate limit: 3 per 60 s
        assert submit(c, SUM_AC).status_code == 303
    r = submit(c, SUM_AC)
    assert r.status_code == 429 and "too many submissions" in r.text and r.headers["retry-after"]
    assert stored(server) == 3


def test_outside_the_contest_the_submit_page_refuses(server: Server, clock: FakeClock) -> None:
    c = login(server, "team1")
    clock.advance(5 * HOUR)
    r = submit(c, SUM_AC)
    assert r.status_code == 403 and "the contest is over" in r.text
    assert stored(server) == 0


def test_a_team_sees_only_its_own_submissions(server: Server) -> None:
    one, two = login(server, "team1"), login(server, "team2")
    submit(one, SUM_AC)
    server.judging.run_pending()
    assert one.get("/submissions/1").status_code == 200
    assert two.get("/submissions/1").status_code == 404
    assert "submission-1" not in two.get("/submissions").text
    assert two.get("/submissions/1?fragment=1").status_code == 404
    assert two.get("/admin").status_code == 403
    assert two.get("/admin/submissions/1").status_code == 403
    assert two.get("/admin/contest-package.zip").status_code == 403
    public = client(server)
    assert public.get("/submissions/1").headers["location"] == "/login"
    assert public.get("/admin").headers["location"] == "/login"
    assert public.get("/submit").headers["location"] == "/login"


def test_feedback_samples_in_full_secret_tests_verdict_only(server: Server) -> None:
    c = login(server, "team1")
    assert submit(c, "print(1)\n", problem="divisor").status_code == 303
    server.judging.run_pending()
    html = c.get("/submissions/1").text
    assert "sample/00" in html  # the sample test by name
    assert "secret/01" not in html  # secret tests: no names
    assert "secret</span>" in html and "print(1)" in html  # verdict rows, and the team's own source
    # an interactive problem's transcript: the sample's, escaped; never a secret test's
    assert "&gt; question about sample/00" in html and "&lt;b&gt;answer&lt;/b&gt;" in html
    assert "question about secret" not in html and "<b>answer</b>" not in html
    admin = login(server, "admin")
    detail = admin.get("/admin/submissions/1").text
    assert "secret/01" in detail and "sample/00" in detail  # staff see everything
    assert "&gt; question about secret/01" in detail and "<b>answer</b>" not in detail


def test_problem_pages_statement_and_sample_downloads(server: Server) -> None:
    c = client(server)
    assert "Divisor" in c.get("/problems").text or "divisor" in c.get("/problems").text
    r = c.get("/problems/divisor/")
    assert r.status_code == 200 and "/problems/divisor/samples/1.in" in r.text
    sample = Path(__file__).parent / "fixtures" / "divisor" / "data" / "sample"
    got = c.get("/problems/divisor/samples/1.in")
    assert got.status_code == 200 and got.content == (sample / "00.in").read_bytes()
    assert "attachment" in got.headers["content-disposition"]
    assert c.get("/problems/divisor/samples/1.ans").content == (sample / "00.ans").read_bytes()
    assert c.get("/problems/divisor/samples/2.in").status_code == 404
    assert c.get("/problems/nope/").status_code == 404


def test_problems_are_hidden_before_the_start(tmp_path: Path) -> None:
    s = make_server(write_contest(tmp_path / "c"), FakeClock(T0 - HOUR))
    try:
        c = client(s)
        assert "shown when the contest starts" in c.get("/problems").text
        assert c.get("/problems/sum/").status_code == 404
        assert c.get("/problems/sum/samples/1.in").status_code == 404
    finally:
        s.close()


def test_a_hostile_team_name_is_escaped_everywhere(server: Server) -> None:
    two = login(server, "team2")
    submit(two, SUM_AC)
    server.judging.run_pending()
    admin = login(server, "admin")
    pages = [
        client(server).get("/scoreboard").text,
        client(server).get("/scoreboard?fragment=1").text,
        two.get("/submissions").text,
        admin.get("/admin").text,
        admin.get("/admin/submissions/1").text,
    ]
    for html in pages:
        assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[3]


def test_the_scoreboard_page_ranks_as_the_api_and_shows_the_freeze(server: Server, clock: FakeClock) -> None:
    one, two = login(server, "team1"), login(server, "team2")
    submit(one, SUM_WA)
    submit(two, SUM_AC)
    server.judging.run_pending()
    html = client(server).get("/scoreboard").text
    ranks = re.findall(r'data-team="([^"]+)">\s*<td class="rank">(\d+)', html)
    api = client(server).get("/api/contests/test/scoreboard").json()
    assert ranks == [(r["team_id"], str(r["rank"])) for r in api["rows"]]
    assert ranks[0] == ("team2", "1")
    assert 'id="frozen"' not in html
    clock.advance(3.5 * HOUR)  # into the last hour: frozen
    submit(one, SUM_AC)
    server.judging.run_pending()
    public = client(server).get("/scoreboard").text
    assert 'id="frozen"' in public and "1 pending" in public
    assert "live (staff view)" in login(server, "admin").get("/scoreboard").text


def test_organizers_rejudge_thaw_and_download(server: Server, clock: FakeClock) -> None:
    one = login(server, "team1")
    submit(one, SUM_AC)
    server.judging.run_pending()
    judge = login(server, "judge")
    token = csrf_of(judge.get("/admin/submissions/1").text)
    r = judge.post("/admin/submissions/1/rejudge", data={"csrf": token})  # not confirmed: the question
    assert r.status_code == 200 and "Rejudge submission 1?" in r.text and server.judging.run_pending() == 0
    r = judge.post("/admin/submissions/1/rejudge", data={"csrf": token, "confirmed": "yes"})
    assert r.status_code == 303 and r.headers["location"].startswith("/admin/previews/1?")  # its set (issue 47)
    assert "1+submission" in r.headers["location"]
    server.judging.run_pending()
    detail = judge.get("/admin/submissions/1").text
    assert "Judgement 2" not in detail and "Held by" in detail  # held for review
    r = judge.post("/admin/previews/1/apply", data={"csrf": token, "confirmed": "yes"})
    assert r.status_code == 303
    detail = judge.get("/admin/submissions/1").text
    assert "Judgement 2 (current)" in detail and "(replaced)" in detail
    assert judge.post("/admin/thaw", data={"csrf": token}).status_code == 403  # judges do not thaw
    assert judge.get("/admin?verdict=AC").text.count('id="submission-') == 1
    assert judge.get("/admin?verdict=WA").text.count('id="submission-') == 0
    assert judge.get("/admin?team_id=team2").text.count('id="submission-') == 0

    results = judge.get("/admin/results.json").json()
    assert results["standings"][0] == {"rank": 1, "contestant": "team1", "total": 100.0}
    archive = zipfile.ZipFile(io.BytesIO(judge.get("/admin/contest-package.zip").content))
    names = set(archive.namelist())
    want = {"contest.json", "problems.json", "teams.json", "submissions.json", "judgements.json", "scoreboard.json"}
    assert want | {"event-feed.ndjson", "submissions/1/files.zip"} <= names
    judgements = json.loads(archive.read("judgements.json"))
    assert [(j["submission_id"], j["current"]) for j in judgements] == [("1", False), ("1", True)]
    assert json.loads(archive.read("contest.json"))["id"] == "test"
    feed = [json.loads(line) for line in archive.read("event-feed.ndjson").decode().splitlines()]
    assert {e["type"] for e in feed} >= {"contest", "submissions", "judgements"}

    admin = login(server, "admin")
    clock.advance(6 * HOUR)  # after the end: the thaw is now
    r = admin.post("/admin/thaw", data={"csrf": csrf_of(admin.get("/admin").text)})  # not confirmed (issue 43)
    assert r.status_code == 303 and r.headers["location"].startswith("/admin/thaw?")
    assert server.timeline.phase.thawed_at is None
    confirm = admin.get(r.headers["location"]).text
    assert "not done: confirm it on this page" in confirm and 'id="thaw-now"' in confirm
    assert 'name="confirm" value="yes"' in confirm and 'id="not-final-yet"' in confirm
    r = admin.post("/admin/thaw", data={"csrf": csrf_of(confirm), "confirm": "yes"})
    assert r.status_code == 303 and "thawed" in r.headers["location"]
    assert server.timeline.phase.thawed_at is not None


def test_an_admin_freezes_the_board_early_and_thaws_it(server: Server, clock: FakeClock) -> None:
    """The freeze button: from now on the public and other teams see no new results (the API too), the
    contest's scoreboard_freeze_duration says so; judges may not press it; the thaw reveals them."""
    one, two = login(server, "team1"), login(server, "team2")
    submit(one, SUM_AC)
    server.judging.run_pending()
    clock.advance(1 * HOUR)  # 2 h into the contest, 3 h before the end; contest.yaml freezes the last hour
    judge = login(server, "judge")
    assert judge.post("/admin/freeze", data={"csrf": csrf_of(judge.get("/admin").text)}).status_code == 403
    admin = login(server, "admin")
    assert 'id="freeze"' in admin.get("/admin").text
    r = admin.post("/admin/freeze", data={"csrf": csrf_of(admin.get("/admin").text)})
    assert r.status_code == 303 and "frozen" in r.headers["location"]
    assert 'id="freeze"' not in admin.get("/admin").text
    contest = client(server).get("/api/contests/test").json()
    assert contest["scoreboard_freeze_duration"] == "3:00:00.000"
    assert client(server).get("/api/contests/test/state").json()["frozen"] is not None
    submit(two, SUM_AC)  # after the freeze: its result is hidden from the public and team1
    server.judging.run_pending()
    public = client(server).get("/api/contests/test/scoreboard").json()
    assert [(r["team_id"], r["score"]["score"]) for r in public["rows"][:2]] == [("team1", 100.0), ("team2", 0.0)]
    assert 'id="frozen"' in client(server).get("/scoreboard").text
    assert len(two.get("/api/contests/test/judgements").json()) == 1  # its own result, seen
    assert len(one.get("/api/contests/test/judgements").json()) == 1  # only its own: team2's is hidden
    again = admin.post("/admin/freeze", data={"csrf": csrf_of(admin.get("/admin").text)})
    assert "already" in again.headers["location"] or "frozen+since" in again.headers["location"]
    clock.advance(5 * HOUR)
    admin.post("/admin/thaw", data={"csrf": csrf_of(admin.get("/admin").text), "confirm": "yes"})
    live = client(server).get("/api/contests/test/scoreboard").json()
    assert {r["team_id"]: r["score"]["score"] for r in live["rows"]}["team2"] == 100.0
