"""DOMjudge compatibility: what DOMjudge's command-line `submit` client (submit/submit in DOMjudge's
repository) asks of the server, as HTTP: the contests with a `shortname`, the languages and problems it
reads, its multipart/form-data submission (fields `problem`, `language`, optional `entry_point`, files in
`code[]`) through the same submit service as the spec's JSON, and the page it sends the team to. Also
`judge contest init --type pass-fail` from any folder."""

from __future__ import annotations

import datetime
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from serve_fixtures import SUM_AC, SUM_WA, T0, Api, FakeClock, db, make_server, write_contest
from test_serve_pages import login

from judge.commands.cli import main
from judge.serve.model.contest import load_contest
from judge.serve.site.server import Server

C = "/api/contests/test"


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=("shortname: spring",))
    s = make_server(root, FakeClock(T0 + 60))
    yield s
    s.close()


def domjudge_submit(api: Api, user: str, fields: dict[str, str], files: list[tuple[str, bytes]]):  # type: ignore[no-untyped-def]
    """The request DOMjudge's client makes (python-requests' data= and files=: multipart/form-data)."""
    parts = [("code[]", (name, data)) for name, data in files]
    return api.request("POST", f"{C}/submissions", user, data=fields, files=parts)


def test_the_clients_submission_is_judged_like_any_other(server: Server) -> None:
    api = Api.of(server)
    contests = api.get("/api/contests", "team1").json()
    assert [(c["id"], c["shortname"], c["name"]) for c in contests] == [("test", "spring", "Test contest")]
    (lang,) = api.get(f"{C}/languages", "team1").json()
    assert lang["id"] == "python3" and lang["extensions"] and lang["entry_point_required"] is False
    assert [(p["id"], p["label"]) for p in api.get(f"{C}/problems", "team1").json()] == [("sum", "A"), ("divisor", "B")]

    r = domjudge_submit(api, "team1", {"problem": "sum", "language": "python3"}, [("sum.py", SUM_AC.encode())])
    assert r.status_code == 201, r.text
    sub = r.json()
    assert isinstance(sub["id"], str) and sub["team_id"] == "team1" and sub["problem_id"] == "sum"
    made = datetime.datetime.fromisoformat(sub["time"])  # what the client prints
    assert made.timestamp() == T0 + 60
    assert r.headers["location"] == f"{C}/submissions/{sub['id']}"
    server.judging.run_pending()
    (j,) = api.get(f"{C}/judgements?submission_id={sub['id']}", "team1").json()
    assert j["judgement_type_id"] == "AC"
    with zipfile.ZipFile(BytesIO(api.get(f"{C}/submissions/{sub['id']}/files", "team1").content)) as zf:
        assert zf.namelist() == ["sum.py"] and zf.read("sum.py").decode() == SUM_AC

    # the link it prints leads the team to its submission's page
    team = login(server, "team1")
    r = team.get(f"/team/submission/{sub['id']}")
    assert (r.status_code, r.headers["location"]) == (303, f"/submissions/{sub['id']}")
    assert team.get(r.headers["location"]).status_code == 200


def test_several_files_and_an_entry_point(server: Server) -> None:
    api = Api.of(server)
    files = [("main.py", b"import helper\nhelper.run()\n"), ("helper.py", SUM_WA.encode())]
    r = domjudge_submit(api, "team2", {"problem": "sum", "language": "python3", "entry_point": "main.py"}, files)
    assert r.status_code == 201, r.text
    assert r.json()["entry_point"] == "main.py"
    zipped = db(server).execute("SELECT files FROM submissions WHERE id = ?", (int(r.json()["id"]),)).fetchone()[0]
    assert sorted(zipfile.ZipFile(BytesIO(zipped)).namelist()) == ["helper.py", "main.py"]


