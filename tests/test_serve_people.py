"""Teams and accounts while the contest runs (issue 30), through the HTTP stack: add a team and its account
(the new password returned once), edit them, hide a team (off the public and teams' board, still judged),
reset a password, disable an account (its logins and page sessions stop; nothing more is submitted from
it), enable it again; the event feed, the audit log, a restart, and who may do each (admins only)."""

from __future__ import annotations

import html as htmllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, PASSWORDS, T0, Api, FakeClock, feed, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.serve.http.pages.live_pages import LIVE_PAGES
from judge.serve.http.pages.people_pages import PEOPLE_PAGES
from judge.serve.site.server import Server

C = "/api/contests/test"


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


def put(api: Api, path: str, body: object, user: str = "admin") -> object:
    return api.request("PUT", f"{C}/{path}", user, json=body)


def post(api: Api, path: str, user: str = "admin") -> object:
    return api.request("POST", f"{C}/{path}", user)


def board_teams(api: Api, user: str | None = None) -> list[str]:
    return [r["team_id"] for r in api.get(f"{C}/scoreboard", user).json()["rows"]]


def test_a_late_team_and_its_account(api: Api, server: Server) -> None:
    r = put(api, "teams/late", {"id": "late", "name": "Late Arrivals", "label": "4", "group_ids": ["g"]})
    assert r.status_code == 200, r.text
    assert r.json() == {"id": "late", "name": "Late Arrivals", "label": "4", "group_ids": ["g"]}
    assert api.get(f"{C}/teams/late").json()["name"] == "Late Arrivals"
    assert "late" in board_teams(api)
    r = put(api, "accounts/late", {"id": "late", "username": "late", "type": "team", "team_id": "late"})
    assert r.status_code == 200, r.text
    password = r.json()["password"]
    assert len(password) >= 16 and r.headers["cache-control"] == "no-store"
    assert "password" not in api.get(f"{C}/accounts/late", "admin").json()
    assert api.request("GET", f"{C}/account", "late", password).json()["team_id"] == "late"
    assert api.request("POST", f"{C}/submissions", "late", password, json={}).status_code == 400  # it may submit
    events = [(e["type"], e["id"]) for e in feed(api, "admin")]
    assert ("teams", "late") in events and ("accounts", "late") in events
    assert ("accounts", "late") not in [(e["type"], e["id"]) for e in feed(api)]  # the public: not the account
    # edit: a new name, and a password chosen by the admin
    r = put(api, "teams/late", {"id": "late", "name": "Very Late", "group_ids": ["g"]})
    assert r.status_code == 200 and api.get(f"{C}/teams/late").json()["name"] == "Very Late"
    r = put(api, "accounts/late", {"id": "late", "type": "team", "team_id": "late", "password": "chosen-pw"})
    assert r.status_code == 200 and r.json()["password"] == "chosen-pw"
    assert api.request("GET", f"{C}/account", "late", password).status_code == 401
    assert api.request("GET", f"{C}/account", "late", "chosen-pw").status_code == 200
    log = api.get(f"{C}/audit-log", "admin").json()
    assert [e["action"] for e in log] == ["account.change", "team.change", "account.add", "team.add"]
    assert all(e["username"] == "admin" for e in log) and "chosen-pw" not in str(log)


def test_bad_teams_and_accounts(api: Api) -> None:
    assert put(api, "teams/x", {"id": "y", "name": "Y"}).status_code == 409
    assert put(api, "teams/x", {"id": "x", "group_ids": ["nope"]}).status_code == 400
    assert put(api, "teams/x", {"id": "x", "organization_id": "nope"}).status_code == 400
    assert put(api, "teams/x", {"id": "x", "color": "red"}).status_code == 400
    assert put(api, "teams/x", ["x"]).status_code == 400
    assert put(api, "teams/-x", {"id": "-x"}).status_code == 400
    assert put(api, "accounts/x", {"id": "x", "type": "team", "team_id": "nope"}).status_code == 400
    assert put(api, "accounts/x", {"id": "x", "type": "root"}).status_code == 400
    assert put(api, "accounts/x", {"id": "x", "type": "judge", "username": "team1"}).status_code == 409
    assert put(api, "accounts/x", {"id": "x", "type": "judge", "password": "short"}).status_code == 400
    assert post(api, "accounts/nobody/disable").status_code == 404
    assert post(api, "accounts/admin/disable").status_code == 409  # not yourself
    assert api.get(f"{C}/audit-log", "admin").json() == []


