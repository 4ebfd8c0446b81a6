"""`judge serve`'s API through the real HTTP stack (httpx against the ASGI app): the shapes the spec
defines, roles, errors, and every refusal of the security list (with nothing stored). Judging here is
the scripted JudgeFn (no sandbox): test_serve_judging.py judges for real."""

from __future__ import annotations

import base64
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_fixtures import FIXTURES, HOUR, SUM_AC, T0, Api, FakeClock, db, feed, make_server, write_contest

from judge.languages.table import load_languages
from judge.serve.model.upload import pack
from judge.serve.site.server import Server

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")
RELTIME = re.compile(r"^-?\d+:[0-5]\d:[0-5]\d\.\d{3}$")
C = "/api/contests/test"


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


def test_api_information_and_contest(api: Api) -> None:
    info = api.get("/api").json()
    assert info["version"] == "draft" and info["provider"]["name"] == "judge"
    assert api.get("/api/").json() == info
    contests = api.get("/api/contests").json()
    contest = api.get(C).json()
    assert contests == [contest]
    assert contest == {
        "id": "test",
        "name": "Test contest",
        "formal_name": "Test contest",
        "start_time": "2030-01-01T10:00:00.000+00:00",
        "duration": "5:00:00.000",
        "scoreboard_freeze_duration": "1:00:00.000",
        "scoreboard_type": "score",
        "shortname": "test",  # DOMjudge's: contest.yaml has none, so the id (its `submit` client needs one)
    }
    assert "shortname" not in api.get(f"{C}?strict=1").json()
    state = api.get(f"{C}/state").json()
    assert state == {
        "started": contest["start_time"],
        "frozen": None,
        "ended": None,
        "thawed": None,
        "finalized": None,
        "end_of_updates": None,
    }
    r = api.get(C)
    assert r.headers["access-control-allow-origin"] == "*" and r.headers["content-type"] == "application/json"


def test_configuration_endpoints(api: Api) -> None:
    types = api.get(f"{C}/judgement-types").json()
    assert {t["id"] for t in types} == {"AC", "WA", "TLE", "MLE", "RTE", "OLE", "CE", "JE"}
    assert [t["solved"] for t in types if t["id"] == "AC"] == [True]
    assert api.get(f"{C}/judgement-types/TLE").json()["name"] == "Time Limit Exceeded"
    assert api.get(f"{C}/languages").json() == [
        {"id": "python3", "name": "Python 3", "entry_point_required": False, "extensions": ["py", "py3"]}
    ]
    problems = api.get(f"{C}/problems").json()
    assert [(p["id"], p["label"], p["ordinal"]) for p in problems] == [("sum", "A", 1), ("divisor", "B", 2)]
    assert problems[0] == {
        "id": "sum",
        "label": "A",
        "name": "Sum of two numbers",
        "ordinal": 1,
        "rgb": "#f00",
        "time_limit": 1.0,
        "memory_limit": 256,
        "output_limit": 8,
        "code_limit": 16,
        "test_data_count": 4,
        "max_score": 100.0,
        "statement": [{"href": "contests/test/problems/sum/statement", "filename": "sum.md", "mime": "text/markdown"}],
    }
    statement = api.get(f"{C}/problems/sum/statement")
    assert statement.headers["content-type"] == "text/markdown; charset=utf-8"
    assert statement.content == (FIXTURES / "sum" / "problem_statement" / "problem.en.md").read_bytes()
    assert api.get(f"{C}/problems/divisor").json()["label"] == "B"
    teams = api.get(f"{C}/teams").json()
    assert teams[0] == {"id": "team1", "name": "Zeta", "label": "1", "group_ids": ["g"]}
    assert api.get(f"{C}/groups").json() == [{"id": "g", "name": "Everyone"}]
    assert api.get(f"{C}/organizations").json() == []
    assert api.get(f"{C}/clarifications").json() == []
    assert api.get(f"{C}/teams?group_ids=x").status_code == 200  # not an ID filter: ignored


