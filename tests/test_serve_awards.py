"""The end of a contest in `judge serve`, through the real app: awards (freeze semantics: the public's
unchanged until the thaw; an admin's edits kept when the board changes), finalize (refused before the end
and while a submission waits; then state.finalized and end_of_updates, the final awards on the feed, the
feed's last event), a rejudge refused until un-finalized, hidden groups and main_scoreboard_group_id."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import FIXTURES, T0, Api, FakeClock, db, feed, make_server, write_contest
from spec_shapes import AWARDS, errors
from test_serve_pages import client, csrf_of, login
from test_serve_passfail import MarkedJudge, at, source, submit

from judge.serve.model.contest import load_contest
from judge.serve.model.records import AwardEdit
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.lifecycle import resolver
from judge.serve.site.server import Server
from judge.serve.storage import open_storage
from judge.serve.storage.schema import SCHEMA_VERSION

C = "/api/contests/test"


@pytest.fixture
def contest(tmp_path: Path) -> Path:
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=("medals: {gold: 1, silver: 1}",))
    teams = json.loads((root / "teams.json").read_text())
    teams[2]["group_ids"] = ["g", "north"]  # team3 Mu
    (root / "teams.json").write_text(json.dumps(teams))
    groups = [{"id": "g", "name": "Everyone"}, {"id": "north", "name": "North"}]
    (root / "groups.json").write_text(json.dumps(groups))
    return root


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def server(contest: Path, clock: FakeClock):  # type: ignore[no-untyped-def]
    judge = MarkedJudge({p.id: p.problem for p in load_contest(contest, FIXTURES).problems})
    s = make_server(contest, clock, judge)
    yield s
    s.close()


def awards(api: Api, user: str | None) -> dict[str, list[str] | None]:
    doc = api.get(f"{C}/awards", user).json()
    assert errors(AWARDS, doc) == []
    return {a["id"]: a["team_ids"] for a in doc}


def test_awards_follow_the_board_frozen_for_the_public_and_edits_are_kept(server: Server, clock: FakeClock) -> None:
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    submit(api, server, clock, 20, "team3", "sum", "AC")
    at(clock, 60)
    before = {
        "winner": ["team1"],
        "gold-medal": ["team1"],
        "silver-medal": ["team3"],
        "first-to-solve-sum": ["team1"],
        "first-to-solve-divisor": [],
        "group-winner-g": ["team1"],
        "group-winner-north": ["team3"],
    }
    assert awards(api, None) == before == awards(api, "admin") == awards(api, "team2")

    # an admin's awards: a new one (POST), the winner's citation (PATCH); kept when the board changes
    r = api.request("POST", f"{C}/awards", "admin", json={"citation": "Best newcomer", "team_ids": ["team2"]})
    assert r.status_code == 201, r.text
    assert r.json() == {"id": "award-1", "citation": "Best newcomer", "team_ids": ["team2"]}
    assert r.headers["location"] == f"{C}/awards/award-1"
    r = api.request("PATCH", f"{C}/awards/group-winner-north", "admin", json={"citation": "Northern champions"})
    assert r.json() == {"id": "group-winner-north", "citation": "Northern champions", "team_ids": ["team3"]}
    assert api.request("DELETE", f"{C}/awards/first-to-solve-divisor", "admin").status_code == 204

    # the freeze (4:00): Mu solves both; the public's awards stay as they were, staff see the live ones
    submit(api, server, clock, 245, "team3", "divisor", "AC")
    at(clock, 250)
    kept = {k: v for k, v in before.items() if k != "first-to-solve-divisor"} | {"award-1": ["team2"]}
    assert awards(api, None) == kept == awards(api, "team3")  # the deleted award stays deleted
    live = awards(api, "admin")
    assert live["winner"] == ["team3"] == live["gold-medal"] and live["silver-medal"] == ["team1"]
    assert live["group-winner-north"] == ["team3"] and live["award-1"] == ["team2"]
    assert api.get(f"{C}/awards/group-winner-north", "admin").json()["citation"] == "Northern champions"


def test_an_edit_during_the_freeze_publishes_nothing_the_frozen_board_hides(server: Server, clock: FakeClock) -> None:
    """Issue 43: ``PATCH awards/gold-medal {"citation": ...}`` took the award's teams from the live board and
    published them to everyone (the API and the public feed) during the freeze."""
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    submit(api, server, clock, 245, "team3", "sum", "AC")  # the freeze (4:00): Mu solves both
    submit(api, server, clock, 246, "team3", "divisor", "AC")
    at(clock, 250)
    frozen = awards(api, None)
    assert frozen["gold-medal"] == ["team1"] and awards(api, "admin")["gold-medal"] == ["team3"]
    public_feed = feed(api)

    for award in ("gold-medal", "winner", "silver-medal", "group-winner-north"):
        r = api.request("PATCH", f"{C}/awards/{award}", "admin", json={"citation": "Renamed"})
        assert r.status_code == 409 and "team_ids" in r.json()["message"], r.text
    assert awards(api, None) == frozen == awards(api, "team2")
    assert feed(api) == public_feed  # nothing published
    assert all(e["type"] != "awards" for e in feed(api, "admin"))
    assert db(server).execute("SELECT count(*) FROM award_edits").fetchone()[0] == 0

    # what the public sees already may be renamed; teams an admin gives are published as given
    r = api.request("PATCH", f"{C}/awards/first-to-solve-sum", "admin", json={"citation": "Fastest on A"})
    assert r.status_code == 200 and r.json()["team_ids"] == ["team1"], r.text
    r = api.request("PATCH", f"{C}/awards/gold-medal", "admin", json={"citation": "Gold", "team_ids": ["team1"]})
    assert r.status_code == 200, r.text
    published = {e["id"]: e["data"]["team_ids"] for e in feed(api) if e["type"] == "awards"}
    assert published == {"first-to-solve-sum": ["team1"], "gold-medal": ["team1"]}
    assert "team3" not in json.dumps(api.get(f"{C}/awards").json())

    # after the thaw the live board is everyone's: the citation alone may change again
    at(clock, 301)
    assert api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": format_time(clock.now())})
    assert api.get(f"{C}/state").json()["thawed"] is not None
    r = api.request("PATCH", f"{C}/awards/winner", "admin", json={"citation": "Champions"})
    assert r.status_code == 200 and r.json()["team_ids"] == ["team3"], r.text


@pytest.mark.parametrize(
    "method, path, body, status",
    [
        ("POST", "awards", {"id": "x", "citation": "c", "team_ids": []}, 400),  # a POST with an id
        ("POST", "awards", {"citation": "c"}, 400),  # team_ids missing
        ("PUT", "awards/x", {"citation": "c", "team_ids": ["nobody"]}, 400),  # an unknown team
        ("PUT", "awards/x", {"id": "y", "citation": "c", "team_ids": []}, 400),  # another id than the URL's
        ("PATCH", "awards/x", {"citation": "c"}, 404),  # no such award
        ("PATCH", "awards/winner", {"citation": None}, 400),
        ("DELETE", "awards/x", None, 404),
    ],
)
def test_award_edits_refused(server: Server, method: str, path: str, body: Any, status: int) -> None:
    api = Api.of(server)
    kw = {} if body is None else {"json": body}
    r = api.request(method, f"{C}/{path}", "admin", **kw)
    assert r.status_code == status, r.text
    assert api.request("PUT", f"{C}/awards/x", "team1", json={"citation": "c", "team_ids": []}).status_code == 403
    assert api.request("PUT", f"{C}/awards/x", "judge", json={"citation": "c", "team_ids": []}).status_code == 403


@pytest.mark.timeout(60)
def test_finalize(server: Server, clock: FakeClock) -> None:
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    submit(api, server, clock, 250, "team2", "sum", "AC")  # in the freeze
    r = api.request("POST", f"{C}/finalize", "admin")
    assert r.status_code == 409 and "the contest has not ended yet" in r.text, r.text
    at(clock, 299)
    assert api.submit("team3", files=source("AC")).status_code == 201  # not judged yet
    at(clock, 301)
    r = api.request("POST", f"{C}/finalize", "admin")
    assert r.status_code == 409 and "not judged yet" in r.text, r.text
    assert api.request("POST", f"{C}/finalize", "judge").status_code == 403
    server.judging.run_pending()
    assert api.get(f"{C}/state").json()["finalized"] is None

    r = api.request("POST", f"{C}/finalize", "admin")
    assert r.status_code == 200, r.text
    finalized = format_time(clock.now())
    state = api.get(f"{C}/state").json()
    assert state == r.json() and state["finalized"] == finalized
    assert state["thawed"] is None and state["end_of_updates"] is None  # issue 43: the board stays frozen
    assert awards(api, None)["winner"] == ["team1"]  # the frozen board's: team2's solve in the freeze is hidden
    assert awards(api, None)["gold-medal"] == ["team1"] and not awards(api, None).get("silver-medal")  # hidden
    events = feed(api)
    assert events[-1]["type"] == "state" and events[-1]["data"]["finalized"] == finalized
    assert not [e for e in events if e["type"] == "awards"]  # the final awards wait for the thaw
    assert [e for e in events if e["type"] == "contest"][-1]["data"].get("scoreboard_thaw_time") is None  # no thaw set

    at(clock, 303)  # the ceremony (the resolver), then the thaw
    thaw = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": format_time(clock.now())})
    assert thaw.status_code == 200, thaw.text
    now = format_time(clock.now())
    state = api.get(f"{C}/state").json()
    assert (state["finalized"], state["thawed"], state["end_of_updates"]) == (finalized, now, now)
    assert awards(api, None) == awards(api, "admin")  # thawed: the public sees the final awards
    assert awards(api, None)["winner"] == ["team1"]
    events = feed(api)
    assert events[-1]["type"] == "state" and events[-1]["data"]["end_of_updates"] == now
    final = {e["id"]: e["data"]["team_ids"] for e in events if e["type"] == "awards"}
    assert final == awards(api, None)
    streamed = api.get(f"{C}/event-feed")  # a streaming feed ends with end_of_updates (else: the timeout)
    assert [json.loads(line) for line in streamed.text.splitlines() if line.strip()] == events
    log = [(e["username"], e["action"]) for e in api.get(f"{C}/audit-log", "admin").json()]
    assert ("admin", "contest.finalize") in log and ("admin", "contest.thaw") in log

    # after finalize: a rejudge and an award edit are refused until an admin un-finalizes
    assert api.request("POST", f"{C}/submissions/1/rejudge", "admin").status_code == 409
    assert api.request("POST", f"{C}/problems/sum/rejudge", "admin").status_code == 409
    assert api.request("DELETE", f"{C}/awards/winner", "admin").status_code == 409
    assert api.request("POST", f"{C}/finalize", "admin").status_code == 409
    r = api.request("POST", f"{C}/unfinalize", "admin")
    assert r.status_code == 200 and r.json()["finalized"] is None and r.json()["end_of_updates"] is None
    assert api.request("POST", f"{C}/submissions/1/rejudge", "admin").status_code == 202


def test_thaw_then_finalize_and_a_contest_never_frozen(tmp_path: Path, clock: FakeClock) -> None:
    """The spec lets the thaw and the finalize come in either order: thawed first, ``end_of_updates`` and the
    final awards come with the finalize; a contest never frozen gets them at its finalize."""
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=("medals: {gold: 1}",))
    server = make_server(root, clock, MarkedJudge({p.id: p.problem for p in load_contest(root, FIXTURES).problems}))
    try:
        api = Api.of(server)
        submit(api, server, clock, 250, "team2", "sum", "AC")
        at(clock, 301)
        thaw = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": format_time(clock.now())})
        assert thaw.status_code == 200
        assert api.get(f"{C}/state").json()["end_of_updates"] is None
        assert not [e for e in feed(api) if e["type"] == "awards"]
        at(clock, 302)
        state = api.request("POST", f"{C}/finalize", "admin").json()
        assert state["end_of_updates"] == state["finalized"] == format_time(clock.now())
        events = feed(api)
        assert {e["id"] for e in events if e["type"] == "awards"} >= {"winner", "gold-medal"}
        assert events[-1]["type"] == "state" and events[-1]["data"]["end_of_updates"] == state["finalized"]
    finally:
        server.close()
    never = write_contest(tmp_path / "n", scoreboard_type="pass-fail", freeze="0:00:00")
    server = make_server(never, clock, MarkedJudge({p.id: p.problem for p in load_contest(never, FIXTURES).problems}))
    try:
        api = Api.of(server)
        at(clock, 301)
        state = api.request("POST", f"{C}/finalize", "admin").json()
        assert state["frozen"] is None and state["thawed"] is None
        assert state["end_of_updates"] == state["finalized"] == format_time(clock.now())
    finally:
        server.close()


def test_the_audit_log_has_rejudges_award_edits_finalize_and_unfinalize(server: Server, clock: FakeClock) -> None:
    """Issue 43: these changes were missing from the audit log."""
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    assert api.request("POST", f"{C}/submissions/1/rejudge", "judge").status_code == 202
    server.judging.run_pending()
    assert api.request("POST", f"{C}/problems/sum/rejudge", "admin").status_code == 202
    server.judging.run_pending()
    body = {"citation": "Best poster", "team_ids": ["team2"]}
    created = api.request("POST", f"{C}/awards", "admin", json=body).json()
    assert (
        api.request("PATCH", f"{C}/awards/{created['id']}", "admin", json={"citation": "Best talk"}).status_code == 200
    )
    put = {"id": "winner", "citation": "Winner", "team_ids": ["team3"]}
    assert api.request("PUT", f"{C}/awards/winner", "admin", json=put).status_code == 200
    assert api.request("DELETE", f"{C}/awards/{created['id']}", "admin").status_code == 204
    at(clock, 301)
    assert api.request("POST", f"{C}/finalize", "admin").status_code == 200
    assert api.request("POST", f"{C}/unfinalize", "admin").status_code == 200
    log = [(e["username"], e["action"], json.loads(e["detail"])) for e in api.get(f"{C}/audit-log", "admin").json()]
    assert log[::-1][:8] == [
        ("judge", "submission.rejudge", {"id": "1", "queued": True, "rejudging": 1}),  # its set (issue 47)
        ("admin", "problem.rejudge", {"id": "sum", "rejudged": [1], "rejudging": 2}),
        ("admin", "award.create", {"id": created["id"], "citation": "Best poster", "team_ids": ["team2"]}),
        ("admin", "award.change", {"id": created["id"], "citation": "Best talk", "team_ids": ["team2"]}),
        ("admin", "award.replace", {"id": "winner", "citation": "Winner", "team_ids": ["team3"]}),
        ("admin", "award.delete", {"id": created["id"], "citation": "Best talk", "team_ids": ["team2"]}),
        ("admin", "contest.finalize", {}),
        ("admin", "contest.unfinalize", {}),
    ]


def test_hidden_groups_and_the_main_scoreboard_group(tmp_path: Path, clock: FakeClock) -> None:
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=("main_scoreboard_group_id: g",))
    teams = json.loads((root / "teams.json").read_text())
    teams[0]["group_ids"] = ["g", "staff"]  # team1: in a hidden group
    teams[1]["group_ids"] = []  # team2: not in the main board's group
    (root / "teams.json").write_text(json.dumps(teams))
    groups = [{"id": "g", "name": "Everyone"}, {"id": "staff", "name": "Test teams", "hidden": True}]
    (root / "groups.json").write_text(json.dumps(groups))
    server = make_server(root, clock)
    try:
        api = Api.of(server)
        assert api.get(C).json()["main_scoreboard_group_id"] == "g"
        assert [g["id"] for g in api.get(f"{C}/groups").json()] == ["g"]
        assert [g["id"] for g in api.get(f"{C}/groups", "admin").json()] == ["g", "staff"]
        assert [r["team_id"] for r in api.get(f"{C}/scoreboard").json()["rows"]] == ["team3"]
        assert [r["team_id"] for r in api.get(f"{C}/scoreboard", "admin").json()["rows"]] == ["team3"]
        assert api.get(f"{C}/scoreboard", params={"group_id": "staff"}).status_code == 400
        staff = api.get(f"{C}/scoreboard", "admin", params={"group_id": "staff"}).json()
        assert [r["team_id"] for r in staff["rows"]] == ["team1"]
        assert "group-winner-staff" not in {a["id"] for a in api.get(f"{C}/awards", "admin").json()}
        assert [e["id"] for e in feed(api) if e["type"] == "groups"] == ["g"]
    finally:
        server.close()


SCHEMA_13_CHANGED = ("judgements", "jobs", "previews", "preview_runs")  # issue 47 added columns to them


def test_a_schema_6_database_is_upgraded_with_the_award_edits(tmp_path: Path) -> None:
    """Schema 7 (issue 31) brought the admins' award edits: a database of schema 6 opens upgraded (to the
    newest schema, 7 or later) with an award_edits table that keeps an edit, and keeps what it held."""
    path = tmp_path / "old.sqlite"
    storage = open_storage(path)
    with storage.write() as w:
        w.set_meta("contest_id", "kept")
    storage.close()
    conn = sqlite3.connect(path)  # what the schema-6 release wrote: no award_edits (nor later tables), version 6
    for table in ("award_edits", "counterexamples", "fuzz_jobs", "prints", *SCHEMA_13_CHANGED):  # prints: schema 11
        conn.execute(f"DROP TABLE {table}")
    conn.executescript("DELETE FROM schema_version; INSERT INTO schema_version VALUES (6, 0);")
    conn.close()
    upgraded = open_storage(path)
    assert SCHEMA_VERSION >= 7 and upgraded.schema_version() == SCHEMA_VERSION
    edit = AwardEdit("winner", "Contest winner", ("team2",))
    with upgraded.write() as w:
        w.put_award_edit(edit)
        w.put_award_edit(AwardEdit("honors", "Honors", None, removed=True))
    with upgraded.read() as r:
        assert r.get_meta("contest_id") == "kept"
        assert r.award_edits() == [edit, AwardEdit("honors", "Honors", None, removed=True)]
    upgraded.close()


def test_the_admin_page_finalizes_and_says_why_not(server: Server, clock: FakeClock) -> None:
    """The finalize and the thaw are each confirmed on a page of their own, which says what they do and the
    order (issue 43: the finalize thawed at once, without a confirmation); a form without the confirmation
    does nothing and leads there."""
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    admin = login(server, "admin")
    assert 'id="finalize"' not in admin.get("/admin").text  # not before the end
    at(clock, 299)
    assert api.submit("team2", files=source("WA")).status_code == 201  # waits to be judged
    at(clock, 301)
    page = admin.get("/admin").text
    assert 'href="/admin/finalize" id="finalize"' in page and 'id="end-steps"' in page
    steps = page[page.index('id="end-steps"') :]
    assert steps.index("Finalize the results") < steps.index("resolver") < steps.index("Thaw the scoreboard")
    confirm = admin.get("/admin/finalize").text
    assert 'id="refusal"' in confirm and "1 submission(s) made during the contest are not judged yet" in confirm
    assert 'id="stays-frozen"' in confirm and 'id="confirm" disabled' in confirm
    r = admin.post("/admin/finalize", data={"csrf": csrf_of(confirm), "confirm": "yes"})
    page = admin.get(r.headers["location"]).text
    assert "not finalized: 1 submission(s) made during the contest are not judged yet" in page
    judge = login(server, "judge")
    assert judge.post("/admin/finalize", data={"csrf": csrf_of(judge.get("/admin").text)}).status_code == 403
    assert judge.get("/admin/finalize").status_code == 403 and judge.get("/admin/thaw").status_code == 403
    server.judging.run_pending()
    r = admin.post("/admin/finalize", data={"csrf": csrf_of(admin.get("/admin").text)})  # no confirmation
    assert r.status_code == 303 and r.headers["location"].startswith("/admin/finalize?")
    assert api.get(f"{C}/state").json()["finalized"] is None
    confirm = admin.get(r.headers["location"]).text
    assert "not done: confirm it on this page" in confirm and 'id="refusal"' not in confirm
    r = admin.post("/admin/finalize", data={"csrf": csrf_of(confirm), "confirm": "yes"})
    page = admin.get(r.headers["location"]).text
    assert "the results are final; the scoreboard stays frozen: run the resolver, then thaw it" in page
    assert 'id="finalized"' in page and 'id="unfinalize"' in page and 'id="thaw"' in page
    state = api.get(f"{C}/state").json()
    assert state["finalized"] is not None and state["thawed"] is None
    confirm = admin.get("/admin/thaw").text
    assert 'id="thaw-now"' in confirm and 'id="not-final-yet"' not in confirm
    r = admin.post("/admin/thaw", data={"csrf": csrf_of(confirm), "confirm": "yes"})
    assert (
        "the final results and the awards are public, the event feed has ended" in admin.get(r.headers["location"]).text
    )
    assert api.get(f"{C}/state").json()["end_of_updates"] is not None
    r = admin.post("/admin/unfinalize", data={"csrf": csrf_of(admin.get("/admin").text)})
    assert 'id="finalize"' in admin.get(r.headers["location"]).text
    assert api.get(f"{C}/state").json()["finalized"] is None


MEDAL = re.compile(r'<span class="medal (\w+)" title="[^"]*"></span>(\w+)')


def test_the_awards_page_and_the_medals_wait_for_the_thaw(server: Server, clock: FakeClock) -> None:
    """Issue 43: the awards on the live site, an awards page and medals on the final board, for everyone
    once the contest is over and the board thawed; before that nothing of them (nor of the results the
    freeze hides) for the public and the teams; staff see the live awards, marked as theirs only."""
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    submit(api, server, clock, 250, "team2", "sum", "AC")  # in the freeze: hidden until the thaw
    public, team3, admin = client(server), login(server, "team3"), login(server, "admin")
    for viewer in (public, team3):
        page = viewer.get("/awards").text
        assert 'id="awards-later"' in page and "Alpha" not in page and 'id="awards"' not in page
        assert 'href="/awards"' not in viewer.get("/scoreboard").text  # no link yet
    staff = admin.get("/awards").text
    assert 'id="awards-staff-only"' in staff and 'href="/awards"' in staff
    assert "Silver medal winner</span>: Alpha" in staff  # the live board's
    at(clock, 301)
    body = {"id": "bronze-medal", "citation": "Bronze medal", "team_ids": ["team3"]}  # an admin's medal
    assert api.request("PUT", f"{C}/awards/bronze-medal", "admin", json=body).status_code == 200
    assert api.request("POST", f"{C}/finalize", "admin").status_code == 200
    for viewer in (public, team3, admin):  # finalized, the board still frozen: no medals anywhere
        assert not MEDAL.findall(viewer.get("/scoreboard").text)
        assert not MEDAL.findall(viewer.get("/scoreboard?fragment=1").text)
    assert 'id="awards-later"' in public.get("/awards").text
    assert "the ceremony comes first" in public.get("/awards").text

    at(clock, 305)
    thaw = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": format_time(clock.now())})
    assert thaw.status_code == 200
    for viewer in (public, team3, admin):
        board = viewer.get("/scoreboard").text
        assert MEDAL.findall(board) == [("gold", "Zeta"), ("silver", "Alpha"), ("bronze", "Mu")]
        assert MEDAL.findall(viewer.get("/scoreboard?fragment=1").text) == MEDAL.findall(board)
        assert 'href="/awards"' in board
        page = viewer.get("/awards").text
        assert 'id="awards-later"' not in page and 'id="awards-staff-only"' not in page
        items = re.findall(r'<li id="award-([\w-]+)">(.*?)</li>', page)
        assert [i for i, _ in items][:4] == ["winner", "gold-medal", "silver-medal", "bronze-medal"]
        assert "Zeta" in dict(items)["winner"] and "Alpha" in dict(items)["silver-medal"]
        assert "Mu" in dict(items)["bronze-medal"] and 'class="medal bronze"' in dict(items)["bronze-medal"]
        assert [i for i, _ in items][-2:] == ["first-to-solve-sum", "first-to-solve-divisor"]
    assert public.get("/scoreboard").text.count('class="medal ') == 3
    api_board = api.get(f"{C}/scoreboard").json()  # the API's board has no medals: the awards endpoint does
    assert "medal" not in json.dumps(api_board)


def test_the_board_page_filters_by_group(server: Server, clock: FakeClock) -> None:
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    at(clock, 20)
    page = login(server, "team2")
    whole = page.get("/scoreboard").text
    assert 'id="group-filter"' in whole and re.findall(r'class="contestant">(\w+)', whole) == ["Zeta", "Alpha", "Mu"]
    north = page.get("/scoreboard", params={"group": "north"}).text
    assert re.findall(r'class="contestant">(\w+)', north) == ["Mu"]
    assert 'value="north" selected' in north and "group=north" in north
    assert page.get("/scoreboard", params={"group": "nope"}).status_code == 400


def test_the_resolver_page_is_for_admins_after_the_end(server: Server, clock: FakeClock) -> None:
    api = Api.of(server)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    admin, judge = login(server, "admin"), login(server, "judge")
    r = admin.get("/admin/resolver")
    assert r.status_code == 409 and "once the contest has ended" in r.text
    at(clock, 301)
    assert judge.get("/admin/resolver").status_code == 403
    assert 'id="resolver-link"' in admin.get("/admin").text
    page = admin.get("/admin/resolver")
    assert page.status_code == 200 and 'id="resolver-data"' in page.text


def test_after_finalize_an_admin_cannot_date_a_submission_into_the_contest(server: Server, clock: FakeClock) -> None:
    api = Api.of(server)
    at(clock, 301)
    assert api.request("POST", f"{C}/finalize", "admin").status_code == 200
    files = source("AC")
    into = api.submit("admin", files=files, team_id="team1", time=format_time(T0 + 100 * 60))
    assert into.status_code == 409 and "finalized" in into.text
    assert api.submit("admin", files=files, team_id="team1").status_code == 201  # a test after the end: kept apart


def test_the_final_awards_never_name_a_hidden_team(server: Server, clock: FakeClock) -> None:
    """A hidden team (a jury's test account) is judged but off the public board: the final awards published
    to everyone on the feed are the public's, never a hidden team's (issue 43's review: the finalize ranked
    every team, and its awards reached the public feed naming the hidden one)."""
    api = Api.of(server)
    team1 = api.get(f"{C}/teams/team1", "admin").json()
    assert api.request("PUT", f"{C}/teams/team1", "admin", json={**team1, "hidden": True}).status_code == 200
    submit(api, server, clock, 10, "team1", "sum", "AC")  # the hidden team solves first
    submit(api, server, clock, 20, "team2", "sum", "AC")
    at(clock, 301)
    assert api.request("POST", f"{C}/finalize", "admin").status_code == 200
    thaw = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": format_time(clock.now())})
    assert thaw.status_code == 200
    published = {e["id"]: e["data"]["team_ids"] for e in feed(api) if e["type"] == "awards"}
    assert published == awards(api, None)
    assert published["winner"] == ["team2"] and published["first-to-solve-sum"] == ["team2"]
    assert not any("team1" in (ids or []) for ids in published.values())
    ceremony = resolver.ceremony(server, server.sight(Viewer(Role.ADMIN, account_id="admin"), clock.now()))
    assert "team1" not in [t.id for t in ceremony.teams] and "team1" not in ceremony.citations  # the audience's