def test_who_may(api: Api) -> None:
    calls = [
        ("PUT", "teams/late", {"id": "late"}),
        ("PUT", "accounts/late", {"id": "late", "type": "judge"}),
        ("POST", "accounts/team1/reset-password", None),
        ("POST", "accounts/team1/disable", None),
        ("POST", "accounts/team1/enable", None),
        ("GET", "audit-log", None),
    ]
    for method, path, body in calls:
        assert api.request(method, f"{C}/{path}", None, json=body).status_code == 401, path
        for user in ("team1", "judge"):
            assert api.request(method, f"{C}/{path}", user, json=body).status_code == 403, (path, user)
    assert api.get(f"{C}/teams/late").status_code == 404
    assert api.request("GET", f"{C}/account", "team1").status_code == 200


def test_a_hidden_team_is_judged_but_off_the_public_board(api: Api, server: Server) -> None:
    assert api.submit("team2").status_code == 201
    server.judging.run_pending()
    team2 = api.get(f"{C}/teams/team2").json()
    r = put(api, "teams/team2", {**team2, "hidden": True})
    assert r.status_code == 200 and r.json()["hidden"] is True
    assert "team2" not in board_teams(api) and "team2" not in board_teams(api, "team1")
    assert "team2" in board_teams(api, "admin") and "team2" in board_teams(api, "judge")
    assert api.submit("team2").status_code == 201  # still judged
    assert server.judging.run_pending() == 1
    assert [e["data"].get("hidden") for e in feed(api) if e["type"] == "teams" and e["id"] == "team2"][-1] is True
    r = put(api, "teams/team2", {**team2, "hidden": False})
    assert "team2" in board_teams(api)


def test_disabling_an_account(api: Api, server: Server) -> None:
    page = login(server, "team1")
    assert page.get("/submissions").status_code == 200
    assert api.get(f"{C}/account", "team1").status_code == 200
    r = post(api, "accounts/team1/disable")
    assert r.status_code == 200 and r.json()["disabled"] is True
    assert page.get("/submissions").headers.get("location") == "/login"  # the session ended
    assert api.get(f"{C}/account", "team1").status_code == 401
    assert api.submit("team1").status_code == 401  # its submissions are refused
    token = csrf_of(page.get("/login").text)
    r = page.post("/login", data={"csrf": token, "username": "team1", "password": PASSWORDS["team1"]})
    assert r.status_code == 401
    assert api.get(f"{C}/teams/team1").status_code == 200  # the team stays
    assert post(api, "accounts/team1/enable").status_code == 200
    assert api.submit("team1").status_code == 201
    actions = [e["action"] for e in api.get(f"{C}/audit-log", "admin").json()]
    assert actions == ["account.enable", "account.disable"]


def test_reset_password(api: Api, server: Server) -> None:
    page = login(server, "team1")
    assert page.get("/submissions").status_code == 200  # the session is found (and kept in memory)
    r = post(api, "accounts/team1/reset-password")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    password = r.json()["password"]
    assert page.get("/submissions").headers.get("location") == "/login"  # sessions end
    assert api.get(f"{C}/account", "team1").status_code == 401
    assert api.request("GET", f"{C}/account", "team1", password).status_code == 200
    assert password not in str(api.get(f"{C}/audit-log", "admin").json())