def test_an_admin_is_offered_contest_start_before_the_start_and_its_patch_works(tmp_path: Path) -> None:
    """The spec's `contest_start`: an admin may PATCH the start; `access` lists it (issue 43: it did not)."""
    s = make_server(write_contest(tmp_path / "c"), FakeClock(T0 - HOUR))
    try:
        api = Api.of(s)
        for user in ("admin", "judge", "team1", None):
            caps = api.get(f"{C}/access", user).json()["capabilities"]
            assert ("contest_start" in caps) is (user == "admin"), (user, caps)
        body = {"id": "test", "start_time": "2030-01-01T10:30:00Z"}
        r = api.request("PATCH", C, "admin", json=body)
        assert r.status_code == 200, r.text
        assert api.get(C).json()["start_time"] == "2030-01-01T10:30:00.000+00:00"
    finally:
        s.close()


def test_access_and_accounts_by_role(api: Api) -> None:
    assert api.get(f"{C}/access").json()["capabilities"] == []
    assert api.get(f"{C}/access", "team1").json()["capabilities"] == ["team_submit", "post_clar"]  # issue 29
    admin = api.get(f"{C}/access", "admin").json()
    assert admin["capabilities"] == ["contest_start", "contest_thaw", "admin_submit", "post_clar"]
    assert {e["type"] for e in admin["endpoints"]} >= {
        "contest",
        "problems",
        "submissions",
        "judgements",
        "runs",
        "scoreboard",
        "event-feed",
        "state",
    }
    assert api.get(f"{C}/accounts").json() == []
    assert api.get(f"{C}/accounts", "team2").json() == [
        {"id": "team2", "username": "team2", "type": "team", "team_id": "team2"}
    ]
    assert len(api.get(f"{C}/accounts", "judge").json()) == 5
    assert all("password" not in a for a in api.get(f"{C}/accounts", "admin").json())
    assert api.get(f"{C}/account", "team3").json()["team_id"] == "team3"
    assert api.get(f"{C}/account").status_code == 401


def test_problems_are_secret_until_the_start(tmp_path: Path) -> None:
    clock = FakeClock(T0 - 60)
    api = Api.of(make_server(write_contest(tmp_path / "c"), clock))
    assert api.get(f"{C}/problems").json() == []
    assert api.get(f"{C}/problems", "team1").json() == []
    assert api.get(f"{C}/problems/sum", "team1").status_code == 404
    assert len(api.get(f"{C}/problems", "admin").json()) == 2
    assert api.get(f"{C}/state").json()["started"] is None
    assert all(e["type"] != "problems" for e in feed(api))
    clock.t = T0
    assert len(api.get(f"{C}/problems").json()) == 2
    assert [e["id"] for e in feed(api) if e["type"] == "problems"] == ["sum", "divisor"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/nosuch",
        "/api/contests/other",
        "/api/contests/other/problems",
        f"{C}/doesnt-exist",
        f"{C}/doesnt-exist/42",
        f"{C}/submissions/999999",
        f"{C}/submissions/xyz9999",
        f"{C}/submissions/XYZ-999",
        f"{C}/submissions/1%20OR%201=1",
        f"{C}/problems/nosuch",
        f"{C}/problems/sum';%20DROP%20TABLE%20submissions;--",
        f"{C}/teams/nosuch",
        f"{C}/judgements/1",
        f"{C}/runs/1",
        f"{C}/submissions/1/files",
    ],
)
def test_unknown_ids_are_json_404s(api: Api, server: Server, path: str) -> None:
    r = api.get(path, "admin")
    assert r.status_code == 404, r.text
    assert r.json()["code"] == 404 and r.json()["message"]
    assert db(server).execute("SELECT count(*) FROM submissions").fetchone()[0] == 0  # the table is there


