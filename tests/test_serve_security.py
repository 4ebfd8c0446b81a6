"""The security findings of issue 27, each reproduced against the real app (httpx through the ASGI stack) and
refused: malformed JSON (F6), cross-site requests (F4), sessions that outlive a logout (F2), the login
throttle and forwarded addresses (F3), file modes and keys (F5), and the smaller ones (page messages, stored
zips). F1 (counting hidden objects) is a property of tests/test_serve_visibility.py; the process-level
reproductions (the real `judge serve`: log lines, X-Forwarded-For, file modes) are in
tests/test_serve_process.py. docs/security.md says what each defends against."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
import stat
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest
from serve_channels import Browser, LoopApi, log_in
from serve_fixtures import (
    CHEAP_HASHER,
    FIXTURES,
    HOUR,
    T0,
    Api,
    FakeClock,
    ScriptedJudge,
    db,
    make_server,
    write_contest,
)

from judge.commands.cli import main
from judge.languages.table import load_languages
from judge.serve.http.api.contest import ROUTES
from judge.serve.http.pages.admin_pages import ADMIN_PAGES
from judge.serve.http.pages.sessions import COOKIE
from judge.serve.http.pages.team_pages import PAGES
from judge.serve.model.contest import ContestInfo, load_contest
from judge.serve.model.times import format_time
from judge.serve.model.upload import pack
from judge.serve.services.people.accounts import Lockout, LoginLimits
from judge.serve.site.server import ServeOptions, Server, open_server

C = "/api/contests/test"
JSON = {"content-type": "application/json"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)  # an hour into the contest


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Server:
    s = make_server(write_contest(tmp_path / "contest"), clock)
    yield s  # type: ignore[misc]
    s.close()


@pytest.fixture
def api(server: Server) -> Api:
    return Api.of(server)


def stored(server: Server) -> int:
    return int(db(server).execute("SELECT count(*) FROM submissions").fetchone()[0])


# ================================================================================================= F6


MALFORMED = {
    "deep nesting, unclosed": b"[" * 12_000,
    "deep nesting, closed": b"[" * 5_000 + b"]" * 5_000,
    "deep objects": b'{"a":' * 3_000 + b"1" + b"}" * 3_000,
    "a 5,000-digit integer": b'{"problem_id": ' + b"9" * 5_000 + b"}",
    "NaN": b'{"problem_id": NaN}',
    "Infinity": b"[Infinity]",
    "an out-of-range float": b'{"time": 1e999}',
    "a lone surrogate": b'{"problem_id": "\\ud800", "language_id": "python3", "files": []}',
    "a surrogate in a key": b'{"\\udfff": 1}',
    "not UTF-8": b'{"problem_id": "\xff\xfe"}',
    "truncated": b'{"problem_id": "sum", "files": [{"data": "',
    "empty": b"",
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_json_body_is_a_400_never_a_500(api: Api, server: Server, body: bytes) -> None:
    """F6: RecursionError, ValueError (int digits) and UnicodeEncodeError were 500s with a traceback each."""
    for method, path, user in (("POST", f"{C}/submissions", "team1"), ("PATCH", C, "admin")):
        r = api.request(method, path, user, content=body, headers=JSON)
        assert r.status_code == 400, (method, r.status_code, r.text[:200])
        message = r.json()["message"]
        assert message.startswith("the body must be JSON") or "required" in message or "object" in message, message
        assert "\n" not in message and len(r.content) < 300
    assert stored(server) == 0
    assert api.get(C, "admin").json().get("scoreboard_thaw_time") is None


@pytest.mark.parametrize("header", [b"Basic \xff\xfe", b"Basic \xc3\xa9t\xc3\xa9", b"Basic " + b"=" * 3, b"Digest x"])
def test_malformed_credentials_are_a_401(api: Api, header: bytes) -> None:
    """Non-ASCII bytes in the Authorization header were a ValueError (500) in base64's decoder."""
    r = api.get(f"{C}/account", headers={"authorization": header})
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Basic"), r.text


# ================================================================================================= F4

