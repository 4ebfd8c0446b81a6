"""Balloons (issue 30), through the HTTP stack: each team's first solve of each problem, in order, with the
problem's colour and the first-to-solve flag; live during the freeze (staff only); "done" kept; an
ignored submission's balloon goes and the first to solve moves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.serve.site.server import Server

C = "/api/contests/test"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    s = make_server(write_contest(tmp_path / "contest", scoreboard_type="pass-fail", rate=(20, 60)), clock)
    yield s
    s.close()


@pytest.fixture
def api(server: Server) -> Api:
    return Api.of(server)


def listed(api: Api, user: str = "judge") -> list[tuple[str, str, str, bool, bool]]:
    r = api.get(f"{C}/balloons", user)
    assert r.status_code == 200, r.text
    return [(b["submission_id"], b["team_id"], b["problem_id"], b["first_to_solve"], b["done"]) for b in r.json()]


def test_balloons(api: Api, server: Server, clock: FakeClock) -> None:
    for team, code in (("team1", SUM_WA), ("team1", SUM_AC), ("team2", SUM_AC), ("team1", SUM_AC)):
        clock.advance(60)
        assert api.submit(team, files={"sum.py": code}).status_code == 201
    server.judging.run_pending()
    assert listed(api) == [("2", "team1", "sum", True, False), ("3", "team2", "sum", False, False)]
    (first, _) = api.get(f"{C}/balloons", "admin").json()
    assert first["rgb"] == "#f00" and first["label"] == "A" and first["team"] == "Zeta"
    # the freeze does not stop them
    clock.t = T0 + 4.5 * HOUR
    assert api.submit("team3", files={"sum.py": SUM_AC}).status_code == 201
    server.judging.run_pending()
    assert [b[1] for b in listed(api)] == ["team1", "team2", "team3"]
    assert api.request("POST", f"{C}/balloons/2/done", "judge").status_code == 200
    assert listed(api)[0][4] is True
    assert api.request("POST", f"{C}/balloons/1/done", "judge").status_code == 404  # a WA: no balloon
    # ignoring the first solve: its balloon goes, the first to solve moves
    assert api.request("POST", f"{C}/submissions/2/ignore", "admin").status_code == 200
    assert listed(api)[0] == ("3", "team2", "sum", True, False)
    # who may
    assert api.get(f"{C}/balloons").status_code == 401
    assert api.get(f"{C}/balloons", "team1").status_code == 403
    assert api.request("POST", f"{C}/balloons/3/done", "team2").status_code == 403


def test_the_balloons_page(api: Api, server: Server) -> None:
    assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
    server.judging.run_pending()
    judge = login(server, "judge")
    page = judge.get("/admin/balloons").text
    assert 'id="balloon-1"' in page and 'data-first="sum"' in page and "background:#f00" in page
    r = judge.post("/admin/balloons/1/done", data={"csrf": csrf_of(page), "done": "1"})
    assert r.status_code == 303
    assert 'id="done-1">undo' in judge.get("/admin/balloons?fragment=1").text
    assert login(server, "team1").get("/admin/balloons").status_code == 403
    assert "balloon.done" in [e["action"] for e in api.get(f"{C}/audit-log", "admin").json()]
