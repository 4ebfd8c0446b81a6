"""A site of contests served (issue 44): the site database and one per contest, `GET /api/contests` per
viewer, each contest's own data under /api/contests/<cid>/, one login for every contest, the people shared
and changed at the site level, teams taking part or not, hidden contests (a 404 exactly as an unknown id),
the pages under /contests/<cid>/ and the site's pages at the top."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import HOUR, SUM_AC, T0, Api, FakeClock
from serve_site_fixtures import SITE_PASSWORDS, open_test_site, write_site

from judge.serve.http.pages.sessions import COOKIE
from judge.serve.http.site_app import create_site_app
from judge.serve.model.viewer import PUBLIC
from judge.serve.services.lifecycle.registry import ContestChange, NewContest
from judge.serve.site.site import SITE_DB, Site

CONTESTS: dict[str, dict[str, Any]] = {
    # running at T0 (10:00), 2 hours, judged after the others
    "practice": {"problems": ("sum",), "priority": -1, "start": "2030-01-01T09:00:00Z", "duration": "2:00:00"},
    # starts an hour after T0
    "main": {"problems": ("sum", "divisor"), "start": "2030-01-01T11:00:00Z"},
    # running, two teams only
    "club": {"problems": ("sum",), "teams": ["team1", "team4"], "start": "2030-01-01T09:00:00Z"},
}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    root = write_site(tmp_path / "site", CONTESTS, order=["practice", "main"])
    opened = open_test_site(root, FakeClock(T0))
    yield opened
    opened.close()


class SiteApi(Api):
    def request(self, method: str, path: str, user: str | None = None, password: str | None = None, **kw: Any) -> Any:
        if user is not None and password is None:
            password = SITE_PASSWORDS[user]
        return super().request(method, path, user, password, **kw)

    def submit_to(self, cid: str, user: str, problem: str = "sum") -> Any:
        import base64

        from judge.serve.model.upload import pack

        data = base64.b64encode(pack({"sum.py": SUM_AC.encode()})).decode()
        body = {"problem_id": problem, "language_id": "python3", "files": [{"data": data}]}
        return self.request("POST", f"/api/contests/{cid}/submissions", user, json=body)


def api_of(site: Site) -> SiteApi:
    return SiteApi(create_site_app(site))


def ids(r: Any) -> list[str]:
    assert r.status_code == 200, r.text
    return [o["id"] for o in r.json()]


def test_a_site_has_its_database_and_one_per_contest(site: Site) -> None:
    root = site.spec.root
    assert (root / SITE_DB).is_file()
    assert sorted(p.parent.name for p in root.glob("contests/*/contest.sqlite")) == ["club", "main", "practice"]
    with sqlite3.connect(root / SITE_DB) as conn:
        accounts = {r[0] for r in conn.execute("SELECT id FROM accounts")}
        assert accounts == set(SITE_PASSWORDS)  # the people are the site's
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)  # no contest's data
    with sqlite3.connect(root / "contests" / "main" / "contest.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM accounts").fetchone() == (0,)  # none of the people's
        assert conn.execute("SELECT value FROM meta WHERE key = 'contest_id'").fetchone() == ("main",)


def test_api_contests_lists_what_each_viewer_may_see_in_the_sites_order(site: Site) -> None:
    api = api_of(site)
    everyone = ["practice", "main", "club"]
    for user in (None, "team1", "team2", "judge", "admin"):
        assert ids(api.get("/api/contests", user)) == everyone, user
    site.change(admin_viewer(site), "club", ContestChange(hidden=True))
    assert ids(api.get("/api/contests")) == ["practice", "main"]
    assert ids(api.get("/api/contests", "team1")) == ["practice", "main"]  # hidden: its own teams too
    assert ids(api.get("/api/contests", "judge")) == everyone
    doc = api.get("/api/contests/practice", "team2").json()
    assert doc["id"] == "practice" and doc["start_time"].startswith("2030-01-01T09:00:00")


def admin_viewer(site: Site) -> Any:
    viewer = site.people.auth.viewer_of_account("admin")
    assert viewer is not None
    return viewer


def test_each_contest_has_its_own_data_ids_and_feed(site: Site) -> None:
    api = api_of(site)
    assert api.submit_to("practice", "team1").status_code == 201
    assert api.submit_to("practice", "team2").status_code == 201
    assert api.submit_to("club", "team1").status_code == 201
    assert api.submit_to("main", "team1").status_code == 403  # main has not started
    # ids count per contest: club's first submission is 1, whatever practice holds
    assert ids(api.get("/api/contests/practice/submissions", "admin")) == ["1", "2"]
    assert ids(api.get("/api/contests/club/submissions", "admin")) == ["1"]
    assert ids(api.get("/api/contests/main/submissions", "admin")) == []
    club = api.get("/api/contests/club/submissions/1", "admin").json()
    assert club["team_id"] == "team1"
    practice_feed = api.get("/api/contests/practice/event-feed", "admin", params={"stream": "false"}).text
    club_feed = api.get("/api/contests/club/event-feed", "admin", params={"stream": "false"}).text
    assert '"team2"' not in [json.loads(x)["data"].get("team_id") for x in club_feed.splitlines() if x.strip()]
    assert practice_feed != club_feed
    # every contest judged by the one pool (run here, in the test's thread, contest by contest)
    for c in site.contests():
        c.server.judging.run_pending()
    judged = api.get("/api/contests/club/judgements", "team1").json()
    assert [j["submission_id"] for j in judged] == ["1"]


def test_a_team_that_does_not_take_part_sees_the_contest_as_the_public(site: Site) -> None:
    api = api_of(site)
    assert ids(api.get("/api/contests/club/teams", "team2")) == ["team1", "team4"]  # only those taking part
    assert ids(api.get("/api/contests/club/accounts", "admin")) == ["team1", "judge", "admin", "team4"]
    r = api.submit_to("club", "team2")
    assert r.status_code == 403 and "does not take part" in r.json()["message"]
    assert api.get("/api/contests/club/account", "team2").status_code in (401, 404)  # no account here: the public
    assert api.get("/api/contests/club/account", "team4").json()["team_id"] == "team4"
    assert api.submit_to("club", "team4").status_code == 201


def test_a_hidden_contest_is_exactly_as_unknown_to_everyone_but_staff(site: Site) -> None:
    api = api_of(site)
    site.change(admin_viewer(site), "club", ContestChange(hidden=True))
    paths = ["", "/teams", "/submissions", "/scoreboard", "/state", "/event-feed?stream=false", "/nothing-here"]
    for user in (None, "team1", "team2"):
        for path in paths:
            hidden = api.get(f"/api/contests/club{path}", user)
            unknown = api.get(f"/api/contests/zzzz{path}", user)
            assert (hidden.status_code, hidden.text.replace("club", "zzzz")) == (unknown.status_code, unknown.text)
            assert hidden.status_code == 404, (user, path)
        bad = api.request("DELETE", "/api/contests/club/teams", user)  # a wrong method: the same for both
        assert bad.status_code == api.request("DELETE", "/api/contests/zzzz/teams", user).status_code
    assert api.submit_to("club", "team1").status_code == 404
    assert ids(api.get("/api/contests/club/teams", "judge")) == ["team1", "team4"]
    site.change(admin_viewer(site), "club", ContestChange(hidden=False))
    assert api.get("/api/contests/club/teams").status_code == 200


def test_the_people_are_the_sites_changed_once_for_every_contest(site: Site) -> None:
    api = api_of(site)
    team = api.get("/api/contests/main/teams/team2", "admin").json()
    r = api.request("PUT", "/api/contests/main/teams/team2", "admin", json={**team, "name": "Alpha Prime"})
    assert r.status_code == 200, r.text
    for cid in ("practice", "main"):
        assert api.get(f"/api/contests/{cid}/teams/team2").json()["name"] == "Alpha Prime"
        feed = api.get(f"/api/contests/{cid}/event-feed", "admin", params={"stream": "false"}).text
        assert "Alpha Prime" in feed  # each contest published it on its own feed
    assert api.get("/api/contests/club/teams/team2").status_code == 404  # not taking part: not in club
    with sqlite3.connect(site.spec.root / SITE_DB) as conn:
        actions = [r[0] for r in conn.execute("SELECT action FROM audit_log")]
    assert actions == ["team.change"]  # in the site's audit log
    # a password changed once works in every contest
    r = api.request("POST", "/api/contests/practice/accounts/team3/reset-password", "admin")
    password = r.json()["password"]
    for cid in ("practice", "main"):
        assert api.request("GET", f"/api/contests/{cid}/account", "team3", password).status_code == 200
        assert api.get(f"/api/contests/{cid}/account", "team3").status_code == 401  # the old one: no more


def _login(api: SiteApi, user: str) -> tuple[str, str]:
    """Log in through the site's page; the session cookie and where the login led."""
    first = api.get("/login")
    cookie = first.cookies[COOKIE]
    token = re.search(r'name="csrf" value="([^"]+)"', first.text)
    assert token is not None
    r = api.request(
        "POST",
        "/login",
        data={"csrf": token.group(1), "username": user, "password": SITE_PASSWORDS[user]},
        cookies={COOKIE: cookie},
    )
    assert r.status_code == 303, r.text
    return r.cookies[COOKIE], r.headers["location"]


