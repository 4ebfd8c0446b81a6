"""What the teams and the jury see on the pages (issue 43, the Chromium walk's findings), through the real app
(HTTP, the fake clock, the scripted judge): the contest clock before, during and after the contest; the ICPC
view of a pass-fail contest (no scores); a TLE shown as more than the limit to its team; pending and judging;
times as contest time; the print queue's team names and delivered mark; confirmations; the browser's 404
page and the favicon; the team's own row, the problems' colours and the freeze time on the board; the
replay's board cells; the resolver without the jury's navigation. Each test fails without its fix.
"""

from __future__ import annotations

import html as htmllib
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, db, fake_result, make_server, write_contest
from test_serve_pages import csrf_of, login, submit

from judge.judging.jobs import JudgeJob
from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict
from judge.serve.model.contest import load_contest
from judge.serve.site.server import Server
from judge.serve.storage import open_storage
from judge.serve.storage.schema import SCHEMA_VERSION

C = "/api/contests/test"
SUM_TLE = "while True:\n    pass\n"


def tle_or_fake(server_problems: dict) -> object:
    """The scripted judge, and a TLE on the last test (2.015 s measured) for a program that never ends."""

    def judge(job: JudgeJob) -> SubmissionResult:
        problem = server_problems[job.problem]
        result = fake_result(job, problem)
        if b"while True" not in b"".join(f.data for f in job.files):
            return result
        last = replace(result.tests[-1], verdict=Verdict.TLE, time_s=2.015, wall_time_s=2.1)
        return replace(result, verdict=Verdict.TLE, tests=(*result.tests[:-1], last))

    return judge


def open_ui(root: Path, clock: FakeClock) -> Server:
    contest = load_contest(root, Path(__file__).parent / "fixtures")
    return make_server(root, clock, tle_or_fake({p.id: p.problem for p in contest.problems}))  # type: ignore[arg-type]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 - 147)  # 2 min 27 s before the start


