"""The clarifications' pages through the real app (HTTP requests, cookies, redirects): a team asks on its
page (the API's refusals, nothing stored), reads the answers (plain text: escaped, newlines kept), the
header's unread count and notice on every team page until the team has read them; the jury's pages:
unanswered questions first, answers with a text or a canned answer to the team, everyone or a group, an
announcement, who answered (staff only). Another team's question is in none of a team's pages."""

from __future__ import annotations

import html as htmllib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_fixtures import HOUR, T0, Api, FakeClock, db, make_server, write_contest
from test_serve_clarifications import seen, sent, write_groups
from test_serve_pages import Browser, csrf_of, login

from judge.serve.site.server import Server

HOSTILE = "<script>alert(1)</script>"
SECRET = "team1 asks a secret question about the sum"  # never on another team's pages
TEAM_PAGES = ("/submissions", "/submit", "/problems", "/scoreboard", "/clarifications", "/clarifications/notice")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    s = make_server(write_groups(write_contest(tmp_path / "contest")), clock)
    yield s
    s.close()


def stored(server: Server) -> int:
    return int(db(server).execute("SELECT count(*) FROM clarifications").fetchone()[0])


def ask(c: Browser, text: str, problem: str = "") -> httpx.Response:
    token = csrf_of(c.get("/clarifications").text)
    return c.post("/clarifications", data={"csrf": token, "problem": problem, "text": text})


def answer(c: Browser, question: str, **form: str) -> httpx.Response:
    token = csrf_of(c.get(f"/admin/clarifications/{question}").text)
    return c.post(f"/admin/clarifications/{question}", data={"csrf": token, **form})


def count(html: str) -> int:
    """The header's count (0: none shown)."""
    m = re.search(r'<span class="badge" id="clar-count"[^>]*>(\d+)</span>', html)
    return int(m.group(1)) if m else 0


def items(html: str) -> list[str]:
    return re.findall(r'<article class="clar [^"]*" id="clar-([0-9a-f]+)"', html)


def test_a_team_asks_on_its_page_and_reads_the_answer_as_plain_text(server: Server) -> None:
    team = login(server, "team1")
    r = ask(team, f"Is {HOSTILE} allowed?\nline two", problem="sum")
    assert r.status_code == 303 and r.headers["location"] == "/clarifications?sent=1"
    page = team.get("/clarifications?sent=1")
    assert 'id="sent"' in page.text and HOSTILE not in page.text  # escaped
    (qid,) = items(page.text)
    assert f"Is {htmllib.escape(HOSTILE)} allowed?\nline two</div>" in page.text  # newlines kept, as text
    assert "<script>alert" not in page.text
    judge = login(server, "judge")
    r = answer(judge, qid, text="<b>No</b>.\nNever.", to="team")
    assert r.status_code == 303, r.text
    assert count(team.get("/submissions").text) == 1
    page = team.get("/clarifications").text
    assert "&lt;b&gt;No&lt;/b&gt;.\nNever.</div>" in page and "<b>No</b>" not in page
    assert "sent by" not in page  # who answered: staff only
    assert count(team.get("/submissions").text) == 0  # read now


def test_the_unread_count_and_notice_on_every_team_page_until_read(server: Server) -> None:
    api = Api.of(server)
    team1, team2 = login(server, "team1"), login(server, "team2")
    for path in TEAM_PAGES[:4]:
        assert count(team2.get(path).text) == 0
    q = sent(api, "team1", text=SECRET, problem_id="sum")
    sent(api, "judge", text="Yes, always.", reply_to_id=q["id"], problem_id="sum")  # to everyone
    sent(api, "judge", text="Only for team1.", reply_to_id=q["id"], to_team_ids=["team1"])
    for path in TEAM_PAGES[:4]:
        html = team2.get(path).text
        assert count(html) == 1, path
        assert 'id="clar-toast"' in html and "Yes, always." in html, path
    notice = team2.get("/clarifications/notice").text  # what live.js fetches
    assert count(notice) == 1 and "Answer to everyone" in notice and "A: Sum of two numbers" in notice
    assert count(team1.get("/submissions").text) == 2
    page = team2.get("/clarifications").text
    assert 'class="clar answer new"' in page and "Only for team1." not in page
    for path in TEAM_PAGES:
        html = team2.get(path).text
        assert count(html) == 0 and 'id="clar-toast"' not in html, path
        assert SECRET not in html or path == "/clarifications", path
    # the question's text comes with the answer to everyone (never the team that asked)
    assert f"{SECRET}</blockquote>" in page and "Zeta" not in page.split("<main>")[1]


def test_another_teams_question_is_on_none_of_a_teams_pages(server: Server) -> None:
    api = Api.of(server)
    q = sent(api, "team1", text=SECRET)
    sent(api, "judge", text="private answer", reply_to_id=q["id"], to_team_ids=["team1"])
    sent(api, "judge", text="to the pair", reply_to_id=q["id"], to_group_ids=["pair"])
    for user in ("team2", "team3"):
        b = login(server, user)
        for path in (*TEAM_PAGES, "/clarifications?fragment=1"):
            assert SECRET not in b.get(path).text, (user, path)
        assert b.get(f"/admin/clarifications/{q['id']}").status_code == 403
    assert "to the pair" in login(server, "team2").get("/clarifications").text
    assert "to the pair" not in login(server, "team3").get("/clarifications").text