def test_changes_survive_a_restart(root: Path, clock: FakeClock) -> None:
    first = make_server(root, clock)
    api = Api.of(first)
    assert put(api, "teams/late", {"id": "late", "name": "Late", "hidden": True}).status_code == 200
    password = put(api, "accounts/late", {"id": "late", "type": "team", "team_id": "late"}).json()["password"]
    assert post(api, "accounts/team2/disable").status_code == 200
    first.close()
    second = make_server(root, clock)
    try:
        api = Api.of(second)
        assert api.get(f"{C}/teams/late", "admin").json()["hidden"] is True
        assert api.request("GET", f"{C}/account", "late", password).status_code == 200
        assert api.get(f"{C}/account", "team2").status_code == 401
        assert len(api.get(f"{C}/audit-log", "admin").json()) == 3
        assert "late" not in (root / "teams.json").read_text()  # the package is the organizer's
    finally:
        second.close()


# ------------------------------------------------------------------------------------------------ pages


def test_the_people_page(server: Server) -> None:
    admin = login(server, "admin")
    page = admin.get("/admin/people")
    assert page.status_code == 200 and 'id="team-team1"' in page.text and 'id="save-team"' in page.text
    token = csrf_of(page.text)
    r = admin.post("/admin/teams", data={"csrf": token, "id": "late", "name": "Late", "group_id": "g"})
    assert r.status_code == 303  # POST, then redirect, then GET: a reload re-posts nothing
    r = admin.get(r.headers["location"])
    assert 'id="team-late"' in r.text and "team late saved" in r.text
    r = admin.post("/admin/accounts", data={"csrf": token, "id": "late", "type": "team", "team_id": "late"})
    assert r.status_code == 303 and "shown=" in r.headers["location"]
    r = admin.get(r.headers["location"])
    shown = htmllib.unescape(r.text.split('id="password">')[1].split("<")[0])
    assert Api.of(server).request("GET", f"{C}/account", "late", shown).status_code == 200
    assert shown not in admin.get(r.url.path + "?" + r.url.query.decode()).text  # shown once, even reloaded
    r = admin.post("/admin/accounts/team1/disabled", data={"csrf": token, "disabled": "1"})  # not confirmed
    assert r.status_code == 200 and "Disable account team1?" in r.text and 'data-disabled="team1"' not in r.text
    r = admin.post("/admin/accounts/team1/disabled", data={"csrf": token, "disabled": "1", "confirmed": "yes"})
    assert r.status_code == 303 and 'data-disabled="team1"' in admin.get(r.headers["location"]).text
    r = admin.post("/admin/teams/team2/hidden", data={"csrf": token, "hidden": "1"})
    assert r.status_code == 303 and 'data-hidden="team2"' in admin.get(r.headers["location"]).text
    r = admin.post("/admin/accounts/team3/reset-password", data={"csrf": token})
    assert r.status_code == 200 and "Reset the password of account team3?" in r.text
    r = admin.post("/admin/accounts/team3/reset-password", data={"csrf": token, "confirmed": "yes"})
    assert r.status_code == 303
    r = admin.get(r.headers["location"])
    new = htmllib.unescape(r.text.split('id="password">')[1].split("<")[0])
    assert Api.of(server).request("GET", f"{C}/account", "team3", new).status_code == 200
    r = admin.post("/admin/teams", data={"csrf": token, "id": "bad id!"})
    assert r.status_code == 400 and 'id="error"' in r.text
    audit = admin.get("/admin/audit").text
    for action in ("team.add", "account.add", "account.disable", "team.change", "account.reset_password"):
        assert action in audit
    assert shown not in audit and new not in audit
    # judges see the teams, change nothing, and do not see the audit log
    judge = login(server, "judge")
    page = judge.get("/admin/people")
    assert page.status_code == 200 and 'id="save-team"' not in page.text
    token = csrf_of(page.text)
    assert judge.post("/admin/accounts/team2/disabled", data={"csrf": token, "disabled": "1"}).status_code == 403
    assert judge.post("/admin/teams", data={"csrf": token, "id": "x"}).status_code == 403
    assert judge.get("/admin/audit").status_code == 403
    team = login(server, "team2")
    assert team.get("/admin/people").status_code in (303, 403)
    assert team.post("/admin/teams", data={"csrf": csrf_of(team.get("/scoreboard").text), "id": "x"}).status_code in (
        303,
        403,
    )
    assert Api.of(server).get(f"{C}/teams/x").status_code == 404


