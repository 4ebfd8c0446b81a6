"""A rejected submission's counterexample on the pages (issue 46), through the real app with the scripted judge
and runner (tests/test_serve_explain.py's contest): the team's submission page has a live part (live.js polls
``/submissions/<id>/counterexample``) that shows "An input your program fails on" with download buttons once
found, and stops polling then; the jury's submission page shows it for every rejected submission; another
team, the public, and the team under ``counterexamples: jury`` see nothing of it, in the page or the files."""

from __future__ import annotations

import re
from pathlib import Path

from test_fuzz_search import off_by_one_from
from test_serve_explain import Live, open_live, search_all, submit
from test_serve_pages import client, login, text


def test_the_team_page_waits_for_it_then_shows_it_with_its_downloads(tmp_path: Path) -> None:
    live = open_live(tmp_path, off_by_one_from(37))
    try:
        sid = submit(live.api, "team1")
        team = login(live.server, "team1")
        pending = team.get(f"/submissions/{sid}").text  # not judged yet: the part waits, empty
        assert f'data-live="/submissions/{sid}/counterexample"' in pending and "An input your" not in pending
        assert team.get(f"/submissions/{sid}/counterexample").text.strip() == ""  # the fragment: nothing yet
        live.server.judging.run_pending()
        searching = team.get(f"/submissions/{sid}/counterexample").text
        assert 'id="cx-searching"' in searching and "data-live-done" not in searching
        assert "An input your program fails on" in searching
        search_all(live.server)
        fragment = team.get(f"/submissions/{sid}/counterexample")
        page = team.get(f"/submissions/{sid}")
        for html in (text(fragment), text(page)):
            assert "An input your program fails on" in html and 'data-status="found"' in html
            assert re.search(r'id="cx-input">38\n</pre>', html) and re.search(r'id="cx-answer">76\n</pre>', html)
            assert re.search(r'id="cx-output">77\n</pre>', html) and 'id="cx-verdict">WA<' in html
            assert "data-live-done" in html and "Jury only" not in html
        assert f'data-live="/submissions/{sid}/counterexample"' not in page.text  # found: nothing to poll
        for part, data in (("input", b"38\n"), ("answer", b"76\n"), ("output", b"77\n")):
            assert f'href="/submissions/{sid}/counterexample/{part}" id="cx-download-{part}" download' in page.text
            r = team.get(f"/submissions/{sid}/counterexample/{part}")
            assert r.status_code == 200 and r.content == data and "attachment" in r.headers["content-disposition"]
        jury = login(live.server, "judge")
        admin_page = text(jury.get(f"/admin/submissions/{sid}"))
        assert "An input the program fails on" in admin_page and 'id="cx-input">38' in admin_page
        assert "Jury only: shown to team (shown to the team)" in admin_page
        assert jury.get(f"/submissions/{sid}/counterexample/input").content == b"38\n"
        other = login(live.server, "team2")
        for path in (f"/submissions/{sid}/counterexample", f"/submissions/{sid}/counterexample/input"):
            assert other.get(path).status_code == 404
            assert client(live.server).get(path).status_code in (303, 302)  # the public: the login
    finally:
        live.server.close()


def _no_part(live: Live, sid: str, user: str) -> None:
    c = login(live.server, user)
    page = c.get(f"/submissions/{sid}").text
    assert 'id="counterexample"' not in page and "fails on" not in page and "counterexample" not in page
    assert c.get(f"/submissions/{sid}/counterexample").text.strip() == "<span data-live-done></span>"
    assert c.get(f"/submissions/{sid}/counterexample/input").status_code == 404


def test_under_jury_the_team_sees_nothing_the_jury_all(tmp_path: Path) -> None:
    live = open_live(tmp_path, off_by_one_from(37), policy="jury")
    try:
        sid = submit(live.api, "team1")
        live.server.judging.run_pending()
        search_all(live.server)
        _no_part(live, sid, "team1")
        jury = text(login(live.server, "admin").get(f"/admin/submissions/{sid}"))
        assert 'data-status="found"' in jury and "Jury only: shown to jury" in jury
    finally:
        live.server.close()


def test_an_accepted_submission_has_no_part(tmp_path: Path) -> None:
    live = open_live(tmp_path, off_by_one_from(37))
    try:
        sid = submit(live.api, "team1", "print(a + b)\n")
        live.server.judging.run_pending()
        _no_part(live, sid, "team1")
    finally:
        live.server.close()


def test_the_limit_and_the_withheld_case_in_words(tmp_path: Path) -> None:
    live = open_live(tmp_path, off_by_one_from(37), policy="{show: team, per_team: 0}")
    try:
        sid = submit(live.api, "team1")
        live.server.judging.run_pending()
        search_all(live.server)
        page = text(login(live.server, "team1").get(f"/submissions/{sid}"))
        assert 'id="cx-limit"' in page and "has been shown 0 inputs" in page and 'id="cx-input"' not in page
        assert "cx-download" not in page
        jury = text(login(live.server, "judge").get(f"/admin/submissions/{sid}"))
        assert "(not shown to the team)" in jury and 'id="cx-input">38' in jury
    finally:
        live.server.close()