def test_wrong_methods_and_bodies_are_json_errors(api: Api) -> None:
    r = api.request("DELETE", f"{C}/problems", "admin")
    assert r.status_code == 405 and r.json()["code"] == 405
    r = api.request("POST", f"{C}/submissions", "team1", content=b"{not json")
    assert r.status_code == 400 and r.json()["message"] == "the body must be JSON"
    r = api.request("POST", f"{C}/submissions", "team1", json=[1, 2])
    assert r.status_code == 400
    r = api.request("PATCH", C, "admin", content=b"\xff\xfe")
    assert r.status_code == 400
    r = api.request("POST", f"{C}/submissions", "team1", content=b"x" * (2 * 1024 * 1024))
    assert r.status_code == 413 and "larger than" in r.json()["message"]


def test_the_teams_submit_case(api: Api, server: Server) -> None:
    r = api.submit("team1")
    assert r.status_code == 201, r.text
    sub = r.json()
    assert r.headers["location"] == f"{C}/submissions/{sub['id']}"
    assert sub["team_id"] == "team1" and sub["problem_id"] == "sum" and sub["language_id"] == "python3"
    assert TIME.match(sub["time"]) and sub["contest_time"] == "1:00:00.000"
    assert sub["entry_point"] == "sum.py"
    assert sub["files"] == [
        {"href": f"contests/test/submissions/{sub['id']}/files", "filename": "files.zip", "mime": "application/zip"}
    ]
    # committed before the answer: the submission and its job are in the database
    conn = db(server)
    assert conn.execute("SELECT team_id FROM submissions WHERE id = ?", (int(sub["id"]),)).fetchone()[0] == "team1"
    assert conn.execute("SELECT count(*) FROM jobs WHERE done = 0").fetchone()[0] == 1
    assert api.get(f"{C}/submissions/{sub['id']}").json() == sub
    assert api.get(f"{C}/submissions?team_id=team1").json() == [sub]
    assert api.get(f"{C}/submissions?team_id=team2").json() == []
    # a team_id equal to the poster's own is accepted
    assert api.submit("team2", team_id="team2").status_code == 201


def test_unauthenticated_and_wrong_role_submits_store_nothing(api: Api, server: Server) -> None:
    r = api.submit(None)
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Basic")
    assert api.submit("judge").status_code == 403
    r = api.request("POST", f"{C}/submissions", "team1", "wrong", json={})
    assert r.status_code == 401
    assert stored(server) == 0


@pytest.mark.parametrize(
    ("kwargs", "status", "message"),
    [
        ({"problem": "nosuch"}, 400, "unknown problem 'nosuch'"),
        ({"language": "cobol"}, 400, "unknown language 'cobol'"),
        ({"language": "c"}, 400, "unknown language 'c'"),  # not offered in this contest
        ({"files": {"sum.c": "int main(){}"}}, 400, "no Python 3 source file"),
        ({"files": {"sub/sum.py": SUM_AC}}, 400, "root of the zip"),
        ({"files": {".hidden.py": SUM_AC}}, 400, "hidden"),
        ({"files": {"big.py": "#" * (17 * 1024)}}, 413, "limit of 16 KiB"),
        ({"files": {"sum.py": SUM_AC}, "entry_point": "other.py"}, 400, "entry_point"),
        ({"time": "2030-01-01T10:00:00Z"}, 400, "`time` must not be provided"),
        ({"id": "42"}, 400, "`id` must not be provided"),
        ({"team_id": "team2"}, 403, "cannot submit for team team2"),
        ({"problem_idd": "x"}, 400, "unknown properties problem_idd"),
    ],
)
def test_bad_submissions_are_refused_and_nothing_stored(
    api: Api,
    server: Server,
    kwargs: dict,
    status: int,
    message: str,  # type: ignore[type-arg]
) -> None:
    r = api.submit("team1", **kwargs)
    assert r.status_code == status, r.text
    assert message in r.json()["message"]
    assert r.json()["code"] == status
    assert stored(server) == 0
    assert all(e["type"] != "submissions" for e in feed(api, "admin"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("not base64!", "not valid base64"),
        (base64.b64encode(b"PK\x03\x04 not a zip").decode(), "not a readable zip"),
        (base64.b64encode(pack({})).decode(), "no files"),
    ],
)
def test_bad_zips_are_refused(api: Api, server: Server, data: str, message: str) -> None:
    body = {"problem_id": "sum", "language_id": "python3", "files": [{"data": data}]}
    r = api.request("POST", f"{C}/submissions", "team1", json=body)
    assert r.status_code == 400 and message in r.json()["message"]
    body["files"] = [{"data": data, "mime": "text/plain"}]
    assert api.request("POST", f"{C}/submissions", "team1", json=body).status_code == 400
    assert stored(server) == 0