@pytest.mark.parametrize(
    ("user", "fields", "files", "status", "said"),
    [
        ("team1", {"problem": "sum", "language": "python3"}, [("", b"")], 400, "code[]"),  # a part, no file
        ("team1", {"language": "python3"}, [("a.py", b"x")], 400, "`problem` is required"),
        ("team1", {"problem": "nosuch", "language": "python3"}, [("a.py", b"x")], 400, "unknown problem"),
        ("team1", {"problem": "sum", "language": "python3", "colour": "red"}, [("a.py", b"x")], 400, "colour"),
        ("team1", {"problem": "sum", "language": "python3"}, [("a.py", b"x"), ("a.py", b"y")], 400, "same name"),
        ("team1", {"problem": "sum", "language": "python3"}, [(".hidden.py", b"x")], 400, "hidden"),
        (
            "team1",
            {"problem": "sum", "language": "python3", "time": "2030-01-01T10:00:00Z"},
            [("a.py", b"x")],
            400,
            "time",
        ),
        ("team1", {"problem": "sum", "language": "python3"}, [("a.py", b"x" * 20_000)], 413, "limit"),
        ("team1", {"problem": "sum", "language": "python3", "team_id": "team2"}, [("a.py", b"x")], 403, "team2"),
        ("judge", {"problem": "sum", "language": "python3"}, [("a.py", b"x")], 403, "team and admin"),
        (None, {"problem": "sum", "language": "python3"}, [("a.py", b"x")], 401, ""),
    ],
)
def test_a_bad_form_is_refused_and_nothing_stored(  # type: ignore[no-untyped-def]
    server: Server, user, fields, files, status: int, said: str
) -> None:
    r = domjudge_submit(Api.of(server), user, fields, files)
    assert r.status_code == status, r.text
    assert said in r.json()["message"]
    assert db(server).execute("SELECT count(*) FROM submissions").fetchone() == (0,)


def test_an_admin_submits_for_a_team_with_the_form(server: Server) -> None:
    fields = {"problem": "sum", "language": "python3", "team_id": "team3", "time": "2030-01-01T10:00:30Z"}
    r = domjudge_submit(Api.of(server), "admin", fields, [("s.py", SUM_AC.encode())])
    assert r.status_code == 201 and r.json()["team_id"] == "team3" and r.json()["contest_time"] == "0:00:30.000"


def test_the_shortname_is_left_out_when_strict_and_on_routes_that_take_only_json(server: Server) -> None:
    api = Api.of(server)
    assert "shortname" in api.get(C).json()
    assert "shortname" not in api.get(f"{C}?strict=true").json()
    assert "shortname" not in api.get("/api/contests?strict=1").json()[0]
    feed = api.get(f"{C}/event-feed?stream=false").text
    assert '"shortname"' not in feed  # the event feed carries the spec's contest object
    r = api.request("PATCH", C, "admin", data={"id": "test"}, files=[("x", ("a", b"b"))])
    assert r.status_code == 415 and "application/json" in r.json()["message"]  # a form only where a route takes one


def test_contest_init_pass_fail_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no problems/ here: the judge's own demo problems are found
    assert main(["contest", "init", "icpc", "--type", "pass-fail", "--teams", "2"]) == 0
    contest = load_contest(elsewhere / "icpc")
    assert contest.info.pass_fail and contest.info.penalty_s == 1200 and not contest.info.judge_all_tests
    assert contest.info.shortname == "demo"
    assert {p.id for p in contest.problems} == {"coins", "go", "klondike", "memory", "rummy"}
    assert main(["contest", "init", "scored"]) == 0
    assert not load_contest(elsewhere / "scored").info.pass_fail
    assert main(["contest", "init", "x", "--problems", str(tmp_path / "none")]) == 2


def test_a_contest_without_a_shortname_gets_its_id_and_the_client_takes_it(tmp_path: Path) -> None:
    """DOMjudge's client (submit/submit, ``read_contests``) drops every contest when one lacks an ``id`` or a
    non-empty ``shortname`` ("No (valid) contest specified"), then matches ``-c`` against either."""
    s = make_server(write_contest(tmp_path / "c", scoreboard_type="pass-fail"), FakeClock(T0 + 60))
    try:
        api = Api.of(s)
        contests = api.get("/api/contests", "team1").json()
        assert all(c.get("id") and c.get("shortname") for c in contests), contests
        assert [(c["id"], c["shortname"]) for c in contests] == [("test", "test")]
        assert api.get(C, "team1").json()["shortname"] == "test"
        r = domjudge_submit(api, "team1", {"problem": "sum", "language": "python3"}, [("sum.py", SUM_AC.encode())])
        assert r.status_code == 201, r.text
    finally:
        s.close()
