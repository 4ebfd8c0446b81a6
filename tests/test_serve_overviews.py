"""The jury's overviews (issue 47): the team overview (logged in now or last seen, rank, submissions,
solved, pending, open questions) and the statistics per problem and language with their charts; the jury's
only. Judging is scripted (serve_fixtures.ScriptedJudge)."""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, make_server, write_contest
from test_serve_pages import client, login

from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.judging import overview
from judge.serve.site.server import Server

C = "/api/contests/test"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    clock = FakeClock(T0 + HOUR)
    s = make_server(write_contest(tmp_path / "contest", rate=(20, 60)), clock)
    api = Api.of(s)
    login(s, "team1")  # a page session: logged in now
    for team, code in (("team1", SUM_WA), ("team1", SUM_AC), ("team2", SUM_AC)):
        clock.advance(600)
        assert api.submit(team, files={"sum.py": code}).status_code == 201
    s.judging.run_pending()
    clock.advance(60)
    assert api.submit("team3", problem="divisor", files={"d.py": "print(1)\n"}).status_code == 201  # pending
    q = api.request("POST", f"{C}/clarifications", "team2", json={"text": "Is 0 allowed?"})
    assert q.status_code == 201
    asked = api.request("POST", f"{C}/clarifications", "team3", json={"text": "Time limit?"}).json()
    answer = {"text": "1 s.", "reply_to_id": asked["id"], "to_team_ids": ["team3"]}
    assert api.request("POST", f"{C}/clarifications", "judge", json=answer).status_code == 201
    yield s
    s.close()


def cells(html: str, team: str) -> list[str]:
    row = html.split(f'id="team-{team}"')[1].split("</tr>")[0]
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def test_the_team_overview(server: Server) -> None:
    html = htmllib.unescape(login(server, "judge").get("/admin/overview").text)
    assert "3 teams · 1 logged in now · 1 submission(s) pending · 1 open question(s)" in html
    one, two, three = cells(html, "team1"), cells(html, "team2"), cells(html, "team3")
    # rank, team, logged in, last seen, submissions, solved, pending, open questions, last submission
    assert one[2].startswith("● now") and one[4:8] == ["2", "1", "0", "0"] and one[8] == "1:20:00"
    assert two[2] == "no" and two[4:8] == ["1", "1", "0", "1"] and "ago" in two[3]
    assert three[4:8] == ["1", "0", "1", "0"]
    assert html.index('id="team-team3"') > html.index('id="team-team1"')  # by rank: team3 solved nothing
    assert login(server, "team1").get("/admin/overview").status_code == 403
    assert client(server).get("/admin/overview").headers["location"] == "/login"


def test_the_statistics_with_a_chart(server: Server) -> None:
    stats = overview.statistics(server, Viewer(Role.JUDGE, "judge", "judge"))
    (sum_stats, divisor) = stats.problems
    assert (sum_stats.attempts, sum_stats.accepted, sum_stats.teams_tried, sum_stats.teams_solved) == (3, 2, 2, 2)
    assert sum_stats.first_solve_s == 4800 and sum_stats.first_team == "Zeta"  # 1:20:00, team1
    assert sum_stats.verdicts == {"AC": 2, "WA": 1} and (divisor.attempts, divisor.accepted) == (1, 0)
    assert sum(b.accepted + b.rejected + b.pending for b in stats.buckets) == stats.total == 4
    assert sum(b.pending for b in stats.buckets) == 1 and stats.buckets[0].start_s == 0
    html = htmllib.unescape(login(server, "admin").get("/admin/statistics").text)
    chart = html.split('id="time-chart"')[1].split("</figure>")[0]
    assert chart.count('<rect class="accepted"') == 2 and chart.count('<rect class="rejected"') == 1
    assert chart.count('<rect class="pending"') == 1 and "5:00" in chart  # the contest's hours on the axis
    assert 'id="problem-chart"' in html and 'id="language-chart"' in html
    first = html.split('id="problem-sum"')[1].split("</tr>")[0]
    assert "1:20:00" in first and "Zeta" in first
    assert login(server, "team2").get("/admin/statistics").status_code == 403
