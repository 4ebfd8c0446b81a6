"""Two submissions compared (issue 47): the jury's page with the sources' diff and the tests' verdicts side
by side; "the previous try"; nobody else may see it. Judging is scripted (serve_fixtures.ScriptedJudge)."""

from __future__ import annotations

import html as htmllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, make_server, write_contest
from test_serve_pages import client, login

from judge.serve.site.server import Server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    clock = FakeClock(T0 + HOUR)
    s = make_server(write_contest(tmp_path / "contest"), clock)
    api = Api.of(s)
    for user, code in (("team1", SUM_WA), ("team1", SUM_AC), ("team2", SUM_AC)):
        assert api.submit(user, files={"sum.py": code}).status_code == 201
        clock.advance(5)
    s.judging.run_pending()
    yield s
    s.close()


def test_the_previous_try_side_by_side(server: Server) -> None:
    judge = login(server, "judge")
    page = judge.get("/admin/submissions/2")
    assert 'href="/admin/compare?a=1&amp;b=2"' in page.text
    assert "compare with the team's previous try" not in judge.get("/admin/submissions/1").text  # its first
    r = judge.get("/admin/compare?a=2")
    assert r.status_code == 303 and r.headers["location"] == "/admin/compare?a=1&b=2"
    html = htmllib.unescape(judge.get(r.headers["location"]).text)
    assert 'id="verdict-a">WA' in html and 'id="verdict-b">AC' in html
    assert "(4 with another verdict)" in html and html.count('<tr class="differs">') == 4
    assert '<td class="l">print(a - b)</td>' in html and '<td class="r">print(a + b)</td>' in html
    assert "They first differ at line 2." in html


def test_any_two_and_the_same_twice(server: Server) -> None:
    judge = login(server, "admin")
    html = htmllib.unescape(judge.get("/admin/compare?a=2&b=3").text)
    assert "(0 with another verdict)" in html and "The same in both." in html
    assert judge.get("/admin/compare?a=1").status_code == 404  # no earlier try
    assert judge.get("/admin/compare?a=1&b=99").status_code == 404
    assert judge.get("/admin/compare?a=x&b=1").status_code == 404


def test_only_the_jury_compares(server: Server) -> None:
    for user in ("team1", "team2"):
        assert login(server, user).get("/admin/compare?a=1&b=2").status_code == 403
    assert client(server).get("/admin/compare?a=1&b=2").headers["location"] == "/login"
