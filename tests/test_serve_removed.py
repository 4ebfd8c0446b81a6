"""Removed intervals (issue 43; the Contest API's ``state.removed_intervals``): an outage an admin takes out
of the contest's time. Its contest times (model/contest.py) as a property; through the real app: the state
object, submissions' contest times, the scoreboard's minutes, the contest's end and freeze, the event feed
(objects published again, a frozen result still hidden), the audit log, the refusals, the admin's page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from serve_fixtures import FIXTURES, T0, Api, FakeClock, feed, make_server, write_contest
from test_serve_pages import csrf_of, login
from test_serve_passfail import MarkedJudge, at, source, submit

from judge.serve.model.contest import ContestInfo, load_contest
from judge.serve.model.times import format_time
from judge.serve.site.server import Server

C = "/api/contests/test"
MIN = 60.0


@st.composite
def intervals(draw: st.DrawFn) -> tuple[tuple[float, float], ...]:
    cuts = sorted(draw(st.sets(st.integers(1, 10_000), max_size=8)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return tuple((float(a), float(b)) for a, b in pairs)


@given(intervals(), st.integers(1, 12_000), st.floats(0, 12_000))
def test_contest_time_leaves_the_removed_intervals_out(removed: Any, duration: int, t: float) -> None:
    """The spec: in a removed interval every event gets the contest time of its start; after it, the time is
    shifted back by the intervals before; the contest's clock reaches its duration that much later."""
    info = ContestInfo("c", "C", "C", 0.0, float(duration), 0.0, removed=removed)
    plain = ContestInfo("c", "C", "C", 0.0, float(duration), 0.0)
    ct = info.contest_time_s(t)
    assert ct == t - sum(max(0.0, min(b, t) - a) for a, b in removed if a < t)
    assert 0 <= ct <= t and plain.contest_time_s(t) == t
    inside = next(((a, b) for a, b in removed if a <= t <= b), None)
    if inside is not None:
        assert ct == info.contest_time_s(inside[0])  # the interval's contest time
    else:
        assert info.wall_s(ct) == pytest.approx(t)  # the wall time where the clock reads that
    end = info.end_s
    assert end is not None and info.contest_time_s(end) == pytest.approx(duration)
    assert end == pytest.approx(duration + sum(b - a for a, b in removed if a < end))
    assert info.contest_time_s(t + 1) >= ct  # never back


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail")
    s = make_server(root, FakeClock(T0), MarkedJudge({p.id: p.problem for p in load_contest(root, FIXTURES).problems}))
    yield s
    s.close()


def put(api: Api, body: Any, user: str | None = "admin") -> Any:
    return api.request("PUT", f"{C}/removed-intervals", user, json=body)


def interval(start_min: float, end_min: float, **more: str) -> dict[str, str]:
    return {"start": format_time(T0 + start_min * MIN), "end": format_time(T0 + end_min * MIN), **more}


def test_an_outage_is_taken_out_of_the_contest_time(server: Server) -> None:
    api = Api.of(server)
    clock = server.clock
    assert isinstance(clock, FakeClock)
    submit(api, server, clock, 10, "team1", "sum", "AC")
    submit(api, server, clock, 35, "team2", "sum", "AC")  # during the outage (30-40)
    submit(api, server, clock, 50, "team3", "sum", "AC")  # after it
    at(clock, 60)
    state = api.get(f"{C}/state").json()
    assert "removed_intervals" not in state  # the spec's optional array: only once there are some
    r = put(api, [interval(30, 40)])
    assert r.status_code == 200, r.text
    assert r.json()["removed_intervals"] == [{**interval(30, 40), "contest_time": "0:30:00.000"}]
    assert api.get(f"{C}/state").json() == r.json()
    times = {s["id"]: s["contest_time"] for s in api.get(f"{C}/submissions").json()}
    assert times == {"1": "0:10:00.000", "2": "0:30:00.000", "3": "0:40:00.000"}
    judgement = api.get(f"{C}/judgements/3").json()
    assert judgement["start_contest_time"] == "0:40:00.000"
    board = {r["team_id"]: (r["rank"], r["score"]["total_time"]) for r in api.get(f"{C}/scoreboard").json()["rows"]}
    assert board == {"team1": (1, "0:10:00.000"), "team2": (2, "0:30:00.000"), "team3": (3, "0:40:00.000")}
    assert api.get(f"{C}/scoreboard").json()["contest_time"] == "0:50:00.000"  # an hour in, ten minutes out
    # the end and the freeze move ten minutes later; the contest object (its duration) does not change
    assert api.get(C).json()["duration"] == "5:00:00.000"
    at(clock, 300)
    assert api.get(f"{C}/state").json()["ended"] is None and api.submit("team1", files=source("WA")).status_code == 201
    assert api.get(f"{C}/state").json()["frozen"] == format_time(T0 + 250 * MIN)
    at(clock, 310)
    assert api.get(f"{C}/state").json()["ended"] == format_time(T0 + 310 * MIN)
    # the feed: the objects whose contest time changed published again, then the state
    events = feed(api)
    subs = [(e["id"], e["data"]["contest_time"]) for e in events if e["type"] == "submissions"]
    assert subs[:5] == [
        ("1", "0:10:00.000"),
        ("2", "0:35:00.000"),
        ("3", "0:50:00.000"),
        ("2", "0:30:00.000"),
        ("3", "0:40:00.000"),
    ]
    runs = [e for e in feed(api, "admin") if e["type"] == "runs" and e["data"]["judgement_id"] == "3"]
    assert runs[-1]["data"]["contest_time"] == "0:40:00.000"  # a run's too (its team's and staff's)
    assert [e["data"].get("removed_intervals") for e in events if e["type"] == "state"][-2] == r.json()[
        "removed_intervals"
    ]
    log = api.get(f"{C}/audit-log", "admin").json()
    assert log[0]["action"] == "contest.removed_intervals" and json.loads(log[0]["detail"]) == {
        "removed_intervals": [interval(30, 40)]
    }