def test_refusals_on_the_page_keep_the_text_and_store_nothing(server: Server, clock: FakeClock) -> None:
    team = login(server, "team1")
    for text, status, message in (
        ("", 400, "the text is empty"),
        ("x" * 2001, 400, "at most 2,000 characters"),
    ):
        r = ask(team, text)
        assert r.status_code == status and message in r.text, text[:20]
    r = ask(team, "kept text", problem="nope")
    assert r.status_code == 400 and "unknown problem_id" in r.text and ">kept text</textarea>" in r.text
    r = team.post("/clarifications", data={"text": "no csrf token"})
    assert r.status_code == 403
    clock.advance(5 * HOUR)  # over
    page = team.get("/clarifications").text
    assert 'id="closed"' in page and 'id="ask-form"' not in page
    r = team.post("/clarifications", data={"csrf": csrf_of(page), "text": "after the end"})
    assert r.status_code == 403 and "is over" in r.text
    assert stored(server) == 0


def test_the_jury_page_unanswered_first_canned_answers_groups_and_who_answered(server: Server) -> None:
    api = Api.of(server)
    q1 = sent(api, "team1", text="first question", problem_id="sum")
    q2 = sent(api, "team2", text="second question")
    judge, admin = login(server, "judge"), login(server, "admin")
    assert count(judge.get("/admin/clarifications").text) == 2
    follow_up = sent(api, "team1", text="and a follow-up", reply_to_id=q1["id"])  # a question, not an answer
    page = judge.get("/admin/clarifications").text
    assert count(page) == 3
    waiting = page.split('id="unanswered"')[1].split("</table>")[0]
    assert re.findall(r'id="waiting-([0-9a-f]+)"', waiting) == [q1["id"], q2["id"], follow_up["id"]]  # oldest first
    assert "Zeta" in waiting and "Alpha" in waiting and "A: Sum of two numbers" in waiting
    form = judge.get(f"/admin/clarifications/{q1['id']}").text
    assert 'id="no-answer"' in form and all(c in form for c in ("No comment.", "Read the problem statement"))
    r = answer(judge, q1["id"], text="ignored", canned="Read the problem statement carefully.", to="all")
    assert r.status_code == 303
    r = answer(admin, q2["id"], text="For the pair only.", to="group:pair")
    assert r.status_code == 303
    everyone = seen(api, "team3")
    assert [c["text"] for c in everyone.values()] == ["> first question\n\nRead the problem statement carefully."]
    assert next(iter(everyone.values()))["problem_id"] == "sum"  # the answer is about the question's problem
    assert [c["text"] for c in seen(api, "team1").values()][-1] == "For the pair only."
    r = answer(judge, follow_up["id"], canned="No comment.", to="team")
    assert r.status_code == 303
    page = judge.get("/admin/clarifications").text
    assert count(page) == 0 and 'id="none-waiting"' in page
    assert "answered by judge" in page and "answered by admin" in page
    thread = admin.get(f"/admin/clarifications/{q1['id']}").text
    assert "sent by judge" in thread and 'id="no-answer"' not in thread
    assert answer(judge, q1["id"], canned="<b>made up</b>", to="all").status_code == 400
    assert answer(judge, q1["id"], text="x", to="group:nope").status_code == 400
    assert stored(server) == 6


def test_announcements_from_the_jury_page(server: Server) -> None:
    admin = login(server, "admin")
    token = csrf_of(admin.get("/admin/clarifications").text)
    r = admin.post("/admin/clarifications", data={"csrf": token, "text": "Sample 2 of B is wrong.", "to": "all"})
    assert r.status_code == 303
    r = admin.post(
        "/admin/clarifications", data={"csrf": token, "text": "Team 3 only", "to": "team:team3", "problem": "divisor"}
    )
    assert r.status_code == 303
    r = admin.post("/admin/clarifications", data={"csrf": token, "text": "   ", "to": "all"})
    assert r.status_code == 400 and "the text is empty" in r.text
    api = Api.of(server)
    assert [c["text"] for c in seen(api, None).values()] == ["Sample 2 of B is wrong."]
    assert [c["text"] for c in seen(api, "team3").values()] == ["Sample 2 of B is wrong.", "Team 3 only"]
    team3 = login(server, "team3").get("/submissions").text
    assert count(team3) == 2 and "Message to you" in team3


def test_who_may_open_which_page(server: Server) -> None:
    public = Browser(login(server, "team1").app)
    assert public.get("/clarifications").headers["location"] == "/login"
    assert public.get("/admin/clarifications").headers["location"] == "/login"
    assert public.get("/clarifications/notice").text.strip() == ""
    team = login(server, "team1")
    assert team.get("/admin/clarifications").status_code == 403
    judge = login(server, "judge")
    assert judge.get("/clarifications").headers["location"] == "/admin/clarifications"
    assert judge.get("/admin/clarifications/0000000000").status_code == 404
    assert 'href="/admin/clarifications"' in judge.get("/admin").text
    assert json.dumps(count(judge.get("/clarifications/notice").text)) == "0"