@pytest.fixture
def passfail(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    root = write_contest(tmp_path / "pf", scoreboard_type="pass-fail", extra=('penalty_time: "0:20:00"',))
    s = open_ui(root, clock)
    yield s
    s.close()


@pytest.fixture
def scored(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    s = open_ui(write_contest(tmp_path / "sc"), clock)
    yield s
    s.close()


def text(r: object) -> str:
    return htmllib.unescape(r.text)  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------------ the clock


def test_the_contest_clock_before_during_and_after(passfail: Server, clock: FakeClock) -> None:
    team = login(passfail, "team1")
    board = text(team.get("/scoreboard"))
    assert "-0:02:27" not in board and "The contest has not started yet" in board
    assert "The contest starts in" in board and 'id="countdown"' in board
    page = text(team.get("/submit"))
    assert 'id="submit-closed"' in page and "has not started yet" in page and 'id="submit-form"' not in page
    clock.t = T0 + 2 * HOUR + 5
    status = text(team.get("/status"))
    assert 'id="time-left"' in status and "2:59:55" in status and 'data-left-s="10795.0"' in status
    board = text(team.get("/scoreboard?fragment=1"))
    assert "2:00:05 into the contest" in board
    assert "the scoreboard freezes 4:00:00 into the contest" in board  # contest.yaml: the last hour
    assert 'id="submit-form"' in team.get("/submit").text and "/submit?problem=sum" in team.get("/problems").text
    clock.t = T0 + 5 * HOUR + 27 * 60  # 27 minutes after the end
    board = text(team.get("/scoreboard"))
    line = board.split('id="board-clock">')[1].split("</p>")[0]
    assert line.startswith("The contest has ended ·") and "5:27" not in board and "frozen" in line
    page = text(team.get("/submit"))
    assert 'id="submit-form"' not in page and "The contest has ended: no more submissions" in page
    for path in ("/problems", "/problems/sum/"):
        assert "/submit?problem=" not in team.get(path).text, path
    status = team.get("/status").text
    assert "The contest has ended" in status and "data-live-done" in status
    assert 'id="contest-ended"' in team.get("/submissions").text  # on every page


def test_freeze_banner_and_board_show_contest_time_not_iso(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + 4 * HOUR + 60
    team = login(passfail, "team1")
    page = team.get("/scoreboard").text
    banner = text(team.get("/scoreboard")).split('id="frozen">')[1].split("</p>")[0]
    assert "4:00:00 into the contest" in banner and ".000+00:00" not in banner.split("datetime=")[0]
    assert '<time class="clock" datetime="2030-01-01T14:00:00.000+00:00">14:00:00 UTC</time>' in page


# ------------------------------------------------------------------------------------------------ ICPC view


def test_a_pass_fail_contest_shows_no_scores(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    team = login(passfail, "team1")
    submit(team, SUM_WA)
    passfail.judging.run_pending()
    mine = team.get("/submissions?fragment=1").text
    assert "Score" not in mine and 'class="verdict wa">WA' in mine
    feedback = team.get("/submissions/1").text
    assert "<dt>Score</dt>" not in feedback and "/ 100" not in feedback
    for path in ("/problems", "/problems/sum/"):
        assert "Max score" not in team.get(path).text, path
    judge = login(passfail, "judge")
    assert "Score" not in judge.get("/admin?fragment=1").text
    detail = judge.get("/admin/submissions/1").text
    assert "<dt>Score</dt>" not in detail and '<th class="num">Score</th>' not in detail


def test_a_score_contest_keeps_its_scores(scored: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    team = login(scored, "team1")
    submit(team, SUM_AC)
    scored.judging.run_pending()
    assert '<th class="num">Score</th>' in team.get("/submissions?fragment=1").text
    assert "Max score" in team.get("/problems").text and "<dt>Score</dt>" in team.get("/submissions/1").text


# ------------------------------------------------------------------------------------------------ verdicts


def test_a_tle_is_shown_to_its_team_as_more_than_the_limit(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    team = login(passfail, "team1")
    submit(team, SUM_TLE)
    passfail.judging.run_pending()
    page = text(team.get("/submissions/1"))
    assert "> 1 s" in page and "2.015" not in page  # sum's time limit: 1 s
    staff = text(login(passfail, "judge").get("/admin/submissions/1"))
    assert "2.015" in staff  # the jury sees what was measured
    runs = Api.of(passfail).get(f"{C}/runs?judgement_id=1", "team1").json()
    assert max(r["run_time"] for r in runs) == 2.015  # the API's number is the measurement


def test_held_is_pending_and_taken_is_judging(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    admin = login(passfail, "admin")
    token = csrf_of(admin.get("/admin/judging").text)
    r = admin.post("/admin/judging", data={"csrf": token, "action": "pause", "confirmed": "yes"})
    assert "judging is paused" in text(admin.get(r.headers["location"]))
    team = login(passfail, "team1")
    submit(team, SUM_AC)
    assert passfail.judging.run_pending() == 0  # paused: held
    row = team.get("/submissions?fragment=1").text
    assert ">pending<" in row and "judging…" not in row
    assert ">pending<" in team.get("/submissions/1").text
    r = admin.post("/admin/judging", data={"csrf": token, "action": "resume"})
    assert "judging is resumed" in text(admin.get(r.headers["location"]))
    r = admin.post("/admin/judging", data={"csrf": token, "action": "hold", "problem_id": "sum"})
    assert "problem sum is held" in text(admin.get(r.headers["location"]))
    r = admin.post("/admin/judging", data={"csrf": token, "action": "release", "problem_id": "sum"})
    assert "problem sum is released" in text(admin.get(r.headers["location"]))
    (claimed,) = passfail.judging.claim(1)  # a judge took it, not done yet
    assert "judging…" in team.get("/submissions?fragment=1").text
    passfail.judging.complete(claimed, passfail.judging.judge(claimed))
    assert 'class="verdict ac">AC' in team.get("/submissions?fragment=1").text


# ------------------------------------------------------------------------------------------------ balloons, prints


def test_balloons_and_prints_show_contest_time_and_the_team(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR + 125
    team = login(passfail, "team1")
    submit(team, SUM_AC)
    passfail.judging.run_pending()
    r = team.post("/print", data={"csrf": csrf_of(team.get("/print").text)}, files={"file": ("a.py", b"x = 1\n")})
    assert r.status_code == 303
    judge = login(passfail, "judge")
    balloons = text(judge.get("/admin/balloons?fragment=1"))
    assert "1:02:05" in balloons and "11:02:05.000+00:00</td>" not in balloons
    queue = text(judge.get("/admin/prints?fragment=1"))
    head = queue.split('class="clar-head">')[1].split("<form")[0]
    assert "1:02:05" in head and "Zeta" in head and "team team1 (team1)" not in head
    assert "not delivered" in head and 'id="delivered-1"' in queue
    assert "1:02:05" in text(team.get("/print"))


def test_the_jury_marks_a_print_out_delivered(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    team = login(passfail, "team1")
    team.post("/print", data={"csrf": csrf_of(team.get("/print").text)}, files={"file": ("a.py", b"x = 1\n")})
    judge = login(passfail, "judge")
    token = csrf_of(judge.get("/admin/prints").text)
    clock.advance(60)
    r = judge.post("/admin/prints/1/delivered", data={"csrf": token, "delivered": "1"})
    assert r.status_code == 303 and r.headers["location"] == "/admin/prints"
    queue = text(judge.get("/admin/prints?fragment=1"))
    assert 'data-delivered="1"' in queue and "✓ delivered" in queue and "at 1:01:00" in queue
    assert db(passfail).execute("SELECT delivered_s FROM prints WHERE id = 1").fetchone()[0] == T0 + HOUR + 60
    assert "yes, at 1:01:00" in text(team.get("/print"))
    assert Api.of(passfail).get(f"{C}/prints", "judge").json()[0]["delivered_time"] == "2030-01-01T11:01:00.000+00:00"
    assert judge.post("/admin/prints/1/delivered", data={"csrf": token, "delivered": "0"}).status_code == 303
    assert "not delivered" in text(judge.get("/admin/prints?fragment=1"))
    assert judge.post("/admin/prints/9/delivered", data={"csrf": token}).status_code == 404
    assert team.post("/admin/prints/1/delivered", data={"csrf": csrf_of(team.get("/print").text)}).status_code in (
        303,
        403,
    )
    actions = [e["action"] for e in Api.of(passfail).get(f"{C}/audit-log", "admin").json()]
    assert actions[:2] == ["print.undelivered", "print.delivered"]  # newest first


def test_a_schema_10_database_gets_the_delivered_mark(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    open_storage(path).close()
    conn = sqlite3.connect(path)  # what the schema-10 release wrote: prints without delivered_s, a print-out
    conn.executescript(
        "DROP TABLE judgements; DROP TABLE jobs; DROP TABLE previews;"  # changed by schema 13 (issue 47)
        "DROP TABLE prints; CREATE TABLE prints (id INTEGER PRIMARY KEY AUTOINCREMENT, team_id TEXT, "
        "username TEXT NOT NULL, filename TEXT NOT NULL, text TEXT NOT NULL, time_s REAL NOT NULL, "
        "status TEXT NOT NULL);"
        "INSERT INTO prints VALUES (1, 'team1', 'team1', 'a.py', 'x', 5.0, 'listed');"
        "DELETE FROM schema_version; INSERT INTO schema_version VALUES (10, 0);"
    )
    conn.close()
    upgraded = open_storage(path)
    assert SCHEMA_VERSION >= 11 and upgraded.schema_version() == SCHEMA_VERSION
    with upgraded.read() as r:
        (kept,) = r.prints()
    assert (kept.filename, kept.status, kept.delivered_s) == ("a.py", "listed", None)
    with upgraded.write() as w:
        assert w.set_print_delivered(1, 7.0) and not w.set_print_delivered(2, 7.0)
    with upgraded.read() as r:
        assert r.prints()[0].delivered_s == 7.0
    upgraded.close()


# ------------------------------------------------------------------------------------------------ confirmations


def test_confirmation_pages_repost_the_same_form(passfail: Server, clock: FakeClock) -> None:
    """Without JavaScript a confirmed action takes two steps: the question (nothing done), then the same form
    with confirmed=yes; Cancel leads back. With it, the form's data-confirm is asked by live.js."""
    clock.t = T0 + HOUR
    admin = login(passfail, "admin")
    people = admin.get("/admin/people").text
    assert 'data-confirm="Disable account team2? It can no longer log in' in people
    asked = admin.post("/admin/accounts/team2/disabled", data={"csrf": csrf_of(people), "disabled": "1"})
    form = asked.text.split('id="confirm-form"')[1].split("</form>")[0]
    assert 'name="confirmed" value="yes"' in form and 'name="disabled" value="1"' in form
    assert 'action="/admin/accounts/team2/disabled"' in asked.text.split('id="confirm-form"')[0][-200:]
    assert 'href="/admin/people" id="confirm-cancel"' in asked.text
    assert passfail.roster.current is not None and "team2" not in passfail.roster.current.disabled
    judge = login(passfail, "judge")
    problems = judge.get("/admin?problem_id=sum").text
    assert 'data-confirm="Rejudge every submission of problem sum?' in problems
    r = judge.post("/admin/problems/sum/rejudge", data={"csrf": csrf_of(problems)})
    assert r.status_code == 200 and 'href="/admin?problem_id=sum" id="confirm-cancel"' in r.text
    r = judge.post("/admin/problems/sum/rejudge", data={"csrf": csrf_of(problems), "confirmed": "yes"})
    assert r.status_code == 303
    # a judge is refused pausing at once, not asked first
    assert judge.post("/admin/judging", data={"csrf": csrf_of(problems), "action": "pause"}).status_code == 403


# ------------------------------------------------------------------------------------------------ 404, favicon


def test_an_unknown_page_is_an_html_404_for_a_browser(passfail: Server) -> None:
    team = login(passfail, "team1")
    r = team.get("/nowhere", headers={"accept": "text/html,application/xhtml+xml"})
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "there is no page /nowhere" in r.text and "Zeta" in r.text  # the session's viewer, in the layout
    assert "Content-Security-Policy" in r.headers
    r = team.get("/nowhere")  # not a browser: the API's JSON
    assert r.status_code == 404 and r.json()["code"] == 404
    r = team.get(f"{C}/nowhere", headers={"accept": "text/html"})  # under /api: JSON for everyone
    assert r.status_code == 404 and r.json()["message"].startswith("no such endpoint")
    r = team.get("/api/nowhere", headers={"accept": "text/html"})
    assert r.headers["content-type"] == "application/json"


def test_the_favicon(passfail: Server) -> None:
    team = login(passfail, "team1")
    r = team.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon" and r.content[:4] == b"\0\0\1\0"
    r = team.get("/static/favicon.svg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml" and b"<svg" in r.content
    page = team.get("/scoreboard").text
    assert 'rel="icon" href="/favicon.ico"' in page and 'href="/static/favicon.svg"' in page


# ------------------------------------------------------------------------------------------------ the board


def test_the_board_marks_the_teams_row_and_the_problems_colours(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    team = login(passfail, "team3")
    page = team.get("/scoreboard").text
    assert re.search(r'<style>table\.board tr\[data-team="team3"\] > td:not\(\.cell\) \{', page)
    assert '<span class="balloon" style="background: #f00"></span>A' in page  # problems.yaml's rgb
    fragment = team.get("/scoreboard?fragment=1").text
    assert 'tr[data-team="team3"]' in fragment  # the live part keeps it
    public = Api.of(passfail).get("/scoreboard").text
    assert "tr[data-team=" not in public and "the scoreboard freezes 4:00:00 into the contest" in public


def test_the_resolver_has_no_jury_navigation(passfail: Server, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    team = login(passfail, "team1")
    submit(team, SUM_AC)
    passfail.judging.run_pending()
    clock.t = T0 + 6 * HOUR
    page = login(passfail, "admin").get("/admin/resolver")
    assert page.status_code == 200 and 'id="resolver-board"' in page.text
    assert "<nav>" not in page.text and "Log out" not in page.text and 'href="/admin/people"' not in page.text
    assert 'id="resolver-exit"' in page.text


def test_the_admin_page_shows_the_freeze_and_the_end_in_contest_time(passfail: Server, clock: FakeClock) -> None:
    """Issue 43: the admin page's freeze line (and the end's steps) were ISO times with milliseconds in UTC."""
    clock.t = T0 + 5 * HOUR + 60
    admin = text(login(passfail, "admin").get("/admin"))
    assert "Freeze: 4:00:00 into the contest (<time" in admin and "Freeze: 2030-" not in admin