def test_a_zip_bomb_is_refused_before_unpacking(api: Api, server: Server) -> None:
    bomb = pack({"sum.py": b"#" * (8 * 1024 * 1024)})  # compresses to ~8 KiB
    assert len(bomb) < 16 * 1024
    r = api.submit("team1", files={"sum.py": b"#" * (8 * 1024 * 1024)})
    assert r.status_code == 413 and "unpack" in r.json()["message"]
    assert stored(server) == 0


def test_submissions_outside_the_contest_window(api: Api, server: Server, clock: FakeClock) -> None:
    clock.t = T0 - 1
    r = api.submit("team1")
    assert r.status_code == 403 and "has not started" in r.json()["message"]
    clock.t = T0 + 5 * HOUR
    r = api.submit("team1")
    assert r.status_code == 403 and "is over" in r.json()["message"]
    assert stored(server) == 0
    # an admin may submit for a team at any time (a test submission): hidden from the public
    r = api.submit("admin", team_id="team3")
    assert r.status_code == 201
    assert api.get(f"{C}/submissions").json() == []
    assert len(api.get(f"{C}/submissions", "judge").json()) == 1
    assert api.submit("admin").status_code == 400  # team_id is required
    assert api.submit("admin", team_id="nobody").status_code == 400


def test_rate_limit_per_team(api: Api, server: Server, clock: FakeClock) -> None:
    for _ in range(3):
        assert api.submit("team1").status_code == 201
        clock.advance(1)
    r = api.submit("team1")
    assert r.status_code == 429
    assert "at most 3 per 60 s" in r.json()["message"]
    assert r.headers["retry-after"] == "57"
    assert stored(server) == 3
    assert api.submit("team2").status_code == 201  # per team
    clock.advance(56)
    assert api.submit("team1").status_code == 429
    clock.advance(1)
    assert api.submit("team1").status_code == 201


def test_login_attempts_are_throttled(api: Api, clock: FakeClock) -> None:
    for _ in range(5):
        r = api.get(f"{C}/account", "team1", password="guess")
        assert r.status_code == 401 and r.json()["message"] == "wrong username or password"
    r = api.get(f"{C}/account", "team1")  # even the right password, now
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
    assert "too many failed logins" in r.json()["message"]
    assert api.get(f"{C}/account", "team2").status_code == 200  # another account is not blocked
    clock.advance(61)
    assert api.get(f"{C}/account", "team1").status_code == 200
    # unknown usernames count too, and per address
    other = Api(api.app, address="10.0.0.9")
    for i in range(20):
        assert other.get(f"{C}/account", f"nobody{i}", password="x").status_code == 401
    assert other.get(f"{C}/account", "team3").status_code == 429
    assert api.get(f"{C}/account", "team3").status_code == 200
    assert api.request("GET", f"{C}/account", headers={"Authorization": "Basic %%%"}).status_code == 401
    assert api.request("GET", f"{C}/account", headers={"Authorization": "Bearer x"}).status_code == 401