EVIL = "http://evil.example"
STATE_CHANGING = ("POST", "PUT", "PATCH", "DELETE")


def concrete(path: str) -> str:
    """A route's path with its parameters filled in (the contest, submission 1, problem sum)."""
    return path.replace("{cid}", "test").replace("{id}", "1" if "submissions" in path else "sum")


def changes(server: Server) -> tuple[int, ...]:
    """What a state-changing request could have changed: submissions, jobs, events, the freeze and thaw."""
    conn = db(server)
    counts = tuple(
        int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in ("submissions", "jobs", "events")
    )
    return (*counts, int(conn.execute("SELECT count(*) FROM meta").fetchone()[0]))


def test_every_state_changing_request_from_another_site_is_refused(api: Api, server: Server) -> None:
    """F4: whatever the route (the API's or a page), its body type or the credentials it carries, a POST,
    PUT, PATCH or DELETE whose Origin is another site's is a 403 and changes nothing."""
    assert api.submit("team1").status_code == 201
    server.judging.run_pending()
    before = changes(server)
    api_routes = [concrete(r.path) for r in ROUTES if r.method in STATE_CHANGING]
    page_routes = [concrete(p.path) for p in (*PAGES, *ADMIN_PAGES) if p.method in STATE_CHANGING]
    assert len(api_routes) >= 4 and len(page_routes) >= 7  # submit, rejudge x2, thaw; login, logout, submit, ...
    for route in ROUTES:
        if route.method not in STATE_CHANGING:
            continue
        for user in ("team1", "admin"):
            for headers in ({"origin": EVIL, **JSON}, {"origin": "null", **JSON}, {"origin": EVIL}):
                r = api.request(route.method, concrete(route.path), user, content=b"{}", headers=headers)
                assert r.status_code == 403 and "cross-site" in r.json()["message"], (route.path, r.text)
    with asyncio.Runner() as runner:
        loop_api = LoopApi(server, runner)
        for user in ("team1", "admin"):
            browser = log_in(loop_api, user)
            token = re.search(r'name="csrf" value="([^"]+)"', browser.get("/scoreboard").text)
            for page in (*PAGES, *ADMIN_PAGES):
                if page.method not in STATE_CHANGING:
                    continue
                data = {"csrf": token.group(1) if token else "", "problem": "sum", "code": "x", "language": "python3"}
                r = browser.request(page.method, concrete(page.path), data=data, headers={"origin": EVIL})
                assert r.status_code == 403 and "cross-site" in r.text, (page.path, r.status_code)
    assert changes(server) == before


def test_another_sites_form_cannot_submit_or_rejudge_with_the_browsers_credentials(api: Api, server: Server) -> None:
    """F4's reproduction: a form on another site posts text/plain or urlencoded bodies (shaped to read as
    JSON) with the Basic credentials the browser holds: 201 and 202 before; now 415 without an Origin (a
    browser that sends none; the submissions route takes DOMjudge's multipart form, which this is not: 400)
    and 403 with it, whatever the type."""
    sent = api.submit("team1").json()["id"]
    server.judging.run_pending()
    before = changes(server)
    smuggled = json.dumps(
        {
            "problem_id": "sum",
            "language_id": "python3",
            "files": [{"data": base64.b64encode(pack({"a.py": b"print(1)\n"})).decode()}],
        }
    ).encode()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/json"):
        r = api.request("POST", f"{C}/submissions", "team1", content=smuggled, headers={"content-type": kind})
        if kind.startswith("multipart/"):  # the route takes DOMjudge's form (issue 28): read as one, it is none
            assert r.status_code == 400 and "malformed form" in r.json()["message"], (kind, r.text)
        else:
            assert r.status_code == 415 and "application/json" in r.json()["message"], (kind, r.text)
        r = api.request("POST", f"{C}/submissions/{sent}/rejudge", "admin", content=b"", headers={"content-type": kind})
        assert r.status_code == 415, (kind, r.text)
        r = api.request("PATCH", C, "admin", content=b'{"id": "test"}', headers={"content-type": kind})
        assert r.status_code == 415, (kind, r.text)
        headers = {"content-type": kind, "origin": EVIL}
        assert api.request("POST", f"{C}/submissions", "team1", content=smuggled, headers=headers).status_code == 403
    assert changes(server) == before
    # the server's own pages (same origin), and clients that are not browsers (no Origin), still work
    own = {"origin": "http://testserver", **JSON}
    assert api.request("POST", f"{C}/submissions", "team1", content=smuggled, headers=own).status_code == 201
    assert api.request("POST", f"{C}/submissions", "team1", content=smuggled, headers=JSON).status_code == 201
    assert api.request("POST", f"{C}/submissions/{sent}/rejudge", "admin").status_code == 202
    charset = {"content-type": "application/json; charset=utf-8", "origin": "HTTP://TESTSERVER:80"}
    assert api.request("POST", f"{C}/submissions", "team2", content=smuggled, headers=charset).status_code == 201


