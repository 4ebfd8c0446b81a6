"""Clarifications through the Contest API (the real HTTP stack of the app): a team's question, the jury's
answers (to the asking team, chosen teams or groups, everyone) and announcements; what each role sees in
the API and the event feed (they agree); the objects against the spec's schema; every refusal with nothing
stored; the limits; the contest package export; a restart keeps them; who answered is kept (staff only)."""

from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from serve_channels import folded
from serve_fixtures import FIXTURES, HOUR, T0, Api, FakeClock, db, feed, make_server, write_contest

from judge.serve.model.contest import ContestError, load_info
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services import archive
from judge.serve.site.server import Server
from judge.serve.visibility import Sight

C = "/api/contests/test"
USERS: tuple[str | None, ...] = (None, "team1", "team2", "team3", "judge", "admin")

# The spec's Clarification (JSON_Format.md, "Clarification"), written from its table for these tests: the
# spec's own json-schema/clarification.json still has the older single `to_team_id` (ccs-specs PR #193
# replaced it by `to_team_ids` and `to_group_ids` in the text only). Strict: no other properties.
ID = {"type": "string", "pattern": "^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,35}$"}
IDS = {"type": "array", "items": ID, "uniqueItems": True}
CLARIFICATION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "id": ID,
        "from_team_id": {"oneOf": [ID, {"type": "null"}]},
        "to_team_ids": {"oneOf": [IDS, {"type": "null"}]},
        "to_group_ids": {"oneOf": [IDS, {"type": "null"}]},
        "reply_to_id": {"oneOf": [ID, {"type": "null"}]},
        "problem_id": {"oneOf": [ID, {"type": "null"}]},
        "text": {"type": "string"},
        "time": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?([+-]\d\d(:\d\d)?|Z)$"},
        "contest_time": {"type": "string", "pattern": r"^-?\d+:[0-5]\d:[0-5]\d(\.\d{3})?$"},
    },
    "required": ["id", "text", "time", "contest_time"],
    "additionalProperties": False,
    # "if from_team_id is not null, then both to_team_ids and to_group_ids must be null"
    "if": {"properties": {"from_team_id": ID}, "required": ["from_team_id"]},
    "then": {"properties": {"to_team_ids": {"type": "null"}, "to_group_ids": {"type": "null"}}},
}
VALIDATOR = Draft202012Validator(CLARIFICATION_SCHEMA)


def write_groups(root: Path) -> Path:
    """The fixture contest with a second group, "pair": team1 and team2."""
    (root / "groups.json").write_text(json.dumps([{"id": "g", "name": "Everyone"}, {"id": "pair", "name": "Pair"}]))
    teams = json.loads((root / "teams.json").read_text())
    for t in teams:
        t["group_ids"] = ["g", "pair"] if t["id"] in ("team1", "team2") else ["g"]
    (root / "teams.json").write_text(json.dumps(teams))
    return root


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    s = make_server(write_groups(write_contest(tmp_path / "contest")), clock)
    yield s
    s.close()


@pytest.fixture
def api(server: Server) -> Api:
    return Api.of(server)


def post(api: Api, user: str | None, **body: Any) -> httpx.Response:
    return api.request("POST", f"{C}/clarifications", user, json=body)