def test_one_login_for_every_contest_and_straight_into_the_only_running_one(site: Site) -> None:
    api = api_of(site)
    cookie, to = _login(api, "team2")  # team2: practice running, main later, not in club
    assert to == "/contests/practice/"
    for cid in ("practice", "main"):
        page = api.get(f"/contests/{cid}/submissions", cookies={COOKIE: cookie})
        assert page.status_code == 200 and '<span class="user">Alpha</span>' in page.text, cid
        assert 'href="/contests/' + cid + '/submit"' in page.text
    home = api.get("/", cookies={COOKIE: cookie})
    assert home.status_code == 200
    mine = home.text.split('id="my-contests"')[1].split("</table>")[0]
    assert 'data-contest="practice"' in mine and 'data-contest="main"' in mine and "club" not in mine
    _, to = _login(api, "team1")  # team1: practice and club both running: the list
    assert to == "/"
    _, to = _login(api, "judge")
    assert to == "/"


def test_the_pages_of_a_hidden_contest_are_the_sites_404(site: Site) -> None:
    api = api_of(site)
    site.change(admin_viewer(site), "club", ContestChange(hidden=True))
    team1, _ = _login(api, "team1")
    judge, _ = _login(api, "judge")
    html = {"accept": "text/html"}
    for cookies in ({}, {COOKIE: team1}):
        for path in ("/scoreboard", "/", "/submit", "/problems/sum/"):
            hidden = api.get(f"/contests/club{path}", headers=html, cookies=cookies)
            unknown = api.get(f"/contests/zzzz{path}", headers=html, cookies=cookies)
            assert hidden.status_code == unknown.status_code == 404
            assert hidden.text.replace("club", "zzzz") == unknown.text
        assert api.get("/contests/club", cookies=cookies).status_code == 404
    assert api.get("/contests/club/scoreboard", cookies={COOKIE: judge}).status_code == 200
    assert "club" not in api.get("/", cookies={COOKIE: team1}).text