# ================================================================================================= F3


def _server_with(root: Path, clock: FakeClock, limits: LoginLimits) -> Server:
    contest = load_contest(root, FIXTURES)
    judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    langs = {k: v for k, v in load_languages().items() if k == "python3"}
    return open_server(contest, langs, judge, ServeOptions(hasher=CHEAP_HASHER, clock=clock, login_limits=limits))


def test_the_account_lockout_is_configurable(tmp_path: Path, clock: FakeClock) -> None:
    """F3: anyone who knows a username can keep that account's Basic-auth logins refused for the window (5
    failures a minute by default); `--account-lockout 0` turns it off (the per-address limit stays)."""
    for n, (limits, want) in enumerate(
        (
            (LoginLimits(), [401] * 5 + [429] * 3),
            (LoginLimits(account=Lockout(2, 60.0)), [401] * 2 + [429] * 6),
            (LoginLimits(account=Lockout(0, 0.0)), [401] * 8),
            (LoginLimits(account=Lockout(0, 0.0), address=Lockout(3, 60.0)), [401] * 3 + [429] * 5),
        )
    ):
        server = _server_with(write_contest(tmp_path / f"contest{n}"), clock, limits)
        api = Api.of(server)
        got = [api.get(f"{C}/account", "team1", password="wrong").status_code for _ in range(8)]
        assert got == want, limits
        right = api.get(f"{C}/account", "team1").status_code
        assert right == (429 if want[-1] == 429 else 200)  # locked: the right password too, until the window ends
        clock.advance(61)
        assert api.get(f"{C}/account", "team1").status_code == 200
        server.close()


# ================================================================================================= F2


def _csrf(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m is not None, html[:300]
    return m.group(1)


def test_a_cookie_copied_before_logout_is_worth_nothing_after_it(server: Server, clock: FakeClock) -> None:
    """F2 of issue 27: a cookie copied before "Log out" still loaded /submit and stored a submission afterwards
    (a signed, stateless cookie valid 12 h). Now the logout ends the session on the server at once."""
    with asyncio.Runner() as runner:
        api = LoopApi(server, runner)
        team = log_in(api, "team1")
        copied = team.client.cookies[COOKIE]
        token = _csrf(team.get("/submit").text)  # what a thief who copied the cookie could also have copied
        assert team.request("POST", "/logout", data={"csrf": token}).status_code == 303
        thief = Browser(api)
        thief.client.cookies.set(COOKIE, copied)
        assert thief.request("GET", "/submit").headers["location"] == "/login"
        r = thief.request("POST", "/submit", data={"csrf": token, "problem": "sum", "language": "python3", "code": "x"})
        assert r.status_code == 303 and r.headers["location"] == "/login"
        assert stored(server) == 0
        # a live session ends 12 h after its login
        late = log_in(api, "team2")
        assert late.request("GET", "/submit").status_code == 200
        clock.advance(12 * HOUR + 1)
        assert late.request("GET", "/submit").headers["location"] == "/login"


def test_sessions_survive_a_restart_unless_the_password_changed(tmp_path: Path, clock: FakeClock) -> None:
    """Sessions are stored, so a restarted server keeps them; a password changed in accounts.yaml (as a reset
    would, issue 30) ends that account's sessions at the start, and only its."""
    root = write_contest(tmp_path / "contest")
    with asyncio.Runner() as runner:
        first = make_server(root, clock)
        api = LoopApi(first, runner)
        one, two = log_in(api, "team1"), log_in(api, "team2")
        cookies = {"team1": one.client.cookies[COOKIE], "team2": two.client.cookies[COOKIE]}
        first.close()
        accounts = json.loads((root / "accounts.yaml").read_text())
        for a in accounts:
            if a["username"] == "team2":
                a["password"] = "a new password"
        (root / "accounts.yaml").write_text(json.dumps(accounts))
        second = make_server(root, clock)
        api = LoopApi(second, runner)
        for user, cookie in cookies.items():
            b = Browser(api)
            b.client.cookies.set(COOKIE, cookie)
            r = b.request("GET", "/submit")
            assert r.status_code == (200 if user == "team1" else 303), user
        second.close()


# ================================================================================================= F5


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_database_and_its_wal_and_shm_are_owner_only(api: Api, server: Server) -> None:
    """F5 of issue 27: contest.sqlite and its -wal/-shm were created 0644 under the default umask; the user
    nobody read the cookie key from them."""
    assert api.submit("team1").status_code == 201  # something in the WAL
    server.judging.run_pending()
    db_path = server.storage.path
    files = [db_path, db_path.with_name(db_path.name + "-wal"), db_path.with_name(db_path.name + "-shm")]
    assert all(f.exists() for f in files)
    assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}


