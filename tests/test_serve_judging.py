"""`judge serve`'s judging: the durable queue (each acknowledged submission judged and stored exactly once,
across a crash), rejudging, JE never charged, the scoreboard (ranked by `judge grade`'s code), freeze and
thaw; and real judging in the sandbox of the fixture problems."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import (
    FIXTURES,
    HOUR,
    SUM_AC,
    SUM_WA,
    T0,
    Api,
    FakeClock,
    ScriptedJudge,
    feed,
    make_server,
    write_contest,
)

from judge.judging.jobs import SourceFile
from judge.judging.prepared import Packages
from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.runner import Runner
from judge.scoreboard.model import Board
from judge.scoreboard.ranking import standings
from judge.serve.model.board import attempts, build_board, scoreboard_rows
from judge.serve.model.contest import load_contest
from judge.serve.services.judging.judge_fn import local_judge
from judge.serve.site.server import Server

C = "/api/contests/test"
END = T0 + 5 * HOUR
FREEZE = T0 + 4 * HOUR


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_contest(tmp_path / "contest")


@pytest.fixture
def server(root: Path, clock: FakeClock) -> Iterator[Server]:
    s = make_server(root, clock)
    yield s
    s.close()


@pytest.fixture
def api(server: Server) -> Api:
    return Api.of(server)


def judgements_of(api: Api, sid: str) -> list[dict]:  # type: ignore[type-arg]
    return api.get(f"{C}/judgements?submission_id={sid}", "admin").json()


def row(board: dict, team: str) -> dict:  # type: ignore[type-arg]
    return next(r for r in board["rows"] if r["team_id"] == team)


def cell(board: dict, team: str, problem: str) -> dict:  # type: ignore[type-arg]
    return next(p for p in row(board, team)["problems"] if p["problem_id"] == problem)


def test_each_submission_is_judged_once_and_ranked(api: Api, server: Server, clock: FakeClock) -> None:
    a = api.submit("team1")
    clock.advance(10)
    b = api.submit("team2", files={"sum.py": SUM_WA})
    clock.advance(10)
    c = api.submit("team2")
    assert api.get(f"{C}/judgements").json() == []
    assert server.judging.run_pending() == 3
    assert server.judging.run_pending() == 0
    for sub, verdict, score in ((a, "AC", 100.0), (b, "WA", 0.0), (c, "AC", 100.0)):
        (j,) = judgements_of(api, sub.json()["id"])
        assert (j["judgement_type_id"], j["score"], j["current"]) == (verdict, score, True)
        assert j.keys() == {
            "id",
            "submission_id",
            "judgement_type_id",
            "score",
            "current",
            "start_time",
            "start_contest_time",
            "end_time",
            "end_contest_time",
            "max_run_time",
        }
    board = api.get(f"{C}/scoreboard").json()
    # team1 (Zeta) and team2 (Alpha) tie on 100: one rank, listed by name; team3 (Mu) has nothing
    assert [(r["rank"], r["team_id"], r["score"]["score"]) for r in board["rows"]] == [
        (1, "team2", 100.0),
        (1, "team1", 100.0),
        (3, "team3", 0),
    ]
    assert cell(board, "team2", "sum") == {
        "problem_id": "sum",
        "num_judged": 2,
        "num_pending": 0,
        "score": 100.0,
        "time": "1:00:20.000",
    }
    assert row(board, "team2")["score"]["time"] == "1:00:20.000"
    assert cell(board, "team3", "sum") == {"problem_id": "sum", "num_judged": 0, "num_pending": 0, "score": 0}
    assert row(board, "team3")["score"]["time"] is None
    assert board["state"] == api.get(f"{C}/state").json()
    # the ranks are judge grade's: the same Board, the same standings()
    info = server.contest.info
    assert info.start_s is not None and info.end_s is not None
    with server.storage.read() as r:
        tries = attempts(r.counted((info.start_s, info.end_s)), frozen_from=None)
    grade_board, _ = build_board(server.contest, tries)
    assert isinstance(grade_board, Board)
    assert {s.contestant: s.rank for s in standings(grade_board)} == {r["team_id"]: r["rank"] for r in board["rows"]}


def test_pending_submissions_on_the_board(api: Api, server: Server) -> None:
    api.submit("team3")
    assert cell(api.get(f"{C}/scoreboard").json(), "team3", "sum")["num_pending"] == 1
    server.judging.claim(1)  # judging started: a judgement without a verdict
    (j,) = api.get(f"{C}/judgements").json()
    assert "judgement_type_id" not in j and "end_time" not in j and j["current"] is True
    assert cell(api.get(f"{C}/scoreboard").json(), "team3", "sum")["num_pending"] == 1


def test_the_board_is_ranked_once_per_change(api: Api, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    ranked: list[int] = []

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        ranked.append(1)
        return scoreboard_rows(*args, **kwargs)

    monkeypatch.setattr("judge.serve.services.board.board.scoreboard_rows", counting)
    first = api.get(f"{C}/scoreboard").json()
    again = [api.get(f"{C}/scoreboard").json() for _ in range(3)]
    assert len(ranked) == 1 and all(b["rows"] == first["rows"] for b in again)
    api.submit("team3")  # a change: ranked again, and the board shows it
    assert cell(api.get(f"{C}/scoreboard").json(), "team3", "sum")["num_pending"] == 1
    assert len(ranked) == 2
    server.judging.run_pending()
    assert row(api.get(f"{C}/scoreboard").json(), "team3")["score"]["score"] == 100.0
    assert len(ranked) == 3
    staff = api.request("GET", f"{C}/scoreboard", "admin").json()  # the same board for staff before the freeze
    assert staff["rows"] == api.get(f"{C}/scoreboard").json()["rows"] and len(ranked) == 3


def test_a_judge_error_is_never_charged_and_a_rejudge_replaces_it(root: Path, clock: FakeClock) -> None:
    contest = load_contest(root, FIXTURES)
    broken = ScriptedJudge({p.id: p.problem for p in contest.problems}, fail=True)
    server = make_server(root, clock, broken)
    api = Api.of(server)
    sid = api.submit("team1").json()["id"]
    server.judging.run_pending()
    (je,) = judgements_of(api, sid)
    assert je["judgement_type_id"] == "JE" and je["score"] == 0
    board = api.get(f"{C}/scoreboard").json()
    assert cell(board, "team1", "sum") == {"problem_id": "sum", "num_judged": 0, "num_pending": 0, "score": 0}
    broken.fail = False
    r = api.request("POST", f"{C}/submissions/{sid}/rejudge", "admin").json()
    assert r == {"submission_ids": [sid], "rejudging_id": "1"}  # a set that applies itself (issue 47)
    server.judging.run_pending()
    old, new = judgements_of(api, sid)
    assert (old["id"], old["current"], old["judgement_type_id"]) == (je["id"], False, "JE")
    assert (new["current"], new["judgement_type_id"]) == (True, "AC")
    assert row(api.get(f"{C}/scoreboard").json(), "team1")["score"]["score"] == 100.0
    server.close()


def test_rejudge_a_problem(api: Api, server: Server, clock: FakeClock) -> None:
    s1 = api.submit("team1").json()["id"]
    s2 = api.submit("team2", files={"sum.py": SUM_WA}).json()["id"]
    s3 = api.submit("team1", problem="divisor", files={"d.py": "print(1)"}).json()["id"]
    server.judging.run_pending()
    assert api.request("POST", f"{C}/problems/sum/rejudge").status_code == 401
    assert api.request("POST", f"{C}/problems/sum/rejudge", "team1").status_code == 403
    assert api.request("POST", f"{C}/problems/nosuch/rejudge", "judge").status_code == 404
    assert api.request("POST", f"{C}/submissions/99/rejudge", "judge").status_code == 404
    r = api.request("POST", f"{C}/problems/sum/rejudge", "judge")
    assert r.status_code == 202 and r.json() == {"submission_ids": [s1, s2], "rejudging_id": "1"}
    again = api.request("POST", f"{C}/problems/sum/rejudge", "judge").json()
    assert again == {"submission_ids": [], "rejudging_id": "2"}  # queued already
    clock.advance(5)
    assert server.judging.run_pending() == 2
    for sid in (s1, s2):
        js = judgements_of(api, sid)
        assert [j["current"] for j in js] == [False, True]
        assert js[0]["judgement_type_id"] == js[1]["judgement_type_id"]
    assert len(judgements_of(api, s3)) == 1
    superseded = [e for e in feed(api) if e["type"] == "judgements" and e["data"]["current"] is False]
    assert {e["data"]["submission_id"] for e in superseded} == {s1, s2}


def test_a_crash_loses_no_submission_and_judges_none_twice(root: Path, clock: FakeClock) -> None:
    first = make_server(root, clock)
    api = Api.of(first)
    s1 = api.submit("team1").json()["id"]
    s2 = api.submit("team2", files={"sum.py": SUM_WA}).json()["id"]
    (claimed,) = first.judging.claim(1)  # judging s1 had started when the server died
    pending = judgements_of(api, s1)
    assert len(pending) == 1 and "judgement_type_id" not in pending[0]
    first.storage.close()  # killed: nothing else is written

    contest = load_contest(root, FIXTURES)
    judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    second = make_server(root, clock, judge)
    api = Api.of(second)
    assert second.judging.pending() == 2
    assert second.judging.run_pending() == 2
    assert sorted(j.label for j in judge.calls) == ["submission 1 (team team1)", "submission 2 (team team2)"]
    (j1,) = judgements_of(api, s1)
    (j2,) = judgements_of(api, s2)
    assert j1["id"] == pending[0]["id"]  # the judgement started before the crash, now finished
    assert (j1["judgement_type_id"], j2["judgement_type_id"]) == ("AC", "WA")
    # the dead server's result, if it ever arrived, is not stored a second time
    assert second.judging.complete(claimed, judge(second.judging.job(claimed))) is False
    assert len(judgements_of(api, s1)) == 1
    assert len(api.get(f"{C}/runs?judgement_id={j1['id']}", "admin").json()) == 4
    second.close()


def test_freeze_and_thaw(api: Api, server: Server, clock: FakeClock) -> None:
    api.submit("team1")
    clock.t = FREEZE + 600
    late = api.submit("team2").json()["id"]
    server.judging.run_pending()
    state = api.get(f"{C}/state").json()
    assert state["frozen"] == "2030-01-01T14:00:00.000+00:00" and state["thawed"] is None
    public = api.get(f"{C}/scoreboard").json()
    assert cell(public, "team2", "sum") == {"problem_id": "sum", "num_judged": 0, "num_pending": 1, "score": 0}
    assert row(public, "team1")["score"]["score"] == 100.0
    assert api.get(f"{C}/scoreboard", "team2").json()["rows"] == public["rows"]  # frozen for teams too
    assert row(api.get(f"{C}/scoreboard", "admin").json(), "team2")["score"]["score"] == 100.0  # live
    assert [j["submission_id"] for j in api.get(f"{C}/judgements").json()] == ["1"]
    assert [j["submission_id"] for j in api.get(f"{C}/judgements", "team1").json()] == ["1"]
    assert [j["submission_id"] for j in api.get(f"{C}/judgements", "team2").json()] == ["1", late]
    assert api.get(f"{C}/submissions").json()[-1]["id"] == late  # the submission itself is public
    hidden = [e for e in feed(api) if e["type"] == "judgements" and e["data"]["submission_id"] == late]
    assert hidden == []
    assert [e["data"]["submission_id"] for e in feed(api, "team2") if e["type"] == "judgements"][-1] == late

    def thaw(user: str | None, when: str, cid: str = "test") -> object:
        return api.request("PATCH", C, user, json={"id": cid, "scoreboard_thaw_time": when})

    assert thaw(None, "2030-01-01T16:00:00Z").status_code == 401
    assert thaw("team1", "2030-01-01T16:00:00Z").status_code == 403
    assert thaw("judge", "2030-01-01T16:00:00Z").status_code == 403
    assert thaw("admin", "2030-01-01T16:00:00Z", cid="other").status_code == 409
    r = thaw("admin", "2030-01-01T14:30:00Z")
    assert r.status_code == 403 and "before the contest ends" in r.json()["message"]
    r = api.request("PATCH", C, "admin", json={"id": "test", "start_time": None})
    assert r.status_code == 403
    assert api.request("PATCH", C, "admin", json={"scoreboard_thaw_time": "x"}).status_code == 400
    assert thaw("admin", "not a time").status_code == 400
    clock.t = END + 60
    r = thaw("admin", "2030-01-01T16:00:00Z")  # in the future: scheduled
    assert r.status_code == 204 and r.content == b""
    assert api.get(C).json()["scoreboard_thaw_time"] == "2030-01-01T16:00:00.000+00:00"
    assert cell(api.get(f"{C}/scoreboard").json(), "team2", "sum")["num_pending"] == 1
    clock.t = END + HOUR
    board = api.get(f"{C}/scoreboard").json()
    assert board["state"]["thawed"] == "2030-01-01T16:00:00.000+00:00"
    assert cell(board, "team2", "sum")["score"] == 100.0
    assert [j["submission_id"] for j in api.get(f"{C}/judgements").json()] == ["1", late]
    revealed = [e for e in feed(api) if e["type"] == "judgements" and e["data"]["submission_id"] == late]
    assert revealed and revealed[-1]["data"]["judgement_type_id"] == "AC"
    assert [e["data"]["thawed"] for e in feed(api) if e["type"] == "state"][-1] is not None
    r = thaw("admin", "2030-01-01T17:00:00Z")
    assert r.status_code == 403 and "was thawed" in r.json()["message"]


def test_thaw_now(api: Api, clock: FakeClock) -> None:
    clock.t = END + 60
    r = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": "2030-01-01T15:00:00Z"})
    assert r.status_code == 200  # the past: thawed at the server's time, which the contest object says
    assert r.json()["scoreboard_thaw_time"] == "2030-01-01T15:01:00.000+00:00"
    assert api.get(f"{C}/state").json()["thawed"] == "2030-01-01T15:01:00.000+00:00"
    assert [e["data"].get("scoreboard_thaw_time") for e in feed(api) if e["type"] == "contest"][-1] is not None


def test_no_freeze_nothing_to_thaw(tmp_path: Path) -> None:
    clock = FakeClock(END + 60)
    api = Api.of(make_server(write_contest(tmp_path / "c", freeze="0:00:00"), clock))
    r = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": "2030-01-01T15:00:00Z"})
    assert r.status_code == 403 and "never frozen" in r.json()["message"]
    assert api.get(f"{C}/state").json()["frozen"] is None


def test_real_judging_in_the_sandbox(root: Path, clock: FakeClock, sandbox_runner: Runner) -> None:
    contest = load_contest(root, FIXTURES)
    env = Environment(sandbox_runner, load_languages(), toolchain())
    with Packages({p.id: p.problem for p in contest.problems}, env) as packages:
        server = make_server(root, clock, local_judge(packages, env))
        api = Api.of(server)
        subs = {
            "AC": api.submit("team1"),
            "WA": api.submit("team2", files={"sum.py": SUM_WA}),
            "CE": api.submit("team3", files={"sum.py": "def (:\n"}),
            "folder": api.submit(
                "team3",
                files={
                    "main.py": "import helper\nhelper.run()\n",
                    "helper.py": "def run():\n    a, b = map(int, input().split())\n    print(a + b)\n",
                },
            ),
        }
        assert all(r.status_code == 201 for r in subs.values())
        assert subs["folder"].json()["entry_point"] == "main.py"
        assert server.judging.run_pending() == 4
        got = {k: judgements_of(api, r.json()["id"])[0] for k, r in subs.items()}
        assert {k: j["judgement_type_id"] for k, j in got.items()} == {
            "AC": "AC",
            "WA": "WA",
            "CE": "CE",
            "folder": "AC",
        }
        assert got["AC"]["score"] == 100.0 and got["WA"]["score"] == 0
        runs = api.get(f"{C}/runs?judgement_id={got['AC']['id']}", "team1").json()
        assert [r["ordinal"] for r in runs] == [1, 2, 3, 4] and {r["judgement_type_id"] for r in runs} == {"AC"}
        assert all(r["run_time"] >= 0 for r in runs)
        assert api.get(f"{C}/runs?judgement_id={got['CE']['id']}", "admin").json() == []
        board = api.get(f"{C}/scoreboard").json()
        assert [(r["team_id"], r["rank"]) for r in board["rows"]] == [("team3", 1), ("team1", 1), ("team2", 3)]
        server.close()


def test_job_files_follow_the_entry_point(server: Server) -> None:
    from judge.serve.model.upload import job_files

    lang = server.languages["python3"]
    files = [SourceFile("a.py", b""), SourceFile("solve.py", b""), SourceFile("util.py", b"")]
    assert job_files(files, lang, "solve.py") == (tuple(files), "solve")
    assert job_files(files[:1], lang, None) == ((files[0],), None)
    assert job_files(files, lang, None)[1] == "submission"
    assert SUM_AC  # the fixture source judged above


def test_group_scoreboard(tmp_path: Path, clock: FakeClock) -> None:
    root = write_contest(tmp_path / "c")
    teams = json.loads((root / "teams.json").read_text())
    teams[0]["group_ids"] = []
    (root / "teams.json").write_text(json.dumps(teams))
    server = make_server(root, clock)
    api = Api.of(server)
    api.submit("team1")
    api.submit("team3", files={"sum.py": SUM_WA})
    server.judging.run_pending()
    assert [r["team_id"] for r in api.get(f"{C}/scoreboard").json()["rows"]] == ["team1", "team2", "team3"]
    group = api.get(f"{C}/scoreboard?group_id=g").json()
    assert [(r["rank"], r["team_id"]) for r in group["rows"]] == [(1, "team2"), (1, "team3")]
    assert api.get(f"{C}/scoreboard?group_id=nosuch").status_code == 400
    server.close()


def test_a_problem_removed_before_judging_is_a_judge_error(root: Path, clock: FakeClock) -> None:
    first = make_server(root, clock)
    sid = Api.of(first).submit("team1", problem="divisor", files={"d.py": "print(1)"}).json()["id"]
    first.close()
    (root / "problems.yaml").write_text("- {id: sum, label: A}\n")
    second = make_server(root, clock)
    api = Api.of(second)
    assert second.judging.run_pending() == 1  # judged (as JE), not retried forever
    (j,) = judgements_of(api, sid)
    assert j["judgement_type_id"] == "JE"
    assert [p["problem_id"] for p in row(api.get(f"{C}/scoreboard").json(), "team1")["problems"]] == ["sum"]
    second.close()


def test_a_database_of_the_previous_schema_is_brought_up_to_date_and_one_of_another_refused(tmp_path: Path) -> None:
    import sqlite3

    from judge.serve.storage import StorageError, open_storage
    from judge.serve.storage.schema import SCHEMA_VERSION

    old = tmp_path / "old.sqlite"
    conn = sqlite3.connect(old)
    conn.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema', '1');"
        "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, judgement_id INTEGER NOT NULL, "
        "ordinal INTEGER NOT NULL, name TEXT NOT NULL, verdict TEXT NOT NULL, judgement_type TEXT NOT NULL, "
        "time_s REAL NOT NULL, run_time REAL NOT NULL, wall_time_s REAL NOT NULL, memory_kib INTEGER NOT NULL, "
        "score REAL NOT NULL, message TEXT NOT NULL, UNIQUE (judgement_id, ordinal));"
        "INSERT INTO runs VALUES (1, 1, 1, 'sample/1', 'AC', 'AC', 0, 0.1, 0.2, 100, 1, 'kept');"
    )
    conn.close()
    storage = open_storage(old)
    assert storage.schema_version() == SCHEMA_VERSION
    with storage.read() as r:
        (run,) = r.runs()
    assert (run.message, run.transcript) == ("kept", "")
    storage.close()
    assert open_storage(old).schema_version() == SCHEMA_VERSION  # and opening it again changes nothing
    conn = sqlite3.connect(old)
    conn.execute("INSERT INTO schema_version VALUES (99, 0)")
    conn.commit()
    conn.close()
    with pytest.raises(StorageError, match="another version"):
        open_storage(old)
