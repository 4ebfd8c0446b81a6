"""Languages live (issue 47): a language allowed or forbidden (DOMjudge's ``allow_submit``) by contest.yaml,
the admin page or the API's PATCH of the language (ours, audited, on the event feed), for the teams'
submissions made from then on (the jury may still submit in it; a restart keeps the admin's choice). The
time factor's live change is issue 43's (tests/test_time_factor.py)."""

from __future__ import annotations

import json
from pathlib import Path

from serve_fixtures import HOUR, SUM_AC, T0, Api, FakeClock, feed, make_server, write_contest
from test_serve_pages import csrf_of, login

C = "/api/contests/test"


def patch(api: Api, user: str | None, body: object) -> object:
    return api.request("PATCH", f"{C}/languages/python3", user, json=body)


def test_contest_yaml_forbids_a_language(tmp_path: Path) -> None:
    extra = ("languages: [{id: python3, allow_submit: false}]",)
    server = make_server(write_contest(tmp_path / "c", extra=extra), FakeClock(T0 + HOUR))
    api = Api.of(server)
    r = api.submit("team1")
    assert r.status_code == 400 and "Python 3 takes no submissions" in r.json()["message"]
    assert api.submit("admin", team_id="team1").status_code == 201  # the jury may
    (lang,) = api.get(f"{C}/languages").json()
    assert lang["allow_submit"] is False and "allow_submit" not in api.get(f"{C}/languages?strict=true").json()[0]
    assert 'value="python3"' not in login(server, "team1").get("/submit").text
    assert server.judging.run_pending() == 1  # what the jury submitted is judged
    server.close()


def test_an_admin_forbids_and_allows_it_again(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "c")
    clock = FakeClock(T0 + HOUR)
    server = make_server(root, clock)
    api = Api.of(server)
    assert patch(api, "judge", {"allow_submit": False}).status_code == 403  # type: ignore[attr-defined]
    r = patch(api, "admin", {"allow_submit": False})
    assert r.status_code == 200 and r.json()["allow_submit"] is False  # type: ignore[attr-defined]
    assert api.submit("team1").status_code == 400
    event = [e for e in feed(api, "team2") if e["type"] == "languages"][-1]
    assert event["data"]["allow_submit"] is False  # the teams are told on the feed
    server.close()
    server = make_server(root, clock)  # a restart keeps it, over contest.yaml
    api = Api.of(server)
    assert api.submit("team1").status_code == 400
    admin = login(server, "admin")
    page = admin.get("/admin/contest").text
    assert 'id="allow-python3">Allow' in page
    r = admin.post(
        "/admin/contest",
        data={"csrf": csrf_of(page), "action": "allow_submit", "language_id": "python3", "allow_submit": "1"},
    )
    assert r.status_code == 303 and "takes+submissions+again" in r.headers["location"]
    assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
    assert "allow_submit" not in api.get(f"{C}/languages").json()[0]
    both = patch(api, "admin", {"allow_submit": True, "time_factor": 2})
    assert both.status_code == 200 and both.json()["time_factor"] == 2.0  # type: ignore[attr-defined]
    log = [(e["action"], json.loads(e["detail"])) for e in api.get(f"{C}/audit-log", "admin").json()]
    assert ("language.allow_submit", {"language_id": "python3", "allow_submit": False, "was": True}) in log
    assert ("language.allow_submit", {"language_id": "python3", "allow_submit": True, "was": False}) in log
    assert ("language.time_factor", {"language_id": "python3", "time_factor": 2.0, "was": 1.0}) in log
    server.close()