def test_the_database_holds_no_key_and_its_sessions_cannot_be_replayed(server: Server, clock: FakeClock) -> None:
    """F5: whoever reads a copy of the database (or the contest package) must not be able to make a cookie:
    there is no signing key any more, and a session is stored as its verifier's SHA-256 only."""
    with asyncio.Runner() as runner:
        api = LoopApi(server, runner)
        admin = log_in(api, "admin")
        assert admin.request("GET", "/admin").status_code == 200
        conn = db(server)
        assert {k for (k,) in conn.execute("SELECT key FROM meta")} <= {
            "contest_id",
            "freeze_time",
            "thaw_time",
            "scoreboard_type",
        }
        rows = conn.execute("SELECT selector, verifier_sha256 FROM sessions").fetchall()
        selector, verifier = admin.client.cookies[COOKIE].split(".")
        assert rows == [(selector, rows[0][1])] and verifier not in rows[0][1]  # the hash only
        for forged in (f"{rows[0][0]}.{rows[0][1]}", f"{rows[0][0]}.{rows[0][1][:43]}"):
            thief = Browser(api)
            thief.client.cookies.set(COOKIE, forged)
            assert thief.request("GET", "/admin").headers["location"] == "/login"
        package = admin.request("GET", "/admin/contest-package.zip").content
        assert rows[0][0].encode() not in package and b"$argon2" not in package


def test_contest_init_makes_its_folder_and_accounts_owner_only(tmp_path: Path) -> None:
    """F5: the accounts.yaml `judge contest init` writes holds argon2 hashes (attackable offline): 0600, in a
    0700 folder."""
    dest = tmp_path / "made" / "demo"
    assert main(["contest", "init", str(dest), "--problems", str(FIXTURES), "--teams", "2"]) == 0
    assert mode(dest) == 0o700 and mode(dest / "accounts.yaml") == 0o600


# ================================================================================================= smaller ones