def test_files_and_runs_only_for_the_team_and_staff(api: Api, server: Server) -> None:
    sid = api.submit("team1").json()["id"]
    server.judging.run_pending()
    files = api.get(f"{C}/submissions/{sid}/files", "team1")
    assert files.status_code == 200 and files.headers["content-type"] == "application/zip"
    assert files.content == pack({"sum.py": SUM_AC.encode()})
    assert api.get(f"{C}/submissions/{sid}/files", "team2").status_code == 403
    assert api.get(f"{C}/submissions/{sid}/files").status_code == 401
    assert api.get(f"{C}/submissions/{sid}/files", "judge").status_code == 200
    runs = api.get(f"{C}/runs", "team1").json()
    assert len(runs) == 4 and [r["ordinal"] for r in runs] == [1, 2, 3, 4]
    assert runs[0].keys() == {"id", "judgement_id", "ordinal", "judgement_type_id", "time", "contest_time", "run_time"}
    assert api.get(f"{C}/runs", "team2").json() == []
    assert api.get(f"{C}/runs").json() == []
    assert api.get(f"{C}/runs/{runs[0]['id']}", "team2").status_code == 404
    assert api.get(f"{C}/runs/{runs[0]['id']}", "team1").json() == runs[0]
    assert api.get(f"{C}/runs?judgement_id={runs[0]['judgement_id']}", "admin").json() == runs
    assert all(e["type"] != "runs" for e in feed(api, "team2")) and all(e["type"] != "runs" for e in feed(api))
    assert len([e for e in feed(api, "team1") if e["type"] == "runs"]) == 4


def test_sql_is_parameterized(api: Api, server: Server) -> None:
    evil = "x' OR '1'='1"
    assert api.submit("team1", problem=evil).status_code == 400
    assert api.get(f"{C}/submissions", params={"team_id": evil}).json() == []
    assert api.get(f"{C}/problems/{evil}").status_code == 404
    assert api.get(f"{C}/account", evil, password=evil).status_code == 401
    conn = sqlite3.connect(server.storage.path)
    assert conn.execute("SELECT count(*) FROM accounts").fetchone()[0] == 5


def test_event_feed_tokens_and_reconnection(api: Api, server: Server) -> None:
    events = feed(api)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "contest" and {"state", "judgement-types", "languages", "problems", "teams"} <= set(kinds)
    assert "accounts" not in kinds
    assert all(e.keys() == {"type", "id", "data", "token"} for e in events)
    assert [e["id"] for e in events if e["type"] in ("contest", "state")] == [None, None]
    tokens = [int(e["token"]) for e in events]
    assert tokens == sorted(tokens)
    last = events[-1]["token"]
    assert feed(api, since=last) == []
    sid = api.submit("team2").json()["id"]
    server.judging.run_pending()
    after = feed(api, since=last)
    assert [(e["type"], e["id"]) for e in after][0] == ("submissions", sid)
    assert [e["data"].get("judgement_type_id") for e in after if e["type"] == "judgements"] == [None, "AC"]
    assert feed(api)[len(events) :] == after  # a reconnection misses nothing
    for bad in ("999999", "xY-99_", "-1"):
        r = api.get(f"{C}/event-feed", params={"since_token": bad})
        assert r.status_code == 400 and "since_token" in r.json()["message"]
    assert api.get(f"{C}/event-feed", params={"since_id": "999999"}).status_code == 400
    team_accounts = [e for e in feed(api, "team1") if e["type"] == "accounts"]
    assert [e["id"] for e in team_accounts] == ["team1"]


def test_the_judges_own_bug_is_a_bare_500(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    import judge.serve.services.documents

    def broken() -> None:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(judge.serve.services.documents, "judgement_types_json", broken)
    r = api.get(f"{C}/judgement-types")
    assert r.status_code == 500
    assert r.json() == {"code": 500, "message": "internal error (judge's bug, not yours): RuntimeError"}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "problem_id": JSON | st.sampled_from(["sum", "divisor"]),
        "language_id": JSON | st.just("python3"),
        "files": JSON
        | st.lists(st.fixed_dictionaries({}, optional={"data": JSON | st.text(), "mime": JSON}), max_size=2),
        "entry_point": JSON,
        "team_id": JSON,
        "time": JSON,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=JSON | FIELDS)
