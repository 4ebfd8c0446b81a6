"""Verification (issue 47, DOMjudge's ``verification_required``): while the contest requires it, a finished
judgement is the jury's until a judge verifies it: the team, the public, the board, the balloons and the
event feed see it as still being judged (and the judgement it replaces as current); verified, it is
published as if just finished. Off by default; turned on and off by an admin (audited), on: nothing already
shown is hidden, off: everything that waited is shown. Judging is scripted (serve_fixtures.ScriptedJudge)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, feed, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.serve.site.server import Server

C = "/api/contests/test"


def contest(tmp_path: Path, required: bool) -> tuple[Server, Api, FakeClock]:
    clock = FakeClock(T0 + HOUR)
    extra = ("verification_required: true",) if required else ()
    server = make_server(write_contest(tmp_path / "contest", extra=extra), clock)
    return server, Api.of(server), clock


@pytest.fixture
def required(tmp_path: Path) -> Iterator[tuple[Server, Api, FakeClock]]:
    server, api, clock = contest(tmp_path, True)
    for team, code in (("team1", SUM_WA), ("team2", SUM_AC)):
        assert api.submit(team, files={"sum.py": code}).status_code == 201
        clock.advance(60)
    server.judging.run_pending()
    yield server, api, clock
    server.close()


def shown(api: Api, user: str | None, sid: str) -> tuple[str | None, bool] | None:
    """The judgement of ``sid`` a viewer is shown as current: (its type, or None: being judged)."""
    current = [j for j in api.get(f"{C}/judgements?submission_id={sid}", user).json() if j["current"]]
    return (current[-1].get("judgement_type_id"), True) if current else None


def cell(api: Api, user: str | None, team: str) -> dict:  # type: ignore[type-arg]
    row = next(r for r in api.get(f"{C}/scoreboard", user).json()["rows"] if r["team_id"] == team)
    return next(p for p in row["problems"] if p["problem_id"] == "sum")  # type: ignore[no-any-return]


def test_a_judgement_waits_for_a_judge_before_anyone_else_sees_it(required: tuple[Server, Api, FakeClock]) -> None:
    server, api, _ = required
    assert shown(api, "admin", "2") == ("AC", True)
    for user in ("team2", "team1", None):
        assert shown(api, user, "2") == (None, True), user  # being judged, as the feed gave it
    assert api.get(f"{C}/runs?submission_id=2", "team2").json() == []
    assert cell(api, None, "team2")["num_pending"] == 1 and cell(api, "team2", "team2").get("score", 0) == 0
    assert cell(api, "admin", "team2")["score"] == 100.0  # the jury's board is live
    assert [b["team_id"] for b in api.get(f"{C}/balloons", "judge").json()] == []  # the team does not know yet
    finals = [e for e in feed(api, "team2") if e["type"] == "judgements" and e["data"].get("judgement_type_id")]
    assert finals == []
    team2 = login(server, "team2")
    assert team2.get("/submissions/2/runs/1").status_code == 404
    assert "judging…" in team2.get("/submissions/2").text.split('id="verdict">')[1][:80]  # its page too
    waiting = api.get(f"{C}/verification", "judge").json()
    assert waiting["required"] is True and [w["submission_id"] for w in waiting["awaiting"]] == ["1", "2"]
    assert api.get(f"{C}/verification", "team1").status_code == 403

    # a judge verifies it (the queue's button): published as if just finished
    judge = login(server, "judge")
    page = judge.get("/admin/verification").text
    assert 'id="awaiting-2"' in page and 'id="verify-2"' in page
    r = judge.post("/admin/verification/2", data={"csrf": csrf_of(page), "comment": "checked by hand"})
    assert r.status_code == 303
    assert shown(api, "team2", "2") == ("AC", True) and shown(api, None, "2") == ("AC", True)
    assert shown(api, "team1", "1") == (None, True)  # the other still waits
    assert cell(api, None, "team2")["score"] == 100.0
    assert [b["team_id"] for b in api.get(f"{C}/balloons", "judge").json()] == ["team2"]
    assert len(api.get(f"{C}/runs?submission_id=2", "team2").json()) == 4
    assert 'id="verdict">AC' in team2.get("/submissions/2").text
    finals = [e for e in feed(api, None) if e["type"] == "judgements" and e["data"].get("judgement_type_id")]
    assert [e["data"]["submission_id"] for e in finals] == ["2"]
    assert [w["submission_id"] for w in api.get(f"{C}/verification", "admin").json()["awaiting"]] == ["1"]
    log = [(e["action"], json.loads(e["detail"])) for e in api.get(f"{C}/audit-log", "admin").json()]
    assert (
        "judgement.review",
        {"submission_id": "2", "verified": True, "comment": "checked by hand", "released": 1},
    ) in log


def test_a_rejudge_waits_too_and_the_old_verdict_stays_shown(required: tuple[Server, Api, FakeClock]) -> None:
    server, api, _ = required
    ok = {"verified": True, "comment": ""}
    assert api.request("POST", f"{C}/submissions/1/review", "judge", json=ok).status_code == 200
    assert shown(api, "team1", "1") == ("WA", True)
    assert api.request("POST", f"{C}/submissions/1/rejudge", "judge").status_code == 202  # applies itself
    server.judging.run_pending()
    assert [j["current"] for j in api.get(f"{C}/judgements?submission_id=1", "admin").json()] == [False, True]
    team = api.get(f"{C}/judgements?submission_id=1", "team1").json()
    assert [(j["current"], j.get("judgement_type_id")) for j in team] == [(True, "WA"), (False, None)]
    assert api.request("POST", f"{C}/submissions/1/review", "judge", json=ok).status_code == 200
    team = api.get(f"{C}/judgements?submission_id=1", "team1").json()
    assert [(j["current"], j.get("judgement_type_id")) for j in team] == [(False, "WA"), (True, "WA")]


def test_turned_on_it_hides_nothing_shown_and_off_it_shows_what_waited(tmp_path: Path) -> None:
    server, api, clock = contest(tmp_path, False)
    assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
    server.judging.run_pending()
    assert shown(api, "team1", "1") == ("AC", True)  # off by default
    admin, judge = login(server, "admin"), login(server, "judge")
    token = csrf_of(admin.get("/admin/verification").text)
    assert judge.post("/admin/verification", data={"csrf": token, "required": "1"}).status_code == 403
    assert admin.post("/admin/verification", data={"csrf": token, "required": "1"}).status_code == 303
    assert shown(api, "team1", "1") == ("AC", True)  # shown already: stays shown
    clock.advance(60)
    assert api.submit("team2", files={"sum.py": SUM_AC}).status_code == 201
    server.judging.run_pending()
    assert shown(api, "team2", "2") == (None, True)
    r = admin.post("/admin/verification", data={"csrf": token, "required": "0"})  # asked first
    assert r.status_code == 200 and "Stop requiring verification?" in r.text
    r = admin.post("/admin/verification", data={"csrf": token, "required": "0", "confirmed": "yes"})
    assert r.status_code == 303 and "1+judgement" in r.headers["location"]
    assert shown(api, "team2", "2") == ("AC", True)
    assert api.get(f"{C}/verification", "admin").json() == {"required": False, "awaiting": []}
    actions = [
        json.loads(e["detail"])
        for e in api.get(f"{C}/audit-log", "admin").json()
        if e["action"] == "contest.verification_required"
    ]
    assert actions == [{"required": False, "released": 1}, {"required": True, "released": 0}]
    # a restart keeps the admin's choice over contest.yaml's
    server.close()
    server = make_server(tmp_path / "contest", clock)
    assert server.contest.info.verification_required is False
    server.close()


def test_off_by_default_nothing_waits(tmp_path: Path) -> None:
    server, api, _ = contest(tmp_path, False)
    assert api.submit("team1", files={"sum.py": SUM_WA}).status_code == 201
    server.judging.run_pending()
    assert shown(api, "team1", "1") == ("WA", True) and shown(api, None, "1") == ("WA", True)
    assert api.get(f"{C}/verification", "judge").json() == {"required": False, "awaiting": []}
    server.close()


def test_contest_yaml_turned_off_across_a_restart_the_admin_shows_what_waited(tmp_path: Path) -> None:
    server, api, clock = contest(tmp_path, True)
    assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
    server.judging.run_pending()
    server.close()
    yaml = tmp_path / "contest" / "contest.yaml"
    yaml.write_text(yaml.read_text().replace("verification_required: true", "verification_required: false"))
    server = make_server(tmp_path / "contest", clock)
    api = Api.of(server)
    assert shown(api, "team1", "1") == (None, True)  # still waiting: nobody verified it
    admin = login(server, "admin")
    page = admin.get("/admin/verification").text
    assert "Show the judgements that waited" in page
    r = admin.post("/admin/verification", data={"csrf": csrf_of(page), "required": "0", "confirmed": "yes"})
    assert r.status_code == 303 and shown(api, "team1", "1") == ("AC", True)
    again = admin.post("/admin/verification", data={"csrf": csrf_of(page), "required": "0", "confirmed": "yes"})
    assert again.status_code == 409
    server.close()
