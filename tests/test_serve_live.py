"""Running a contest live (issue 30), through the HTTP stack: moving the start (the spec's PATCH of
``start_time`` and ``countdown_pause_time``), changing the duration and the freeze (our PATCH keys); the
effect on the contest object, the state, the problems, the event feed and a restarted server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, T0, Api, FakeClock, feed, make_server, write_contest
from test_serve_pages import client, csrf_of, login

from judge.serve.site.server import Server

C = "/api/contests/test"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 - HOUR)


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


def patch(api: Api, user: str | None = "admin", **body: object) -> object:
    return api.request("PATCH", C, user, json={"id": "test", **body})


def contest_events(api: Api) -> list[dict]:  # type: ignore[type-arg]
    return [e["data"] for e in feed(api) if e["type"] == "contest"]


def test_moving_the_start_before_it(api: Api, clock: FakeClock) -> None:
    r = patch(api, start_time="2030-01-01T11:00:00Z")
    assert r.status_code == 200, r.text
    assert r.json()["start_time"] == "2030-01-01T11:00:00.000+00:00"
    assert api.get(C).json()["start_time"] == "2030-01-01T11:00:00.000+00:00"
    assert contest_events(api)[-1]["start_time"] == "2030-01-01T11:00:00.000+00:00"
    clock.t = T0 + 60  # contest.yaml's start has passed: not started
    assert api.get(f"{C}/state").json()["started"] is None
    assert api.get(f"{C}/problems", "team1").json() == []
    assert api.submit("team1").status_code == 403
    assert api.get("/api/contests/test/scoreboard").json()["state"]["started"] is None
    clock.t = T0 + HOUR  # the new start
    assert api.get(f"{C}/state").json()["started"] == "2030-01-01T11:00:00.000+00:00"
    assert [p["id"] for p in api.get(f"{C}/problems", "team1").json()] == ["sum", "divisor"]
    assert api.submit("team1").status_code == 201
    assert api.get(C).json()["start_time"] == "2030-01-01T11:00:00.000+00:00"
    # the end moved with it: still running five hours after the new start
    clock.t = T0 + 5 * HOUR + 60
    assert api.get(f"{C}/state").json()["ended"] is None
    assert api.submit("team2").status_code == 201


def test_pausing_the_countdown_and_resuming(api: Api, clock: FakeClock) -> None:
    r = patch(api, start_time=None)
    assert r.status_code == 200, r.text
    obj = api.get(C).json()
    assert "start_time" not in obj and obj["countdown_pause_time"] == "1:00:00.000"  # what was left
    assert "start_time" not in contest_events(api)[-1]
    clock.t = T0 + 10
    assert api.get(f"{C}/state").json()["started"] is None
    assert api.submit("team1").status_code == 403
    r = patch(api, start_time=None, countdown_pause_time="0:05:00")
    assert r.status_code == 200 and r.json()["countdown_pause_time"] == "0:05:00.000"
    r = patch(api, start_time="2030-01-01T10:05:10Z")
    assert r.status_code == 200 and "countdown_pause_time" not in r.json()
    clock.t = T0 + 5 * 60 + 10
    assert api.get(f"{C}/state").json()["started"] == "2030-01-01T10:05:10.000+00:00"


def test_the_start_cannot_move_once_near_or_past(api: Api, clock: FakeClock) -> None:
    r = patch(api, start_time="2030-01-01T08:00:00Z")
    assert r.status_code == 403 and "at least 30 seconds from now" in r.json()["message"]
    r = patch(api, start_time="2030-01-01T09:00:20Z")  # 20 s from now
    assert r.status_code == 403
    assert patch(api, start_time="2030-01-01T09:00:40Z").status_code == 200
    clock.t = T0 - HOUR + 15  # 25 s before the start
    r = patch(api, start_time="2030-01-01T12:00:00Z")
    assert r.status_code == 403 and "less than 30 seconds" in r.json()["message"]
    clock.t = T0 - HOUR + 40  # started
    r = patch(api, start_time="2030-01-01T12:00:00Z")
    assert r.status_code == 403 and "started" in r.json()["message"]
    assert patch(api, start_time=None).status_code == 403
    assert api.get(C).json()["start_time"] == "2030-01-01T09:00:40.000+00:00"


def test_bad_bodies_and_who_may(api: Api) -> None:
    assert patch(api, start_time="yesterday").status_code == 400
    r = patch(api, start_time="2030-01-01T11:00:00Z", countdown_pause_time="0:05:00")
    assert r.status_code == 400 and "start_time: null" in r.json()["message"]
    assert patch(api, duration="-1:00:00").status_code == 400
    assert patch(api, duration="0:00:00").status_code == 400
    for body in ({"duration": "99999999:00:00"}, {"start_time": "9999-12-31T23:00:00Z"}):  # issue 43: a 500
        r = patch(api, **body)
        assert r.status_code == 400 and "\n" not in r.json()["message"], r.text
    assert "a year" in patch(api, duration="8785:00:00").json()["message"]
    assert "the year 9999" in patch(api, start_time="9999-12-31T23:00:00Z").json()["message"]
    assert patch(api, name="renamed").status_code == 400
    r = patch(api, start_time=None, scoreboard_thaw_time="2030-01-01T16:00:00Z")
    assert r.status_code == 400
    assert patch(api, None, start_time="2030-01-01T11:00:00Z").status_code == 401
    for user in ("team1", "judge"):
        assert patch(api, user, start_time="2030-01-01T11:00:00Z").status_code == 403
        assert patch(api, user, duration="6:00:00").status_code == 403
    assert api.get(C).json()["start_time"] == "2030-01-01T10:00:00.000+00:00"
    assert api.get(C).json()["duration"] == "5:00:00.000"


def test_extending_the_contest_during_the_freeze(api: Api, clock: FakeClock) -> None:
    clock.t = T0 + 4 * HOUR + 60  # frozen since T0 + 4 h
    assert api.get(f"{C}/state").json()["frozen"] == "2030-01-01T14:00:00.000+00:00"
    r = patch(api, duration="5:30:00")
    assert r.status_code == 200, r.text
    assert r.json()["duration"] == "5:30:00.000"
    assert r.json()["scoreboard_freeze_duration"] == "1:30:00.000"  # frozen from the same moment
    assert contest_events(api)[-1]["duration"] == "5:30:00.000"
    clock.t = T0 + 5 * HOUR + 60  # the old end: still running
    assert api.get(f"{C}/state").json()["ended"] is None
    assert api.get(f"{C}/state").json()["frozen"] == "2030-01-01T14:00:00.000+00:00"
    assert api.submit("team1").status_code == 201
    r = patch(api, scoreboard_freeze_duration="0:10:00")
    assert r.status_code == 403 and "frozen since" in r.json()["message"]
    clock.t = T0 + 5.5 * HOUR
    assert api.get(f"{C}/state").json()["ended"] == "2030-01-01T15:30:00.000+00:00"
    r = patch(api, duration="6:00:00")
    assert r.status_code == 403 and "ended" in r.json()["message"]


def test_changing_the_freeze_before_it(api: Api, clock: FakeClock) -> None:
    clock.t = T0 + HOUR
    r = patch(api, scoreboard_freeze_duration="0:30:00")
    assert r.status_code == 200 and r.json()["scoreboard_freeze_duration"] == "0:30:00.000"
    clock.t = T0 + 4 * HOUR + 60
    assert api.get(f"{C}/state").json()["frozen"] is None  # freezes at 4:30 now
    r = patch(api, scoreboard_freeze_duration="1:00:00")  # would have frozen a minute ago
    assert r.status_code == 403 and "in the past" in r.json()["message"]
    r = patch(api, scoreboard_freeze_duration="6:00:00")
    assert r.status_code == 403 and "longer than" in r.json()["message"]
    r = patch(api, duration="4:00:00")  # the end would be in the past
    assert r.status_code == 403 and "past" in r.json()["message"]
    clock.t = T0 + 4.5 * HOUR
    assert api.get(f"{C}/state").json()["frozen"] == "2030-01-01T14:30:00.000+00:00"


def test_a_restarted_server_keeps_the_changes(root: Path, clock: FakeClock) -> None:
    first = make_server(root, clock)
    assert patch(Api.of(first), start_time="2030-01-01T12:00:00Z", duration="3:00:00").status_code == 200
    first.close()
    second = make_server(root, clock)
    try:
        obj = Api.of(second).get(C).json()
        assert (obj["start_time"], obj["duration"]) == ("2030-01-01T12:00:00.000+00:00", "3:00:00.000")
        assert second.package.info.start_s == T0  # contest.yaml is the organizer's: untouched
        assert "2030-01-01T10:00:00" in (root / "contest.yaml").read_text()
    finally:
        second.close()


# ------------------------------------------------------------------------------------------------ pages


def test_the_pages_count_down_and_show_the_problems_at_the_start(server: Server, clock: FakeClock) -> None:
    team = login(server, "team1")
    page = team.get("/problems").text
    assert 'data-left-s="3600.0"' in page and "1:00:00" in page and 'data-live="/status"' in page
    assert 'data-live="/problems?fragment=1"' in page and "shown when the contest starts" in page
    assert "data-live-done" not in team.get("/problems?fragment=1").text
    assert patch(Api.of(server), start_time="2030-01-01T09:10:00Z").status_code == 200
    assert 'data-left-s="600.0"' in team.get("/status").text  # the poll sees the new start
    assert patch(Api.of(server), start_time=None).status_code == 200
    assert "paused" in team.get("/status").text and "0:10:00" in team.get("/status").text
    assert patch(Api.of(server), start_time="2030-01-01T09:10:00Z").status_code == 200
    clock.t = T0 - HOUR + 600
    fragment = team.get("/problems?fragment=1").text
    assert "data-live-done" in fragment and "/problems/sum/" in fragment and "/problems/divisor/" in fragment
    status = team.get("/status").text  # the clock goes on: the time left, until the end
    assert 'id="time-left"' in status and 'data-left-s="18000.0"' in status and "data-live-done" not in status
    page = team.get("/problems").text
    assert 'data-live="/problems?fragment=1"' not in page and 'data-live="/status" data-every="30000"' in page
    clock.t += 5 * HOUR
    assert "data-live-done" in team.get("/status").text and "The contest has ended" in team.get("/status").text


def test_the_admins_contest_page_moves_the_start(server: Server, clock: FakeClock) -> None:
    admin = login(server, "admin")
    page = admin.get("/admin/contest").text
    assert "2030-01-01T10:00:00.000+00:00" in page and 'id="move-start"' in page
    token = csrf_of(page)
    r = admin.post("/admin/contest", data={"csrf": token, "action": "start", "start_time": "2030-01-01T11:30:00Z"})
    assert r.status_code == 303 and "/admin/contest?message=" in r.headers["location"]
    assert "times are changed" in admin.get(r.headers["location"]).text
    assert Api.of(server).get(C).json()["start_time"] == "2030-01-01T11:30:00.000+00:00"
    r = admin.post("/admin/contest", data={"csrf": token, "action": "start", "start_time": "2029-01-01T00:00:00Z"})
    assert r.status_code == 403 and "at least 30 seconds from now" in r.text
    r = admin.post("/admin/contest", data={"csrf": token, "action": "start", "start_time": "soon"})
    assert r.status_code == 400
    r = admin.post("/admin/contest", data={"csrf": token, "action": "lengths", "duration": "6:00:00"})
    assert r.status_code == 303
    assert Api.of(server).get(C).json()["duration"] == "6:00:00.000"
    r = admin.post("/admin/contest", data={"csrf": token, "action": "pause"})
    assert r.status_code == 303 and "paused" in admin.get("/admin/contest").text
    assert "start_time" not in Api.of(server).get(C).json()
    # judges see the times, cannot change them; teams and the public do not see the page
    judge = login(server, "judge")
    assert 'id="move-start"' not in judge.get("/admin/contest").text
    r = judge.post("/admin/contest", data={"csrf": csrf_of(judge.get("/admin/contest").text), "action": "pause"})
    assert r.status_code == 403
    team = login(server, "team1")
    assert team.get("/admin/contest").status_code in (303, 403)
    r = team.post("/admin/contest", data={"csrf": csrf_of(team.get("/problems").text), "action": "pause"})
    assert r.status_code in (303, 403)
    assert client(server).get("/admin/contest").status_code == 303  # to the login
    assert "countdown_pause_time" in Api.of(server).get(C).json()