def sent(api: Api, user: str, **body: Any) -> dict[str, Any]:
    r = post(api, user, **body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def seen(api: Api, user: str | None) -> dict[str, dict[str, Any]]:
    r = api.get(f"{C}/clarifications", user)
    assert r.status_code == 200, r.text
    return {c["id"]: c for c in r.json()}


def stored(server: Server) -> int:
    return int(db(server).execute("SELECT count(*) FROM clarifications").fetchone()[0])


# --------------------------------------------------------------------------------------------- the flow


def test_a_question_answered_privately_then_to_everyone(api: Api, clock: FakeClock) -> None:
    r = post(api, "team1", text="Can n be 0?\nThe statement says n >= 1.", problem_id="sum")
    assert r.status_code == 201, r.text
    q = r.json()
    assert r.headers["location"] == f"{C}/clarifications/{q['id']}"
    assert re.fullmatch(r"[0-9a-f]{10}", q["id"])  # random: an id tells nothing of how many others there are
    assert q == {
        "id": q["id"],
        "from_team_id": "team1",
        "problem_id": "sum",
        "text": "Can n be 0?\nThe statement says n >= 1.",
        "time": "2030-01-01T11:00:00.000+00:00",
        "contest_time": "1:00:00.000",
    }
    assert api.get(f"{C}/clarifications/{q['id']}", "team1").json() == q
    assert api.get(f"{C}/clarifications/{q['id']}", "judge").json() == q
    for user in (None, "team2", "team3"):  # another team's question does not exist for them
        assert api.get(f"{C}/clarifications/{q['id']}", user).status_code == 404
        assert seen(api, user) == {}

    clock.advance(60)
    private = sent(api, "judge", text="No.", reply_to_id=q["id"], to_team_ids=["team1"], problem_id="sum")
    assert private["to_team_ids"] == ["team1"] and private["to_group_ids"] == [] and private["reply_to_id"] == q["id"]
    assert set(seen(api, "team1")) == {q["id"], private["id"]}
    assert seen(api, "team2") == {} and seen(api, None) == {}

    clock.advance(60)
    everyone = sent(api, "admin", text="n >= 1 always.", reply_to_id=q["id"], problem_id="sum")
    assert everyone["reply_to_id"] == q["id"] and "to_team_ids" not in everyone  # staff: as sent
    assert seen(api, "team1")[everyone["id"]] == everyone  # the asker sees the question: linked
    quoted = "> Can n be 0?\n> The statement says n >= 1.\n\nn >= 1 always."
    for user in (None, "team2", "team3"):  # the others: the question's text with the answer, never its team
        shown = seen(api, user)
        assert list(shown) == [everyone["id"]], user
        assert shown[everyone["id"]] == {**{k: v for k, v in everyone.items() if k != "reply_to_id"}, "text": quoted}
        assert "team1" not in json.dumps(shown)
    assert set(seen(api, "judge")) == {q["id"], private["id"], everyone["id"]}


def test_announcements_and_recipients_by_team_and_group(api: Api) -> None:
    to_all = sent(api, "judge", text="Problem B's sample 2 is wrong.", problem_id="divisor")
    to_pair = sent(api, "judge", text="For the pair group.", to_group_ids=["pair"])
    to_two = sent(api, "admin", text="For team2 and team3.", to_team_ids=["team2", "team3"])
    assert to_pair["to_team_ids"] == [] and to_pair["to_group_ids"] == ["pair"]
    assert set(seen(api, None)) == {to_all["id"]}
    assert set(seen(api, "team1")) == {to_all["id"], to_pair["id"]}
    assert set(seen(api, "team2")) == {to_all["id"], to_pair["id"], to_two["id"]}
    assert set(seen(api, "team3")) == {to_all["id"], to_two["id"]}
    # a team sees itself among the recipients, never the other teams
    assert seen(api, "team2")[to_two["id"]]["to_team_ids"] == ["team2"]
    assert seen(api, "team3")[to_two["id"]]["to_team_ids"] == ["team3"]
    assert seen(api, "judge")[to_two["id"]]["to_team_ids"] == ["team2", "team3"]


def test_the_feed_shows_each_role_what_the_api_does(api: Api, clock: FakeClock) -> None:
    q1 = sent(api, "team1", text="Question one", problem_id="sum")
    q2 = sent(api, "team2", text="Question two")
    clock.advance(30)
    sent(api, "judge", text="To all", reply_to_id=q1["id"])
    sent(api, "judge", text="To the asker", reply_to_id=q2["id"], to_team_ids=["team2"])
    sent(api, "judge", text="To the pair", reply_to_id=q2["id"], to_group_ids=["pair"])
    sent(api, "judge", text="To team1 and team3", reply_to_id=q1["id"], to_team_ids=["team1", "team3"])
    sent(api, "admin", text="Announcement")
    sent(api, "team1", text="Follow-up", reply_to_id=q1["id"])
    for user in USERS:
        events = [e for e in feed(api, user) if e["type"] == "clarifications"]
        assert len({e["id"] for e in events}) == len(events), user  # one version of each for each viewer
        assert folded(events).get("clarifications", {}) == seen(api, user), user
        for e in events:
            assert not list(VALIDATOR.iter_errors(e["data"])), (user, e)


def test_the_objects_match_the_spec_schema_for_every_role(api: Api) -> None:
    q = sent(api, "team1", text="Q", problem_id="sum")
    sent(api, "judge", text="A", reply_to_id=q["id"])
    sent(api, "judge", text="B", reply_to_id=q["id"], to_team_ids=["team1"])
    sent(api, "judge", text="C", to_group_ids=["pair"])
    sent(api, "judge", text="D")
    count = 0
    for user in USERS:
        for obj in seen(api, user).values():
            errors = [e.message for e in VALIDATOR.iter_errors(obj)]
            assert not errors, (user, obj, errors)
            count += 1
    assert count == 2 + 5 + 3 + 2 + 5 + 5  # the public, team1, team2, team3, the judge, the admin
    # and the schema is not one that accepts anything
    assert not VALIDATOR.is_valid({**q, "to_team_ids": ["team2"]})
    assert not VALIDATOR.is_valid({**q, "account_id": "team1"})


def test_access_lists_post_clar(api: Api) -> None:
    assert "post_clar" not in api.get(f"{C}/access").json()["capabilities"]
    for user in ("team1", "judge", "admin"):
        assert "post_clar" in api.get(f"{C}/access", user).json()["capabilities"], user
    endpoints = {e["type"]: e["properties"] for e in api.get(f"{C}/access", "team1").json()["endpoints"]}
    assert endpoints["clarifications"] == [
        "id",
        "from_team_id",
        "to_team_ids",
        "to_group_ids",
        "reply_to_id",
        "problem_id",
        "text",
        "time",
        "contest_time",
    ]


def test_filters_on_id_properties(api: Api) -> None:
    q = sent(api, "team1", text="Q", problem_id="sum")
    a = sent(api, "judge", text="A", reply_to_id=q["id"])
    n = sent(api, "judge", text="N")
    ids = lambda user, query: [c["id"] for c in api.get(f"{C}/clarifications?{query}", user).json()]  # noqa: E731
    assert ids("judge", "from_team_id=team1") == [q["id"]]
    assert ids("judge", "from_team_id=") == [a["id"], n["id"]]
    assert ids("judge", f"reply_to_id={q['id']}") == [a["id"]]
    assert ids("team2", f"reply_to_id={q['id']}") == []  # team2 does not see the link (nor the question)
    assert ids("team1", "problem_id=sum") == [q["id"]]


# --------------------------------------------------------------------------------------------- refusals


def refusals(api: Api) -> list[tuple[str | None, Any, int, str]]:
    q = sent(api, "team1", text="team1's private question")
    return [
        (None, {"text": "hi"}, 401, "log in"),
        ("team1", {"text": ""}, 400, "empty"),
        ("team1", {"text": " \n\t "}, 400, "empty"),
        ("team1", {"text": "x" * 2001}, 400, "at most 2,000"),
        ("team1", {"text": "bell \a"}, 400, "control characters"),
        ("team1", {"text": "hi", "problem_id": "nope"}, 400, "unknown problem_id"),
        ("team1", {"text": "hi", "from_team_id": "team2"}, 403, "you cannot ask as team team2"),
        ("team1", {"text": "hi", "to_team_ids": ["team2"]}, 403, "teams cannot send"),
        ("team1", {"text": "hi", "to_group_ids": ["g"]}, 403, "teams cannot send"),
        ("team1", {"text": "hi", "id": "x"}, 400, "set by the server"),
        ("team1", {"text": "hi", "time": "2030-01-01T11:00:00Z"}, 400, "set by the server"),
        ("team1", {"text": "hi", "colour": "red"}, 400, "unknown properties: colour"),
        ("team1", ["text"], 400, "JSON object"),
        ("team1", {"text": 5}, 400, "`text`"),
        ("team1", {"text": "hi", "problem_id": 7}, 400, "`problem_id`"),
        ("team1", {"text": "hi", "reply_to_id": "0000000000"}, 400, "unknown reply_to_id"),
        ("team2", {"text": "hi", "reply_to_id": q["id"]}, 400, "unknown reply_to_id"),  # not visible to team2
        ("judge", {"text": "hi", "from_team_id": "team1"}, 400, "from_team_id"),
        ("judge", {"text": "hi", "to_team_ids": ["nobody"]}, 400, "unknown to_team_ids"),
        ("judge", {"text": "hi", "to_group_ids": ["nogroup"]}, 400, "nogroup"),
        ("judge", {"text": "hi", "to_team_ids": []}, 400, "no team would get it"),
        ("judge", {"text": "hi", "to_team_ids": "team1"}, 400, "array of IDs"),
        ("admin", {"text": "y" * 2001}, 400, "at most 2,000"),
    ]


def test_bad_input_is_refused_with_one_line_and_nothing_stored(api: Api, server: Server) -> None:
    cases = refusals(api)
    before, events = stored(server), len(feed(api, "admin"))
    for user, body, status, message in cases:
        r = (
            post(api, user, **body)
            if isinstance(body, dict)
            else api.request("POST", f"{C}/clarifications", user, json=body)
        )
        assert r.status_code == status, (user, body, r.text)
        assert r.json()["code"] == status and message in r.json()["message"], (user, body, r.text)
        assert "\n" not in r.json()["message"]
    r = api.request("POST", f"{C}/clarifications", "team1", content=b"{not json")
    assert r.status_code == 400 and "JSON" in r.json()["message"]
    assert stored(server) == before and len(feed(api, "admin")) == events


def test_questions_only_while_the_contest_runs_answers_and_announcements_any_time(tmp_path: Path) -> None:
    clock = FakeClock(T0 - HOUR)
    server = make_server(write_contest(tmp_path / "contest"), clock)
    try:
        api = Api.of(server)
        r = post(api, "team1", text="Before the start?")
        assert r.status_code == 403 and "has not started" in r.json()["message"]
        early = sent(api, "judge", text="Do not touch anything before the contest starts!")
        assert early["contest_time"] == "-1:00:00.000"
        assert set(seen(api, None)) == {early["id"]}  # the public sees announcements before the start too
        r = post(api, "judge", text="About a problem", problem_id="sum")
        assert r.status_code == 400 and "secret until the contest starts" in r.json()["message"]
        clock.advance(HOUR)
        q = sent(api, "team1", text="At the start", problem_id="sum")
        clock.advance(5 * HOUR)  # over
        r = post(api, "team2", text="After the end?")
        assert r.status_code == 403 and "is over" in r.json()["message"]
        late = sent(api, "judge", text="Late answer", reply_to_id=q["id"], problem_id="sum")
        assert set(seen(api, "team1")) == {early["id"], q["id"], late["id"]}
        assert stored(server) == 3
    finally:
        server.close()


def test_a_team_may_ask_so_many_questions_per_window(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "contest")
    with (root / "contest.yaml").open("a") as f:
        f.write("clarification_limits: {text_chars: 50, questions: 2, seconds: 120}\n")
    clock = FakeClock(T0 + HOUR)
    server = make_server(root, clock)
    try:
        api = Api.of(server)
        assert post(api, "team1", text="x" * 51).status_code == 400
        sent(api, "team1", text="one")
        clock.advance(30)
        sent(api, "team1", text="two")
        r = post(api, "team1", text="three")
        assert r.status_code == 429 and r.headers["retry-after"] == "90", r.text
        assert "at most 2 per 120 s" in r.json()["message"]
        sent(api, "team2", text="another team's own count")
        for i in range(3):
            sent(api, "judge", text=f"the jury is not limited {i}")
        clock.advance(90)
        sent(api, "team1", text="three, later")
        assert stored(server) == 7
    finally:
        server.close()


def test_the_limits_in_contest_yaml(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "contest")
    assert load_info(root / "contest.yaml").clarifications.text_chars == 2000
    with (root / "contest.yaml").open("a") as f:
        f.write("clarification_limits: {questions: 0}\n")
    with pytest.raises(ContestError, match="clarification_limits.questions: expected a positive integer"):
        load_info(root / "contest.yaml")
    (root / "contest.yaml").write_text((root / "contest.yaml").read_text().replace("{questions: 0}", "{size: 3}"))
    with pytest.raises(ContestError, match="clarification_limits: expected a mapping like"):
        load_info(root / "contest.yaml")


# --------------------------------------------------------------------------------------------- kept


def test_who_answered_is_kept_for_staff_only(api: Api, server: Server) -> None:
    q = sent(api, "team1", text="Q")
    a = sent(api, "judge", text="A", reply_to_id=q["id"], to_team_ids=["team1"])
    row = db(server).execute("SELECT account_id FROM clarifications WHERE public_id = ?", (a["id"],)).fetchone()
    assert row == ("judge",)
    for user in USERS:
        assert all("judge" not in json.dumps(c) for c in seen(api, user).values())
        assert "account" not in json.dumps([e for e in feed(api, user) if e["type"] == "clarifications"])


def test_the_contest_package_holds_the_clarifications(api: Api, server: Server, clock: FakeClock) -> None:
    q = sent(api, "team1", text="Q", problem_id="sum")
    sent(api, "judge", text="A", reply_to_id=q["id"])
    sight = Sight(Viewer(Role.ADMIN, "admin", "admin"), server.timeline.phase, clock.now())
    with zipfile.ZipFile(io.BytesIO(archive.contest_package(server, sight))) as zf:
        assert json.loads(zf.read("clarifications.json")) == list(seen(api, "admin").values())
        lines = [json.loads(line) for line in zf.read("event-feed.ndjson").decode().splitlines()]
    assert folded(lines)["clarifications"] == seen(api, "admin")


def test_a_restart_keeps_every_clarification_and_its_id(tmp_path: Path, clock: FakeClock) -> None:
    root = write_contest(tmp_path / "contest")
    server = make_server(root, clock)
    api = Api.of(server)
    q = sent(api, "team1", text="Q")
    sent(api, "judge", text="A", reply_to_id=q["id"])
    before = {user: (seen(api, user), feed(api, user)) for user in USERS}
    server.close()
    again = make_server(root, clock)
    try:
        api = Api.of(again)
        assert {user: (seen(api, user), feed(api, user)) for user in USERS} == before
        sent(api, "judge", text="after the restart", reply_to_id=q["id"], to_team_ids=["team1"])
        assert len(seen(api, "team1")) == 3
    finally:
        again.close()


def test_an_old_database_takes_clarifications_and_its_events_keep_their_meaning(tmp_path: Path) -> None:
    """Events written before schema 4 (scope, team_id, frozen) mean the same after the upgrade: every role's
    feed of tests/fixtures/serve_v2 is checked against its golden answers by test_serve_storage; here, the
    new columns' values (no teams named, staff see it) and a clarification in the upgraded database."""
    root = tmp_path / "contest"
    shutil.copytree(FIXTURES / "serve_v2", root, ignore=shutil.ignore_patterns("answers.json", "README.md"))
    golden = json.loads((FIXTURES / "serve_v2" / "answers.json").read_text())
    server = make_server(root, FakeClock(golden["now"]))
    try:
        with sqlite3.connect(server.storage.path) as conn:
            assert conn.execute("SELECT DISTINCT team_ids, staff FROM events").fetchall() == [("[]", 1)]
        api = Api.of(server)
        sent(api, "admin", text="Announcement after the upgrade")
        assert [c["text"] for c in seen(api, "team1").values()] == ["Announcement after the upgrade"]
    finally:
        server.close()