def test_the_site_overview_is_the_staffs_and_its_changes_the_admins(site: Site) -> None:
    api = api_of(site)
    admin, _ = _login(api, "admin")
    team1, _ = _login(api, "team1")
    judge, _ = _login(api, "judge")
    assert api.get("/site", cookies={COOKIE: team1}).status_code == 403
    page = api.get("/site", cookies={COOKIE: admin})
    assert page.status_code == 200 and 'id="site-contests"' in page.text
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token is not None
    form = {"csrf": token.group(1), "action": "priority", "priority": "5"}
    r = api.request("POST", "/site/contests/practice/change", data=form, cookies={COOKIE: admin})
    assert r.status_code == 303
    practice = site.contest("practice")
    assert practice is not None and practice.priority == 5
    judge_page = api.get("/site", cookies={COOKIE: judge})
    judge_token = re.search(r'name="csrf" value="([^"]+)"', judge_page.text)
    assert judge_token is not None
    r = api.request(
        "POST",
        "/site/contests/main/change",
        data={"csrf": judge_token.group(1), "action": "hide"},
        cookies={COOKIE: judge},
    )
    assert r.status_code == 403
    assert site.seen_by(PUBLIC)[1].id == "main"
    with sqlite3.connect(site.spec.root / SITE_DB) as conn:
        assert [r[0] for r in conn.execute("SELECT action FROM audit_log")] == ["site.contest"]
        assert conn.execute("SELECT judging_priority FROM site_contests WHERE id = 'practice'").fetchone() == (5,)