def test_a_frozen_result_stays_hidden_when_its_times_are_published_again(server: Server) -> None:
    api = Api.of(server)
    clock = server.clock
    assert isinstance(clock, FakeClock)
    submit(api, server, clock, 255, "team2", "sum", "AC")  # in the freeze (4:00)
    question = api.request("POST", f"{C}/clarifications", "team1", json={"text": "May I?"}).json()
    at(clock, 260)
    assert put(api, [interval(245, 250)]).status_code == 200
    public = feed(api)
    assert not [e for e in public if e["type"] == "judgements"]  # hidden by the freeze, before and after
    assert [e["data"]["contest_time"] for e in public if e["type"] == "submissions"] == ["4:15:00.000", "4:10:00.000"]
    assert api.get(f"{C}/state").json()["frozen"] == format_time(T0 + 240 * MIN)  # frozen from the same moment
    mine = [e["data"]["contest_time"] for e in feed(api, "team1") if e["type"] == "clarifications"]
    assert mine == ["4:15:00.000", "4:10:00.000"] and question["contest_time"] == "4:15:00.000"
    assert not [e for e in public if e["type"] == "clarifications"]  # a question: its team's and staff's only
    staff = [e["data"]["start_contest_time"] for e in feed(api, "admin") if e["type"] == "judgements"]
    assert staff[-1] == "4:10:00.000"  # staff get it again, with its new times


@pytest.mark.parametrize(
    ("user", "body", "status", "message"),
    [
        (None, [], 401, ""),
        ("team1", [], 403, ""),
        ("judge", [], 403, ""),
        ("admin", {"start": "x"}, 400, "JSON array"),
        ("admin", [{"start": format_time(T0 + 30 * MIN)}], 400, "once it is over"),
        ("admin", [{"start": format_time(T0 + 30 * MIN), "end": None}], 400, "once it is over"),
        ("admin", [interval(40, 30)], 400, "after its start"),
        ("admin", [interval(30, 40), interval(35, 45)], 400, "overlap"),
        ("admin", [interval(30, 40, reason="outage")], 400, "unknown property 'reason'"),
        ("admin", [interval(30, 40, contest_time="0:29:00")], 400, "0:30:00"),
        ("admin", [{"start": "yesterday", "end": "today"}], 400, "not a time"),
        ("admin", [interval(-10, 5)], 403, "begins before the contest"),
        ("admin", [interval(50, 70)], 403, "not over yet"),
    ],
)
def test_refused(server: Server, user: str | None, body: Any, status: int, message: str) -> None:
    api = Api.of(server)
    at(server.clock, 60)  # type: ignore[arg-type]
    r = put(api, body, user)
    assert r.status_code == status and message in r.json()["message"], r.text
    assert "\n" not in r.json()["message"]
    assert "removed_intervals" not in api.get(f"{C}/state").json()


def test_refused_at_this_moment(server: Server) -> None:
    api = Api.of(server)
    clock = server.clock
    assert isinstance(clock, FakeClock)
    clock.t = T0 - MIN
    assert "has not started" in put(api, []).json()["message"]
    at(clock, 239)
    assert put(api, [interval(200, 235)]).status_code == 200  # the freeze (4:00) moves to 4:35
    at(clock, 260)
    r = put(api, [])  # taking it back would put the freeze 20 minutes in the past
    assert r.status_code == 403 and "freeze would move into the past" in r.json()["message"], r.text
    at(clock, 300)  # the end is 5:35 now
    assert put(api, [interval(200, 235), interval(270, 290)]).status_code == 200  # frozen: stays so
    at(clock, 356)  # ended (5:55)
    r = put(api, [interval(200, 235)])
    assert r.status_code == 403 and "can no longer change" in r.json()["message"]


def test_the_admin_page_adds_and_takes_back_an_interval(server: Server) -> None:
    api = Api.of(server)
    at(server.clock, 60)  # type: ignore[arg-type]
    admin = login(server, "admin")
    page = admin.get("/admin/contest").text
    assert 'id="no-removed"' in page and 'id="remove-interval"' in page
    token = csrf_of(page)
    r = admin.post("/admin/contest/removed", data={"csrf": token, "action": "add", "start": "soon", "end": "later"})
    assert r.status_code == 400 and "not a time" in r.text
    start, end = interval(30, 40)["start"], interval(30, 40)["end"]
    r = admin.post("/admin/contest/removed", data={"csrf": token, "action": "add", "start": start, "end": end})
    assert r.status_code == 303, r.text
    page = admin.get(r.headers["location"]).text
    assert 'id="removed-intervals"' in page and "0:30:00" in page and "15:10:00" in page
    assert api.get(f"{C}/state").json()["removed_intervals"][0]["start"] == start
    r = admin.post("/admin/contest/removed", data={"csrf": token, "action": "delete", "index": "0"})
    assert r.status_code == 303 and "removed_intervals" not in api.get(f"{C}/state").json()
    judge = login(server, "judge")
    assert 'id="remove-interval"' not in judge.get("/admin/contest").text
    r = judge.post(
        "/admin/contest/removed", data={"csrf": csrf_of(judge.get("/admin").text), "action": "delete", "index": "0"}
    )
    assert r.status_code == 403
