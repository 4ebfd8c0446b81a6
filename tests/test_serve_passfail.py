"""A pass-fail contest in `judge serve`: the contest object, judgement types, a hand-computed scoreboard
through a contest (a compile error before an accepted one, a wrong answer after it, a rejudge turning an AC
into a WA and back, the freeze with pending cells and a first solve hidden until the thaw), the awards,
the board page, and how contest.yaml's scoreboard_type and penalty_time are read."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import FIXTURES, T0, Api, FakeClock, fake_result, make_server, write_contest
from spec_shapes import AWARDS, CONTEST, JUDGEMENT_TYPES, SCOREBOARD, errors
from test_serve_pages import login

from judge.judging.jobs import JudgeJob, SourceFile
from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict
from judge.package.problem import Problem
from judge.serve.model.contest import ContestError, load_contest
from judge.serve.site.server import Server

C = "/api/contests/test"
MIN = 60.0


class MarkedJudge:
    """Judges by a mark in the source (``# verdict: CE``; else as the scripted judge: AC if it adds), or
    by ``override[submission id]`` (a rejudge that decides otherwise)."""

    def __init__(self, problems: Mapping[str, Problem]) -> None:
        self.problems = problems
        self.override: dict[int, Verdict] = {}

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        problem = self.problems[job.problem]
        sid = int(re.findall(r"submission (\d+)", job.label)[0])
        text = b"".join(f.data for f in job.files).decode()
        mark = re.search(r"# verdict: (\w+)", text)
        verdict = self.override.get(sid) or (Verdict(mark.group(1)) if mark else None)
        if verdict is None:
            return fake_result(job, problem)
        if verdict is Verdict.AC:
            return fake_result(replace(job, files=(SourceFile("sum.py", b"print(a + b)"),)), problem)
        return SubmissionResult(problem.id, job.label, job.language, verdict, 0.0, problem.secret.max_score, 0.0, 0)


def source(verdict: str) -> dict[str, str]:
    return {"sum.py": f"# verdict: {verdict}\nprint(1)\n"}


@pytest.fixture
def contest(tmp_path: Path) -> Path:
    return write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=('penalty_time: "0:20:00"',))


@pytest.fixture
def judge(contest: Path) -> MarkedJudge:
    return MarkedJudge({p.id: p.problem for p in load_contest(contest, FIXTURES).problems})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def server(contest: Path, clock: FakeClock, judge: MarkedJudge):  # type: ignore[no-untyped-def]
    s = make_server(contest, clock, judge)
    yield s
    s.close()


def at(clock: FakeClock, minute: float) -> None:
    clock.t = T0 + minute * MIN


def submit(api: Api, server: Server, clock: FakeClock, minute: float, team: str, problem: str, verdict: str) -> str:
    at(clock, minute)
    r = api.submit(team, problem=problem, files=source(verdict))
    assert r.status_code == 201, r.text
    server.judging.run_pending()
    return str(r.json()["id"])


def reltime(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}:00.000"


def cell(problem: str, judged: int, pending: int = 0, solved_at: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "problem_id": problem,
        "num_judged": judged,
        "num_pending": pending,
        "solved": solved_at is not None,
    }
    if solved_at is not None:
        out["time"] = reltime(solved_at)
    return out


def row(rank: int, team: str, solved: int, total: int, last: int | None, *cells: dict[str, Any]) -> dict[str, Any]:
    score = {"num_solved": solved, "total_time": reltime(total), "time": None if last is None else reltime(last)}
    return {"rank": rank, "team_id": team, "score": score, "problems": list(cells)}


def board(api: Api, user: str | None) -> list[dict[str, Any]]:
    doc = api.get(f"{C}/scoreboard", user).json()
    assert errors(SCOREBOARD, doc) == []
    return list(doc["rows"])


def first(api: Api, user: str | None) -> dict[str, list[str]]:
    awards = api.get(f"{C}/awards", user).json()
    assert errors(AWARDS, awards) == []
    # the first-to-solve awards (issue 31 adds the winner, medals and group winners: tests/test_serve_awards.py)
    return {a["id"]: a["team_ids"] for a in awards if a["id"].startswith("first-to-solve-")}


# Before the freeze (hand-computed; penalty 20 min; times truncated to the minute):
#   team2 Alpha: A solved at 25 (1 try): 25; B one WA.                       1 solved, 25 min
#   team1 Zeta: A WA at 5, CE at 10 (free), AC at 20 (2 tries: 20 + 20 = 40), WA at 30 (after: ignored)
#   team3 Mu: A WA at 50, AC at 55: 75
BEFORE = [
    row(1, "team2", 1, 25, 25, cell("sum", 1, solved_at=25), cell("divisor", 1)),
    row(2, "team1", 1, 40, 20, cell("sum", 2, solved_at=20), cell("divisor", 0)),
    row(3, "team3", 1, 75, 55, cell("sum", 2, solved_at=55), cell("divisor", 0)),
]


def test_a_pass_fail_contest_hand_computed(server: Server, clock: FakeClock, judge: MarkedJudge) -> None:
    api = Api.of(server)
    contest = api.get(f"{C}?strict=1").json()  # the spec's properties only (no DOMjudge's shortname)
    assert errors(CONTEST, contest) == []
    assert (contest["scoreboard_type"], contest["penalty_time"]) == ("pass-fail", "0:20:00.000")
    types = api.get(f"{C}/judgement-types").json()
    assert errors(JUDGEMENT_TYPES, types) == []
    assert {t["id"]: (t["penalty"], t["solved"]) for t in types} == {
        "AC": (False, True),
        "WA": (True, False),
        "TLE": (True, False),
        "MLE": (True, False),
        "RTE": (True, False),
        "OLE": (True, False),
        "CE": (False, False),
        "JE": (False, False),
    }
    for minute, team, problem, verdict in [
        (5.5, "team1", "sum", "WA"),
        (10, "team1", "sum", "CE"),
        (15, "team2", "divisor", "WA"),
        (20.9, "team1", "sum", "AC"),  # minute 20: truncated
        (25, "team2", "sum", "AC"),  # submission 5
        (30, "team1", "sum", "WA"),
        (50, "team3", "sum", "WA"),
        (55, "team3", "sum", "AC"),
    ]:
        submit(api, server, clock, minute, team, problem, verdict)
    at(clock, 60)
    assert board(api, None) == BEFORE == board(api, "admin")
    assert first(api, None) == {"first-to-solve-sum": ["team1"], "first-to-solve-divisor": []}

    # a rejudge turns Alpha's AC into a WA: Alpha drops to the bottom; and back
    judge.override[5] = Verdict.WA
    assert api.request("POST", f"{C}/submissions/5/rejudge", "admin").status_code == 202
    server.judging.run_pending()
    assert board(api, None) == [
        row(1, "team1", 1, 40, 20, cell("sum", 2, solved_at=20), cell("divisor", 0)),
        row(2, "team3", 1, 75, 55, cell("sum", 2, solved_at=55), cell("divisor", 0)),
        row(3, "team2", 0, 0, None, cell("sum", 1), cell("divisor", 1)),
    ]
    judge.override[5] = Verdict.AC
    api.request("POST", f"{C}/submissions/5/rejudge", "admin")
    server.judging.run_pending()
    assert board(api, None) == BEFORE

    # the freeze (at 4:00): Mu solves B at 245 (the first to solve it), Zeta fails B at 250
    submit(api, server, clock, 245, "team3", "divisor", "AC")
    submit(api, server, clock, 250, "team1", "divisor", "WA")
    at(clock, 260)
    live = [
        row(1, "team3", 2, 320, 245, cell("sum", 2, solved_at=55), cell("divisor", 1, solved_at=245)),
        row(2, "team2", 1, 25, 25, cell("sum", 1, solved_at=25), cell("divisor", 1)),
        row(3, "team1", 1, 40, 20, cell("sum", 2, solved_at=20), cell("divisor", 1)),
    ]
    frozen = [
        row(1, "team2", 1, 25, 25, cell("sum", 1, solved_at=25), cell("divisor", 1)),
        row(2, "team1", 1, 40, 20, cell("sum", 2, solved_at=20), cell("divisor", 0, pending=1)),
        row(3, "team3", 1, 75, 55, cell("sum", 2, solved_at=55), cell("divisor", 0, pending=1)),
    ]
    assert board(api, "admin") == live == board(api, "judge")
    assert board(api, None) == frozen == board(api, "team1") == board(api, "team3")
    assert first(api, "admin")["first-to-solve-divisor"] == ["team3"]
    assert first(api, None)["first-to-solve-divisor"] == [] == first(api, "team3")["first-to-solve-divisor"]
    # the team sees its own verdict (the judgements), never another team's during the freeze
    assert [j["judgement_type_id"] for j in api.get(f"{C}/judgements?submission_id=9", "team3").json()] == ["AC"]
    assert "judgement_type_id" not in str(api.get(f"{C}/judgements?submission_id=9", "team1").json())

    # after the end an admin thaws: everyone sees the live board
    at(clock, 310)
    r = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": "2030-01-01T15:05:00Z"})
    assert r.status_code == 200, r.text
    assert board(api, None) == live == board(api, "team1")
    assert first(api, None) == {"first-to-solve-sum": ["team1"], "first-to-solve-divisor": ["team3"]}


def test_the_board_page_draws_pass_fail_cells(server: Server, clock: FakeClock) -> None:
    api = Api.of(server)
    submit(api, server, clock, 5, "team1", "sum", "WA")
    submit(api, server, clock, 20, "team1", "sum", "AC")
    submit(api, server, clock, 25, "team2", "sum", "AC")
    submit(api, server, clock, 30, "team3", "divisor", "TLE")
    at(clock, 40)
    html = api.get("/scoreboard").text
    cells = re.findall(r'<td class="cell pf ([^"]+)" title="([^"]*)">(.*?)</td>', html)
    got = [(css, re.sub(r"<[^>]+>", "", body).replace("&nbsp;", " ")) for css, _, body in cells]
    # Alpha (A at 25: 25 min), Zeta (A at 20 after a WA: 40 min; the first to solve A), Mu (B tried)
    assert got == [
        ("pf-solved", "1 / 25"),
        ("none", ""),
        ("pf-first", "2 / 20"),
        ("none", ""),
        ("none", ""),
        ("pf-tried", "1 / –"),
    ]
    assert re.findall(r'<td class="num score solved">(\d+)</td>\s*<td class="num time">([\d.]+)</td>', html) == [
        ("1", "25"),
        ("1", "40"),
        ("0", "0"),
    ]
    assert "first to solve it" in html and "20 penalty minutes" in html


def test_pending_cells_on_the_page_during_the_freeze(server: Server, clock: FakeClock) -> None:
    api = Api.of(server)
    submit(api, server, clock, 245, "team1", "sum", "AC")
    at(clock, 250)
    public = api.get("/scoreboard").text
    assert re.findall(r'<td class="cell pf pf-pending"[^>]*>(.*?)</td>', public) == [
        '<span class="score">0&nbsp;/&nbsp;–</span><br><span class="small pf-waiting">+1 pending</span>'
    ]
    assert "cell pf pf-first" not in public  # a first solve in the freeze is hidden until the thaw
    assert "cell pf pf-first" in login(server, "admin").get("/scoreboard").text  # staff: live


@pytest.mark.parametrize(
    ("lines", "want"),
    [
        ((), ("pass-fail", 1200.0)),  # the spec's default type; the ICPC's 20 minutes
        (("scoreboard_type: pass-fail", "penalty_time: 30"), ("pass-fail", 1800.0)),  # minutes, as older packages
        (("scoreboard_type: pass-fail", 'penalty_time: "0:10:30"'), ("pass-fail", 630.0)),
        (("scoreboard_type: score",), ("score", 1200.0)),
    ],
)
def test_contest_yaml_scoreboard_type_and_penalty(
    tmp_path: Path, lines: tuple[str, ...], want: tuple[str, float]
) -> None:
    root = write_contest(tmp_path / "c")
    text = (root / "contest.yaml").read_text().replace("scoreboard_type: score\n", "")
    (root / "contest.yaml").write_text(text + "".join(f"{line}\n" for line in lines))
    info = load_contest(root, FIXTURES).info
    assert (info.scoreboard_type.value, info.penalty_s) == want


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("penalty_time: 1:00:00", "not between 0 and the contest's duration"),  # YAML's 3600: minutes
        ('penalty_time: "-0:20:00"', "not between 0"),
        ("penalty_time: true", "penalty_time"),
        ("judge_all_tests: maybe", "judge_all_tests"),
        ('shortname: ""', "shortname"),
    ],
)
def test_bad_pass_fail_settings_are_one_line(tmp_path: Path, line: str, message: str) -> None:
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=(line,))
    with pytest.raises(ContestError, match=message):
        load_contest(root, FIXTURES)


def test_a_contest_keeps_its_type_once_it_has_submissions(tmp_path: Path, clock: FakeClock) -> None:
    root = write_contest(tmp_path / "c")  # score
    server = make_server(root, clock)
    assert Api.of(server).submit("team1").status_code == 201
    server.close()
    text = (root / "contest.yaml").read_text().replace("scoreboard_type: score\n", "")
    (root / "contest.yaml").write_text(text)  # now the spec's default: pass-fail
    with pytest.raises(ContestError, match="holds the submissions of a score contest.*scoreboard_type: score"):
        make_server(root, clock)
    (root / "contest.yaml").write_text(text + "scoreboard_type: score\n")
    make_server(root, clock).close()
    empty = write_contest(tmp_path / "e")
    make_server(empty, clock).close()
    (empty / "contest.yaml").write_text((empty / "contest.yaml").read_text().replace("score", "pass-fail"))
    make_server(empty, clock).close()  # no submission yet: it may change
    with sqlite3.connect(empty / "contest.sqlite") as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'scoreboard_type'").fetchone() == ("pass-fail",)


def test_a_contest_of_an_earlier_release_without_the_key_must_say_score(tmp_path: Path) -> None:
    """Releases before schema 4 ran score contests only; their contest.yaml may lack scoreboard_type, which
    now means pass-fail: the upgraded database remembers `score` and says what to write."""
    root = tmp_path / "old"
    shutil.copytree(FIXTURES / "serve_v2", root, ignore=shutil.ignore_patterns("answers.json", "README.md"))
    yaml_text = (root / "contest.yaml").read_text()
    (root / "contest.yaml").write_text(yaml_text.replace("scoreboard_type: score\n", ""))
    with pytest.raises(ContestError, match="write `scoreboard_type: score` in contest.yaml"):
        make_server(root, FakeClock(T0))
    with sqlite3.connect(root / "contest.sqlite") as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'scoreboard_type'").fetchone() == ("score",)  # upgraded
    (root / "contest.yaml").write_text(yaml_text)
    make_server(root, FakeClock(T0)).close()
