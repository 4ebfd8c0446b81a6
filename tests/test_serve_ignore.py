"""Ignoring a submission (issue 30), through the HTTP stack, in a pass-fail contest: it leaves the board,
the first to solve moves to the next team, the public and teams no longer see it (the feed deletes it for
them), the jury still does, marked; un-ignoring brings everything back. Staff only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, T0, Api, FakeClock, feed, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.serve.site.server import Server

C = "/api/contests/test"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    s = make_server(write_contest(tmp_path / "contest", scoreboard_type="pass-fail"), clock)
    yield s
    s.close()


@pytest.fixture
def api(server: Server) -> Api:
    return Api.of(server)


def first(api: Api, user: str | None = None) -> list[str]:
    return next(a["team_ids"] for a in api.get(f"{C}/awards", user).json() if a["id"] == "first-to-solve-sum")


def solved(api: Api, user: str | None = None) -> dict[str, int]:
    rows = api.get(f"{C}/scoreboard", user).json()["rows"]
    return {r["team_id"]: r["score"]["num_solved"] for r in rows}


def visible(api: Api, user: str | None = None) -> list[str]:
    return [s["id"] for s in api.get(f"{C}/submissions", user).json()]


def test_an_ignored_submission_counts_nowhere(api: Api, server: Server, clock: FakeClock) -> None:
    assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
    clock.advance(60)
    assert api.submit("team2", files={"sum.py": SUM_AC}).status_code == 201
    server.judging.run_pending()
    assert first(api) == ["team1"] and solved(api)["team1"] == 1
    r = api.request("POST", f"{C}/submissions/1/ignore", "judge")
    assert r.status_code == 200 and r.json()["ignored"] is True
    assert first(api) == ["team2"] == first(api, "admin")  # the first to solve moved
    assert solved(api)["team1"] == 0 == solved(api, "admin")["team1"]
    assert visible(api) == ["2"] == visible(api, "team1") == visible(api, "team2")
    assert visible(api, "admin") == ["1", "2"]  # the jury still sees it
    assert api.get(f"{C}/submissions/1", "team1").status_code == 404
    assert [j["submission_id"] for j in api.get(f"{C}/judgements").json()] == ["2"]
    deleted = [(e["type"], e["id"]) for e in feed(api) if e["data"] is None]
    assert ("submissions", "1") in deleted and ("judgements", "1") in deleted
    assert [e for e in feed(api, "admin") if e["data"] is None] == []  # staff keep it
    runs = [e for e in feed(api, "team1") if e["type"] == "runs" and e["data"] is None]
    assert runs  # the team's own runs are deleted for it too
    # a rejudge of an ignored submission publishes nothing to the public
    before = len(feed(api))
    assert api.request("POST", f"{C}/submissions/1/rejudge", "admin").status_code == 202
    server.judging.run_pending()
    assert len(feed(api)) == before and first(api) == ["team2"]
    # back
    r = api.request("POST", f"{C}/submissions/1/unignore", "admin")
    assert r.status_code == 200 and r.json()["ignored"] is False
    assert first(api) == ["team1"] and visible(api) == ["1", "2"]
    assert [e["data"] is not None for e in feed(api) if (e["type"], e["id"]) == ("submissions", "1")][-1]
    actions = [e["action"] for e in api.get(f"{C}/audit-log", "admin").json()]
    assert actions == ["submission.unignore", "submission.rejudge", "submission.ignore"]


def test_who_may_ignore(api: Api, server: Server) -> None:
    assert api.submit("team1").status_code == 201
    assert api.request("POST", f"{C}/submissions/1/ignore").status_code == 401
    assert api.request("POST", f"{C}/submissions/1/ignore", "team1").status_code == 403
    assert api.request("POST", f"{C}/submissions/99/ignore", "admin").status_code == 404
    assert api.request("POST", f"{C}/submissions/x/ignore", "admin").status_code == 404
    assert visible(api) == ["1"]


def test_the_jury_page_ignores(api: Api, server: Server) -> None:
    assert api.submit("team1").status_code == 201
    server.judging.run_pending()
    judge = login(server, "judge")
    page = judge.get("/admin/submissions/1").text
    r = judge.post("/admin/submissions/1/ignored", data={"csrf": csrf_of(page), "ignored": "1"})
    assert r.status_code == 303
    page = judge.get(r.headers["location"]).text
    assert 'id="ignored"' in page and "is ignored" in page
    assert "data-ignored" in judge.get("/admin").text
    assert visible(api) == []
    team = login(server, "team1")
    assert team.get("/submissions/1").status_code == 404
    r = team.post("/admin/submissions/1/ignored", data={"csrf": csrf_of(team.get("/scoreboard").text), "ignored": "0"})
    assert r.status_code in (303, 403) and visible(api) == []


def test_a_judge_verifies_a_judgement_with_a_comment(api: Api, server: Server) -> None:
    assert api.submit("team1").status_code == 201
    path = f"{C}/submissions/1/review"
    assert api.request("POST", path, "judge", json={"verified": True}).status_code == 404  # not judged yet
    server.judging.run_pending()
    r = api.request("POST", path, "judge", json={"verified": True, "comment": "checked by hand <b>ok</b>"})
    assert r.status_code == 200 and r.json()["verified"] is True and r.json()["by"] == "judge"
    assert api.request("POST", path, "judge", json={"verified": "yes"}).status_code == 400
    assert api.request("POST", path, "judge", json={"verified": True, "comment": "x" * 2001}).status_code == 400
    assert api.request("POST", path, None, json={"verified": True}).status_code == 401
    assert api.request("POST", path, "team1", json={"verified": True}).status_code == 403
    judge = login(server, "judge")
    page = judge.get("/admin/submissions/1").text
    assert 'id="reviewed"' in page and "&lt;b&gt;ok&lt;/b&gt;" in page and "<b>ok</b>" not in page
    r = judge.post("/admin/submissions/1/review", data={"csrf": csrf_of(page), "comment": "wrong after all"})
    assert r.status_code == 303
    page = judge.get(r.headers["location"]).text
    assert "Not verified by judge" in page and "wrong after all" in page
    assert [e["action"] for e in api.get(f"{C}/audit-log", "admin").json()] == ["judgement.review"] * 2
    assert "wrong after all" not in login(server, "team1").get("/submissions/1").text


def test_a_submission_ignored_while_it_is_judged_reaches_nobody_but_the_jury(api: Api, server: Server) -> None:
    """The judgement is stored after the ignore: it is published as the submission is then (ignored)."""
    assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
    (claimed,) = server.judging.claim(1)
    assert api.request("POST", f"{C}/submissions/1/ignore", "judge").status_code == 200
    assert server.judging.complete(claimed, server.judging.judge(claimed))
    for user in (None, "team1", "team2"):
        last = {(e["type"], e["id"]): e["data"] for e in feed(api, user) if e["type"] in ("judgements", "runs")}
        assert all(data is None for data in last.values()), (user, last)  # the pending judgement was deleted
        assert api.get(f"{C}/judgements", user).json() == []
    assert [j["submission_id"] for j in api.get(f"{C}/judgements", "admin").json()] == ["1"]