def test_a_stored_zip_keeps_no_symlink_flag(api: Api, server: Server) -> None:
    """A zip entry flagged as a symlink (its data the link's target) was stored and downloaded as it came:
    whoever unpacked the download (an organizer's tool) made the link. The stored zip holds regular files."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        link = zipfile.ZipInfo("sum.py")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        link.create_system = 3  # unix
        zf.writestr(link, "/etc/passwd")
        zf.writestr("util.py", "a + b\n")
    body = {
        "problem_id": "sum",
        "language_id": "python3",
        "files": [{"data": base64.b64encode(buf.getvalue()).decode()}],
    }
    r = api.request("POST", f"{C}/submissions", "team1", json=body)
    assert r.status_code == 201, r.text
    download = api.get(f"{C}/submissions/{r.json()['id']}/files", "admin").content
    with zipfile.ZipFile(io.BytesIO(download)) as zf:
        infos = zf.infolist()
        assert [i.filename for i in infos] == ["sum.py", "util.py"]
        assert zf.read("sum.py") == b"/etc/passwd"  # the bytes that were judged, as a plain file
        assert all(stat.S_ISREG(i.external_attr >> 16) and not stat.S_ISLNK(i.external_attr >> 16) for i in infos)


def test_a_page_shows_only_the_servers_own_messages(server: Server) -> None:
    """?message= put any text in the organizers' page's message area (escaped, but a link could make it say
    anything); ?submitted= any number in a team's. Only messages the server issues are shown now."""
    with asyncio.Runner() as runner:
        api = LoopApi(server, runner)
        assert api.submit("team1").status_code == 201
        admin, team = log_in(api, "admin"), log_in(api, "team1")
        for text in ("the contest is cancelled: go home", "the scoreboard is frozen <b>now</b>", "x" * 300):
            for path in ("/admin", "/admin/submissions/1", "/admin/clarifications"):  # the last: issue 43
                page = admin.get(f"{path}?message={quote(text)}").text
                assert 'id="message"' not in page and "go home" not in page, (path, text)
        page = admin.get(f"/admin?message={quote('rejudge of problem sum: 2 submission(s) queued')}").text
        assert 'id="message"' in page  # one of the server's own
        for own in ("clarification sent", "answer sent"):  # what the clarification forms redirect with
            assert f'id="message">{own}<' in admin.get(f"/admin/clarifications?message={quote(own)}").text
        assert 'id="submitted"' not in team.get("/submissions?submitted=999").text
        assert 'id="submitted"' not in team.get("/submissions?submitted=please%20call%20us").text
        assert "Submission 1 received" in team.get("/submissions?submitted=1").text
        other = log_in(api, "team2")
        assert 'id="submitted"' not in other.get("/submissions?submitted=1").text  # not team2's


def test_every_message_the_organizers_pages_issue_is_shown() -> None:
    """The table covers what the handlers say, the freeze's refusals (model/phase.py) included."""
    from judge.serve.http.pages import notices
    from judge.serve.model.phase import Phase

    info = ContestInfo("t", "T", "T", start_s=T0, duration_s=5 * HOUR, freeze_duration_s=HOUR)
    reasons = [
        Phase(info, freeze_s=T0 + 4 * HOUR, thaw_s=None).freeze_refusal(T0 - 1),
        Phase(info, freeze_s=T0 + 4 * HOUR, thaw_s=None).freeze_refusal(T0 + 4.5 * HOUR),
        Phase(info, freeze_s=T0 + 4 * HOUR, thaw_s=T0 + 5 * HOUR, thawed_at=T0 + 5 * HOUR).freeze_refusal(T0 + HOUR),
    ]
    issued = [notices.notice(notices.NOT_FROZEN, reason=r) for r in reasons]
    issued += [notices.FROZEN, notices.THAWED, notices.notice(notices.THAWS_AT, time=format_time(T0 + 5 * HOUR))]
    for what, what_id in (("submission", "12"), ("problem", "sum")):
        issued += [
            notices.notice(t, what=what, id=what_id, n=n)
            for t, n in ((notices.REJUDGED, 3), (notices.REJUDGED_NONE, 0))
        ]
    assert all(r is not None for r in reasons)
    assert [notices.shown(m) for m in issued] == issued


def test_a_refused_form_still_shows_who_is_logged_in(server: Server) -> None:
    """A form refused before the session is looked up (its CSRF token, its Origin) renders the error page for
    the session's viewer, not for the public."""
    with asyncio.Runner() as runner:
        team = log_in(LoopApi(server, runner), "team1")
        for headers in ({}, {"origin": EVIL}):
            r = team.request("POST", "/submit", data={"csrf": "wrong", "code": "x"}, headers=headers)
            assert r.status_code == 403 and "Log out" in r.text and "Zeta" in r.text, headers