# ------------------------------------------------------------------------------------------------ imports


def test_importing_teams_and_accounts_through_the_api(api: Api) -> None:
    teams = [{"id": 10, "name": "Ten", "group_ids": ["g"]}, {"id": "11", "name": "Eleven"}]
    r = api.request("POST", f"{C}/import/teams", "admin", json=teams)
    assert r.status_code == 200 and r.json()["imported"] == 2
    assert api.get(f"{C}/teams/10").json()["name"] == "Ten"
    accounts = [
        {"username": "ten", "id": "ten", "type": "team", "team_id": "10", "password": "ten-password"},
        {"username": "eleven", "id": "eleven", "type": "team", "team_id": "11"},
    ]
    r = api.request("POST", f"{C}/import/accounts", "admin", json=accounts)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    (generated,) = r.json()["passwords"]
    assert generated["username"] == "eleven"
    assert api.request("GET", f"{C}/account", "ten", "ten-password").json()["team_id"] == "10"
    assert api.request("GET", f"{C}/account", "eleven", generated["password"]).json()["team_id"] == "11"
    # all or nothing: one bad entry, nothing imported
    bad = [{"id": "12", "name": "Twelve"}, {"id": "13", "group_ids": ["nope"]}]
    r = api.request("POST", f"{C}/import/teams", "admin", json=bad)
    assert r.status_code == 400 and api.get(f"{C}/teams/12").status_code == 404
    r = api.request("POST", f"{C}/import/accounts", "admin", json=[{"id": "x", "type": "team", "team_id": "no"}])
    assert r.status_code == 400 and "entry 1" in r.json()["message"]
    assert api.request("POST", f"{C}/import/teams", "judge", json=teams).status_code == 403
    assert api.request("POST", f"{C}/import/teams", "team1", json=teams).status_code == 403
    actions = [e["action"] for e in api.get(f"{C}/audit-log", "admin").json()]
    assert actions == ["accounts.import", "teams.import"]


def test_importing_files_on_the_page(server: Server) -> None:
    admin = login(server, "admin")
    token = csrf_of(admin.get("/admin/people").text)

    def upload(name: str, text: str) -> object:
        return admin.post("/admin/people/import", data={"csrf": token}, files={"file": (name, text.encode())})

    r = upload("teams.tsv", "teams\t1\n7\t1007\tg\tSeven Up\tUni\n8\t\tg\tEight\n")
    assert r.status_code == 303
    page = admin.get(r.headers["location"]).text
    assert 'id="team-7"' in page and 'id="team-8"' in page
    r = upload("accounts.tsv", "accounts\t1\nteam\tSeven Up\tteam007\tseven-pass\njury\tJo\tjo\tjo-passwd\n")
    assert r.status_code == 303
    api = Api.of(server)
    assert api.request("GET", f"{C}/account", "team007", "seven-pass").json()["team_id"] == "7"
    assert api.request("GET", f"{C}/account", "jo", "jo-passwd").json()["type"] == "judge"
    r = upload("accounts.yaml", "- {id: nine, username: nine, type: judge}\n- {id: ten, username: ten, type: judge}\n")
    r = admin.get(r.headers["location"])
    shown = htmllib.unescape(r.text.split('id="generated"')[1].split("<code>")[1].split("</code>")[0])
    assert api.request("GET", f"{C}/account", "nine", shown).status_code == 200
    assert upload("teams.tsv", "nonsense\n").status_code == 400
    assert upload("notes.txt", "x").status_code == 400
    assert upload("teams.json", "[{").status_code == 400
    # issue 43: deeply nested YAML and keys that are not strings were 500s with a traceback
    for name, text, said in (
        ("teams.yaml", "- {id: x, name: " + "[" * 5000 + "]" * 5000 + "}\n", "nested more than 32 deep"),
        ("teams.yaml", "- {id: x, name: n, extra: " + "[" * 40 + "]" * 40 + "}\n", "nested more than 32 deep"),
        ("teams.yaml", "- {1: x, id: t9, name: N}\n", "entry 1: a key that is not a string ('1')"),
        ("accounts.yaml", "- {username: u, type: team, null: x}\n", "entry 1: a key that is not a string ('None')"),
        ("teams.yaml", "- &a {id: x, name: n, extra: *a}\n", "unknown team properties: extra"),  # holds itself
    ):
        r = upload(name, text)
        assert r.status_code == 400 and said in htmllib.unescape(r.text), (text[:40], r.status_code)
    assert Api.of(server).get(f"{C}/teams/x").status_code == 404


