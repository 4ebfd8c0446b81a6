"""The spec's `check-api.sh` per contest (issue 44), as its walk does it, through the real app: the contests
`GET /api/contests` lists, then for each one every endpoint it checks (strict: `-a strict=1`), the shapes of
tests/spec_shapes.py where it has one (contest, judgement types, languages, problems, state, awards,
scoreboard; the other collections: a list of objects with string ids, each also served by its id), the
error codes (`-e`: an unknown id is a 404) and the event feed (each line's type, id, token, and its data in
the same shapes), as the public, a team, a judge and an admin. Against a site of two contests with
submissions, judgements and clarifications in both, and against a single contest folder as before.
(`check-api.sh` itself, with the spec's own schemas, is run by hand: docs/serve.md.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import SUM_WA, T0, Api, FakeClock, make_server, write_contest
from serve_site_fixtures import open_test_site, write_site
from spec_shapes import (
    AWARDS,
    CONTEST,
    JUDGEMENT_TYPES,
    LANGUAGE,
    LANGUAGES,
    PROBLEM_SCHEMA,
    SCOREBOARD,
    STATE,
    errors,
)
from test_serve_site import SiteApi, api_of

from judge.serve.site.site import Site

SCHEMAS: dict[str, dict[str, Any]] = {  # an endpoint's shape: its document, and one element by id
    "": CONTEST,
    "judgement-types": JUDGEMENT_TYPES,
    "languages": LANGUAGES,
    "problems": {"type": "array", "items": PROBLEM_SCHEMA},
    "state": STATE,
    "awards": AWARDS,
    "scoreboard": SCOREBOARD,
}
ONE = {"judgement-types": JUDGEMENT_TYPES["items"], "languages": LANGUAGE, "problems": PROBLEM_SCHEMA}
ONE["awards"] = AWARDS["items"]
COLLECTIONS = (
    "judgement-types",
    "languages",
    "problems",
    "groups",
    "organizations",
    "teams",
    "accounts",
    "submissions",
    "judgements",
    "runs",
    "clarifications",
    "awards",
)
FEED = {  # an event's data, by type
    "contest": CONTEST,
    "judgement-types": ONE["judgement-types"],
    "languages": LANGUAGE,
    "problems": PROBLEM_SCHEMA,
    "state": STATE,
    "awards": ONE["awards"],
}

CONTESTS: dict[str, dict[str, Any]] = {
    "practice": {"problems": ("sum",), "start": "2030-01-01T09:00:00Z", "priority": -1, "extra": ["shortname: warmup"]},
    "main": {"problems": ("sum", "divisor"), "start": "2030-01-01T09:30:00Z", "teams": ["team1", "team2"]},
}


def check_api(api: Api, user: str | None, password: str | None = None) -> dict[str, list[str]]:
    """What check-api.sh would report, per contest it finds (empty lists: every check passed)."""

    def get(path: str) -> Any:
        sep = "&" if "?" in path else "?"
        return api.request("GET", f"/api{path}{sep}strict=1", user, password)

    root = get("")
    found: dict[str, list[str]] = {}
    listed = get("/contests")
    assert root.status_code == 200 and "version" in root.json() and listed.status_code == 200
    for contest in listed.json():
        cid = contest["id"]
        bad = found.setdefault(cid, [f"contests: {e}" for e in errors(CONTEST, contest)])
        base = f"/contests/{cid}"
        for endpoint in ("", *COLLECTIONS, "state", "scoreboard"):
            path = f"{base}/{endpoint}" if endpoint else base
            r = get(path)
            if r.status_code != 200:
                bad.append(f"{endpoint}: {r.status_code}")
                continue
            doc = r.json()
            if endpoint in SCHEMAS:
                bad += [f"{endpoint or 'contest'}: {e}" for e in errors(SCHEMAS[endpoint], doc)]
            if endpoint == "" and doc != contest:
                bad.append("contest: not the object /contests lists")
            if endpoint not in COLLECTIONS:
                continue
            if not isinstance(doc, list) or not all(isinstance(o, dict) and isinstance(o.get("id"), str) for o in doc):
                bad.append(f"{endpoint}: not a list of objects with string ids")
                continue
            for obj in doc:
                one = get(f"{path}/{obj['id']}")
                if one.status_code != 200 or one.json() != obj:
                    bad.append(f"{endpoint}/{obj['id']}: {one.status_code}, not the object of the list")
            missing = get(f"{path}/no-such-id-at-all")  # check-api -e
            if missing.status_code != 404:
                bad.append(f"{endpoint}/no-such-id-at-all: {missing.status_code}, not 404")
        if get(f"{base}/no-such-endpoint").status_code != 404:
            bad.append("no-such-endpoint: not 404")
        feed = get(f"{base}/event-feed?stream=false")
        if feed.status_code != 200:
            bad.append(f"event-feed: {feed.status_code}")
            continue
        tokens = []
        for line in feed.text.splitlines():
            if not line.strip():
                continue
            event = json.loads(line)
            if set(event) - {"type", "id", "data", "token"} or not isinstance(event.get("type"), str):
                bad.append(f"event-feed: {line[:80]}")
                continue
            tokens.append(event["token"])
            data = event["data"]
            if isinstance(data, dict) and event["type"] in FEED:
                bad += [f"event-feed {event['type']}: {e}" for e in errors(FEED[event["type"]], data)]
        if len(set(tokens)) != len(tokens) or not all(isinstance(t, str) for t in tokens):
            bad.append("event-feed: tokens not unique strings")
    return found


def activity(api: SiteApi, site: Site) -> None:
    """Submissions (judged), questions and answers in both contests."""
    assert api.submit_to("practice", "team1").status_code == 201
    assert api.submit_to("practice", "team3").status_code == 201
    assert api.submit_to("main", "team2").status_code == 201
    assert api.submit_to("main", "team1", "divisor").status_code == 201
    for c in site.contests():
        c.server.judging.run_pending()
    for cid, team in (("practice", "team3"), ("main", "team2")):
        q = api.request("POST", f"/api/contests/{cid}/clarifications", team, json={"text": "Is n > 0?"})
        assert q.status_code == 201, q.text
        body = {"text": "Yes.", "reply_to_id": q.json()["id"]}
        assert api.request("POST", f"/api/contests/{cid}/clarifications", "judge", json=body).status_code == 201


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    root = write_site(tmp_path / "site", CONTESTS, order=["practice", "main"])
    opened = open_test_site(root, FakeClock(T0))
    yield opened
    opened.close()


@pytest.mark.parametrize("user", [None, "team1", "team3", "judge", "admin"])
def test_check_api_passes_for_each_contest_of_a_site(site: Site, user: str | None) -> None:
    api = api_of(site)
    activity(api, site)
    assert check_api(api, user) == {"practice": [], "main": []}


def test_each_contest_walked_is_its_own(site: Site) -> None:
    api = api_of(site)
    activity(api, site)
    for cid, problems, subs in (("practice", ["sum"], ["1", "2"]), ("main", ["sum", "divisor"], ["1", "2"])):
        assert [p["id"] for p in api.get(f"/api/contests/{cid}/problems", "admin").json()] == problems
        assert [s["id"] for s in api.get(f"/api/contests/{cid}/submissions", "admin").json()] == subs
    assert [t["id"] for t in api.get("/api/contests/main/teams", "admin").json()] == ["team1", "team2"]


def test_the_checker_finds_what_is_wrong(site: Site) -> None:
    """The walk is no formality: a contest object without its penalty, a team's view of a contest it does
    not see, a wrong status are reported."""
    api = api_of(site)

    class Broken(SiteApi):
        def request(self, method: str, path: str, user: str | None = None, pw: str | None = None, **kw: Any) -> Any:
            r = super().request(method, path, user, pw, **kw)
            if path.startswith("/api/contests/main?"):
                doc = r.json()
                doc.pop("penalty_time")
                r._content = json.dumps(doc).encode()
            if path.startswith("/api/contests/practice/teams/no-such-id-at-all"):
                r.status_code = 200
            return r

    found = check_api(Broken(api.app), "admin")
    assert any("penalty_time" in line for line in found["main"]), found
    assert found["practice"] == ["teams/no-such-id-at-all: 200, not 404"]


def test_check_api_passes_for_a_single_contest_folder_as_before(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail")
    server = make_server(root, FakeClock(T0 + 60))
    try:
        api = Api.of(server)
        assert api.submit("team1").status_code == 201
        assert api.submit("team2", files={"sum.py": SUM_WA}).status_code == 201
        server.judging.run_pending()
        for user in (None, "team1", "judge", "admin"):
            assert check_api(api, user) == {"test": []}, user
    finally:
        server.close()