def test_the_registry_survives_a_restart(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", CONTESTS)
    first = open_test_site(root, FakeClock(T0))
    try:
        first.change(admin_viewer(first), "main", ContestChange(hidden=True, judging_priority=3))
    finally:
        first.close()
    again = open_test_site(root, FakeClock(T0 + HOUR))
    try:
        main = again.contest("main")
        assert main is not None and main.hidden and main.priority == 3
    finally:
        again.close()


def test_an_archived_contest_is_read_only_and_still_served(site: Site) -> None:
    api = api_of(site)
    assert api.submit_to("club", "team1").status_code == 201
    site.change(admin_viewer(site), "club", ContestChange(archived=True))
    r = api.submit_to("club", "team1")
    assert r.status_code == 403 and "archived" in r.json()["message"]
    question = {"text": "Is it over?", "problem_id": None}
    r = api.request("POST", "/api/contests/club/clarifications", "team1", json=question)
    assert r.status_code == 403 and "archived" in r.json()["message"]
    assert ids(api.get("/api/contests/club/submissions", "team1")) == ["1"]  # still readable
    assert "club" in ids(api.get("/api/contests"))
    assert api.submit_to("practice", "team1").status_code == 201  # the others are not
    site.change(admin_viewer(site), "club", ContestChange(archived=False))
    assert api.submit_to("club", "team1").status_code == 201


def test_the_overview_says_only_its_own_messages(site: Site) -> None:
    api = api_of(site)
    admin, _ = _login(api, "admin")
    page = api.get("/site?done=hide&contest=main", cookies={COOKIE: admin})
    assert "Contest main is hidden" in page.text
    for query in ("done=<b>x</b>&contest=main", "done=hide&contest=<b>x</b>", "message=<b>x</b>"):
        page = api.get(f"/site?{query}", cookies={COOKIE: admin})
        assert page.status_code == 200 and 'id="message"' not in page.text and "<b>x" not in page.text


def test_a_team_not_taking_part_is_told_so_on_the_contests_pages(site: Site) -> None:
    api = api_of(site)
    cookie, _ = _login(api, "team2")  # not in club
    page = api.get("/contests/club/scoreboard", cookies={COOKIE: cookie})
    assert page.status_code == 200 and 'id="not-taking-part"' in page.text and ">team2<" in page.text
    assert 'href="/login"' not in page.text and 'href="/contests/club/submit"' not in page.text
    assert 'id="not-taking-part"' not in api.get("/contests/practice/scoreboard", cookies={COOKIE: cookie}).text


def test_judge_contest_export_of_a_contest_of_a_site(tmp_path: Path) -> None:
    import zipfile

    from judge.commands.cli import main

    root = write_site(tmp_path / "site", CONTESTS)
    opened = open_test_site(root, FakeClock(T0))
    try:
        api = api_of(opened)
        assert api.submit_to("club", "team4").status_code == 201
        assert api.submit_to("practice", "team2").status_code == 201
        for c in opened.contests():
            c.server.judging.run_pending()
    finally:
        opened.close()
    out = tmp_path / "club.zip"
    assert main(["contest", "export", str(root / "contests" / "club"), str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        teams = json.loads(z.read("teams.json"))
        submissions = json.loads(z.read("submissions.json"))
    assert [t["id"] for t in teams] == ["team1", "team4"]  # the site's people, those taking part
    assert [(s["id"], s["team_id"]) for s in submissions] == [("1", "team4")]  # club's own
    assert main(["contest", "export", str(root / "contests" / "nowhere"), str(tmp_path / "x.zip")]) == 2


def _form_token(api: SiteApi, path: str, cookie: str) -> str:
    page = api.get(path, cookies={COOKIE: cookie})
    assert page.status_code == 200, page.text
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token is not None
    return token.group(1)


def test_an_admin_adds_a_contest_live_from_the_sites_problems_and_teams(site: Site) -> None:
    api = api_of(site)
    admin, _ = _login(api, "admin")
    judge, _ = _login(api, "judge")
    assert api.get("/site/contests/new", cookies={COOKIE: judge}).status_code == 403
    token = _form_token(api, "/site/contests/new", admin)
    form = {
        "csrf": token,
        "id": "lab1",
        "name": "Lab 1",
        "start": "2030-01-01T09:00:00Z",
        "duration": "3:00:00",
        "freeze": "0:00:00",
        "problem-divisor": "on",
        "problem-sum": "on",
        "team-team3": "on",
    }
    for bad, says in (
        ({"id": "no way"}, "contest id"),
        ({"id": "main"}, "already"),
        ({"problem-divisor": "", "problem-sum": ""}, "problems"),
        ({"duration": "soon"}, "duration"),
    ):
        r = api.request("POST", "/site/contests/new", data={**form, **bad}, cookies={COOKIE: admin})
        assert r.status_code in (400, 409) and says in r.text, (bad, r.status_code)
    assert not (site.spec.root / "contests" / "lab1").exists()  # nothing left behind
    r = api.request("POST", "/site/contests/new", data=form, cookies={COOKIE: admin})
    assert r.status_code == 303 and r.headers["location"] == "/site?done=added&contest=lab1"
    assert "Lab 1 is added" in api.get(r.headers["location"], cookies={COOKIE: admin}).text
    assert ids(api.get("/api/contests", "team3")) == ["practice", "main", "club", "lab1"]
    assert ids(api.get("/api/contests/lab1/teams", "admin")) == ["team3"]
    assert [p["id"] for p in api.get("/api/contests/lab1/problems", "team3").json()] == ["divisor", "sum"]
    assert api.submit_to("lab1", "team3").status_code == 201
    assert api.submit_to("lab1", "team1").status_code == 403  # not taking part
    lab = site.contest("lab1")
    assert lab is not None and lab.server.judging.run_pending() == 1
    cookie3, to = _login(api, "team3")
    assert api.get("/contests/lab1/submissions", cookies={COOKIE: cookie3}).status_code == 200
    with sqlite3.connect(site.spec.root / SITE_DB) as conn:
        assert [r[0] for r in conn.execute("SELECT action FROM audit_log")] == ["site.contest_added"]
    assert (site.spec.root / "contests" / "lab1" / "contest.sqlite").is_file()


def test_a_contest_added_live_is_there_after_a_restart(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", CONTESTS)
    first = open_test_site(root, FakeClock(T0))
    try:
        new = NewContest("lab2", "Lab 2", "", "2:00:00", "0:00:00", ("sum",))
        first.add_new(admin_viewer(first), new)
        live = [c.id for c in first.contests()]
    finally:
        first.close()
    assert live == ["club", "lab2", "main", "practice"]  # where a restart puts it (site.yaml lists none)
    again = open_test_site(root, FakeClock(T0))
    try:
        assert [c.id for c in again.contests()] == live
    finally:
        again.close()