def test_another_sites_forms_change_nothing_on_these_pages(server: Server) -> None:
    """Every state-changing page of issue 30 refuses a request from another site's page (Origin), admin's
    session and token or not, and nothing changes (the audit log would say)."""
    admin = login(server, "admin")
    token = csrf_of(admin.get("/admin/people").text)
    for spec in (*LIVE_PAGES, *PEOPLE_PAGES):
        if spec.method != "POST":
            continue
        path = spec.path.replace("{id}", "team1" if "teams" in spec.path or "accounts" in spec.path else "1")
        data = {"csrf": token, "action": "pause", "id": "evil", "type": "admin", "disabled": "1", "hidden": "1"}
        r = admin.post(path, data=data, headers={"origin": "https://evil.example"})
        assert r.status_code == 403 and "cross-site" in r.text, (path, r.status_code)
        r = admin.post(path, data={**data, "csrf": "forged"})
        assert r.status_code == 403, path
    assert Api.of(server).get(f"{C}/audit-log", "admin").json() == []


def test_groups_and_organizations(api: Api, server: Server) -> None:
    r = put(api, "organizations/uni", {"id": "uni", "name": "Uni", "formal_name": "The University", "country": "NLD"})
    assert r.status_code == 200 and r.json()["formal_name"] == "The University"
    assert put(api, "groups/late", {"id": "late", "name": "Late arrivals"}).status_code == 200
    body = {"id": "late", "name": "Late", "group_ids": ["late"], "organization_id": "uni"}
    assert put(api, "teams/late", body).status_code == 200  # the new group and organization are known
    assert api.get(f"{C}/groups/late").json()["name"] == "Late arrivals"
    assert [r["team_id"] for r in api.get(f"{C}/scoreboard?group_id=late").json()["rows"]] == ["late"]
    assert put(api, "groups/g", {"id": "g", "name": "Everybody"}).status_code == 200  # the package's, renamed
    assert api.get(f"{C}/groups/g").json()["name"] == "Everybody"
    events = [(e["type"], e["id"]) for e in feed(api)]
    assert ("groups", "late") in events and ("organizations", "uni") in events
    assert put(api, "groups/x", {"id": "x"}).status_code == 400  # a name is required
    assert put(api, "groups/x", {"id": "x", "name": "X", "color": "red"}).status_code == 400
    assert put(api, "groups/x", {"id": "y", "name": "X"}).status_code == 409
    assert put(api, "groups/x", {"id": "x", "name": "X"}, user="judge").status_code == 403
    admin = login(server, "admin")
    token = csrf_of(admin.get("/admin/people").text)
    r = admin.post("/admin/groups", data={"csrf": token, "kind": "organizations", "id": "poly", "name": "Poly"})
    assert r.status_code == 303 and "<code>poly</code> Poly" in admin.get(r.headers["location"]).text
    assert "<code>late</code> Late arrivals" in login(server, "judge").get("/admin/people").text
    actions = [e["action"] for e in api.get(f"{C}/audit-log", "admin").json()]
    assert actions[-3:] == ["team.add", "group.add", "organization.add"]