def test_no_body_makes_the_server_fail(api: Api, body: object) -> None:
    for user in ("team1", "admin"):
        r = api.request("POST", f"{C}/submissions", user, json=body)
        assert 400 <= r.status_code < 500 or r.status_code == 201, r.text
        assert r.json()["code" if r.status_code >= 400 else "id"]
    r = api.request("PATCH", C, "admin", json=body)
    assert 400 <= r.status_code < 500 and r.json()["message"]


def test_entry_points(tmp_path: Path, clock: FakeClock) -> None:
    langs = {k: v for k, v in load_languages().items() if k in ("python3", "c", "java")}
    api = Api.of(make_server(write_contest(tmp_path / "c"), clock, languages=langs))
    c = api.submit("team1", files={"sum.c": "int main(void) { return 0; }\n"}, language="c")
    assert c.status_code == 201 and c.json()["entry_point"] is None  # present and null, as the spec's schema wants
    java = api.submit("team2", files={"Sum.java": "public class Adder { }\n"}, language="java")
    assert java.json()["entry_point"] == "Adder"  # the class to run
    two = {"main.py": "import util\n", "util.py": "X = 1\n"}
    assert api.submit("team3", files=two).json()["entry_point"] == "main.py"
    chosen = api.submit("team3", files={"a.py": "", "b.py": ""}, entry_point="b.py")
    assert chosen.json()["entry_point"] == "b.py"


ID = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_.-]{0,34}[A-Za-z0-9_-])?$")
TIME_KEYS = {"time", "start_time", "end_time", "started", "frozen", "ended", "thawed", "scoreboard_thaw_time"}
RELTIME_KEYS = {"contest_time", "start_contest_time", "end_contest_time", "duration", "scoreboard_freeze_duration"}


def _walk(obj: object, found: list[tuple[str, object]]) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            found.append((k, v))
            _walk(v, found)
    elif isinstance(obj, list):
        for v in obj:
            _walk(v, found)


def test_every_time_and_id_has_the_spec_format(api: Api, server: Server) -> None:
    api.submit("team1")
    api.submit("team2", files={"sum.py": "print(0)\n"})
    server.judging.run_pending()
    found: list[tuple[str, object]] = []
    for path in (
        "",
        "/state",
        "/access",
        "/judgement-types",
        "/languages",
        "/problems",
        "/groups",
        "/teams",
        "/accounts",
        "/submissions",
        "/judgements",
        "/runs",
        "/scoreboard",
    ):
        r = api.get(f"{C}{path}", "admin")
        assert r.status_code == 200, path
        data = r.json()
        if path == "/scoreboard":  # in rows, `time` is a contest time
            rows: list[tuple[str, object]] = []
            _walk(data.pop("rows"), rows)
            times = [v for k, v in rows if k == "time" and v is not None]
            assert len(times) == 2 and all(RELTIME.match(str(v)) for v in times)  # team1: its row, its cell
            found += [(k, v) for k, v in rows if k != "time"]
        _walk(data, found)
    _walk([e["data"] for e in feed(api, "admin")], found)
    checked = 0
    for key, value in found:
        if value is None:
            continue
        if key in TIME_KEYS:
            assert isinstance(value, str) and TIME.match(value), (key, value)
        elif key in RELTIME_KEYS:
            assert isinstance(value, str) and RELTIME.match(value), (key, value)
        elif key == "id" or key.endswith("_id"):
            assert isinstance(value, str) and ID.match(value), (key, value)
        elif key in ("max_run_time", "run_time", "time_limit"):
            assert isinstance(value, int | float) and round(value, 3) == value, (key, value)
        else:
            continue
        checked += 1
    assert checked > 50
