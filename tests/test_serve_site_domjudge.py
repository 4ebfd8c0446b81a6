"""DOMjudge's command-line `submit` client (submit/submit in DOMjudge's repository) against a site with two
running contests (issue 44), as HTTP through the site's app. ``submit_client`` below does what that client
does, step by step (its rules, written here from reading it; none of its code): it reads ``GET
/api/contests`` with the team's credentials and drops them all when one lacks an ``id`` or a non-empty
``shortname``; ``-c`` picks a contest by id or shortname (any case); without ``-c`` one contest is taken
and several are refused ("Multiple active contests found, please specify one of ..." then "No (valid)
contest specified"); it reads that contest's languages and problems, takes the problem and language from
the first file's name, posts DOMjudge's form to ``contests/<id>/submissions`` and prints the submission's
id and time and the link ``team/submission/<id>``."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import SUM_AC, T0, FakeClock
from serve_site_fixtures import open_test_site, write_site
from test_serve_site import SiteApi, _login, api_of

from judge.serve.http.pages.sessions import COOKIE
from judge.serve.site.site import Site

CONTESTS: dict[str, dict[str, Any]] = {
    # both running at T0; main for team1 and team2 only, the practice for every team
    "practice": {"problems": ("sum",), "start": "2030-01-01T09:00:00Z", "priority": -1, "extra": ["shortname: Warmup"]},
    "main": {
        "problems": ("sum", "divisor"),
        "start": "2030-01-01T09:30:00Z",
        "teams": ["team1", "team2"],
        "extra": ["shortname: final"],
    },
}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    root = write_site(tmp_path / "site", CONTESTS, order=["practice", "main"])
    opened = open_test_site(root, FakeClock(T0))
    yield opened
    opened.close()


@dataclass
class Outcome:
    """What the client did: its exit (0 submitted, 1 a usage error or refused before sending, -1 an error
    after), what it printed and warned, and the submission the server answered."""

    code: int
    lines: list[str] = field(default_factory=list)
    submission: dict[str, Any] | None = None


def submit_client(
    api: SiteApi,
    user: str,
    files: dict[str, bytes],
    contest: str = "",
    problem: str = "",
    language: str = "",
) -> Outcome:
    """DOMjudge's ``submit [-c CONTEST] [-p PROBLEM] [-l LANGUAGE] FILE...`` with ``-y`` (no question)."""
    out = Outcome(0)

    def get(endpoint: str) -> Any:
        r = api.get(f"/api/{endpoint}", user)
        if r.status_code >= 300:
            out.lines.append(f"API request {endpoint} failed (code {r.status_code}).")
            return None
        return r.json()

    data = get("contests")
    contests = data if isinstance(data, list) else []
    if any(not c.get("id") or not c.get("shortname") for c in contests):
        out.lines.append("DOMjudge's API returned unexpected JSON data for 'contests'.")
        contests = []
    mine: dict[str, Any] | None = None
    if not contest:
        if len(contests) == 1:
            mine = contests[0]
        elif contests:
            names = ", ".join(c["shortname"] for c in contests)
            out.lines.append(f"WARNING: Multiple active contests found, please specify one of {names}!")
    else:
        wanted = contest.lower()
        mine = next((c for c in contests if wanted in (c["id"].lower(), c["shortname"].lower())), None)
    if mine is None:
        out.lines.append("error: No (valid) contest specified, pass it as --contest or set as SUBMITCONTEST.")
        out.code = 1
        return out
    if "allow_submit" in mine and not mine["allow_submit"]:
        out.lines.append("WARNING: Submissions for contest (temporarily) disabled!")
        out.code = 1
        return out
    languages = get(f"contests/{mine['id']}/languages") or []
    problems = get(f"contests/{mine['id']}/problems") or []
    first = next(iter(files))
    base, _, ext = first.rpartition(".")
    problem, language = (problem or base).lower(), (language or ext).lower()
    lang = next(
        (x for x in languages if language in {e.lower() for e in [x["id"], *x["extensions"]]}),
        None,
    )
    if lang is None:
        out.lines.append("error: No known language specified or detected.")
        out.code = 1
        return out
    prob = next((p for p in problems if problem in (p["id"].lower(), p["label"].lower())), None)
    if prob is None:
        out.lines.append("error: No known problem specified or detected.")
        out.code = 1
        return out
    fields = {"problem": prob["id"], "language": lang["id"]}
    if lang["entry_point_required"] and lang["name"] == "Python 3":
        fields["entry_point"] = first
    parts = [("code[]", (name, body)) for name, body in files.items()]
    r = api.request("POST", f"/api/contests/{mine['id']}/submissions", user, data=fields, files=parts)
    if r.status_code >= 300:
        out.lines.append(f"Submission failed (code {r.status_code})")
        out.lines.append(r.text)
        out.code = -1
        return out
    sub = r.json()
    assert isinstance(sub, dict) and isinstance(sub.get("id"), str)
    time = datetime.datetime.fromisoformat(sub["time"]).strftime("%H:%M:%S")
    out.lines.append(f"Submission received: id = s{sub['id']}, time = {time}")
    out.lines.append(f"Check http://testserver/team/submission/{sub['id']} for the result.")
    out.submission = sub
    return out


def counts(site: Site) -> dict[str, int]:
    out = {}
    for c in site.contests():
        with c.server.storage.read() as r:
            out[c.id] = len(r.submissions())
    return out


def test_the_client_reads_both_contests_each_with_its_shortname(site: Site) -> None:
    api = api_of(site)
    for user in ("team1", "team3"):
        listed = api.get("/api/contests", user).json()
        assert [(c["id"], c["shortname"]) for c in listed] == [("practice", "Warmup"), ("main", "final")], user
        assert all(c["id"] and c["shortname"] for c in listed)


def test_without_a_contest_the_client_asks_for_one_and_sends_nothing(site: Site) -> None:
    out = submit_client(api_of(site), "team1", {"sum.py": SUM_AC.encode()})
    assert out.code == 1 and out.submission is None
    assert "Multiple active contests found, please specify one of Warmup, final!" in out.lines[0]
    assert counts(site) == {"practice": 0, "main": 0}


@pytest.mark.parametrize(("option", "cid"), [("final", "main"), ("MAIN", "main"), ("warmup", "practice")])
def test_the_chosen_contest_gets_the_submission_and_only_it(site: Site, option: str, cid: str) -> None:
    api = api_of(site)
    out = submit_client(api, "team2", {"sum.py": SUM_AC.encode()}, contest=option)
    assert out.code == 0, out.lines
    assert out.submission is not None and out.submission["id"] == "1" and out.submission["team_id"] == "team2"
    assert out.lines[0] == "Submission received: id = s1, time = 10:00:00"
    assert counts(site) == {"practice": int(cid == "practice"), "main": int(cid == "main")}
    other = "practice" if cid == "main" else "main"
    assert api.get(f"/api/contests/{other}/submissions", "admin").json() == []
    server = site.contest(cid)
    assert server is not None and server.server.judging.run_pending() == 1
    (j,) = api.get(f"/api/contests/{cid}/judgements", "team2").json()
    assert j["judgement_type_id"] == "AC"


def test_each_contest_has_its_own_problems_for_the_client(site: Site) -> None:
    api = api_of(site)
    divisor = {"divisor.py": b"print(1)\n"}
    out = submit_client(api, "team1", divisor, contest="warmup")  # the practice has no problem divisor
    assert out.code == 1 and out.lines == ["error: No known problem specified or detected."]
    out = submit_client(api, "team1", divisor, contest="final")
    assert out.code == 0 and out.submission is not None and out.submission["problem_id"] == "divisor"
    out = submit_client(api, "team1", {"b.py": b"print(1)\n"}, contest="final")  # by label, as the client allows
    assert out.code == 0 and out.submission is not None and out.submission["problem_id"] == "divisor"
    assert counts(site) == {"practice": 0, "main": 2}


def test_a_team_not_taking_part_cannot_submit_and_learns_nothing(site: Site) -> None:
    api = api_of(site)
    # main is public: team3 sees it as the public does, and is refused; nothing of main is stored or told
    out = submit_client(api, "team3", {"sum.py": SUM_AC.encode()}, contest="final")
    assert out.code == -1 and out.lines[0] == "Submission failed (code 403)"
    assert "\"your team does not take part in contest 'main'\"" in out.lines[1]
    assert counts(site) == {"practice": 0, "main": 0}
    assert submit_client(api, "team1", {"sum.py": SUM_AC.encode()}, contest="final").code == 0  # main has one
    for doc in ("", "/state", "/problems", "/teams", "/submissions", "/judgements", "/scoreboard", "/clarifications"):
        public = api.get(f"/api/contests/main{doc}")
        assert api.get(f"/api/contests/main{doc}", "team3").json() == public.json(), doc  # the public's, no more
    assert counts(site) == {"practice": 0, "main": 1}
    # main hidden: team3 no longer sees it at all, and a submission to it is the 404 of an unknown contest
    admin = site.people.auth.viewer_of_account("admin")
    assert admin is not None
    from judge.serve.services.lifecycle.registry import ContestChange

    site.change(admin, "main", ContestChange(hidden=True))
    listed = api.get("/api/contests", "team3").json()
    assert [c["shortname"] for c in listed] == ["Warmup"]
    out = submit_client(api, "team3", {"sum.py": SUM_AC.encode()}, contest="final")
    assert out.code == 1 and "No (valid) contest specified" in out.lines[0]  # the client knows of no 'final'
    parts = [("code[]", ("sum.py", SUM_AC.encode()))]
    form = {"problem": "sum", "language": "python3"}
    hidden = api.request("POST", "/api/contests/main/submissions", "team3", data=form, files=parts)
    unknown = api.request("POST", "/api/contests/nosuch/submissions", "team3", data=form, files=parts)
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["message"].replace("main", "X") == unknown.json()["message"].replace("nosuch", "X")
    # with only one contest left it sees, the client takes it without -c, as DOMjudge's does
    out = submit_client(api, "team3", {"sum.py": SUM_AC.encode()})
    assert out.code == 0 and out.submission is not None
    assert counts(site) == {"practice": 1, "main": 1}  # main: team1's only
    # the jury still sees both (and must choose); a hidden contest is the staff's, even for its own teams
    assert [c["id"] for c in api.get("/api/contests", "judge").json()] == ["practice", "main"]
    assert [c["id"] for c in api.get("/api/contests", "team1").json()] == ["practice"]


def test_the_link_the_client_prints_leads_to_the_submission_just_sent(site: Site) -> None:
    api = api_of(site)
    clock = site.clock
    assert submit_client(api, "team1", {"sum.py": SUM_AC.encode()}, contest="warmup").code == 0  # practice s1
    clock.advance(60)  # type: ignore[attr-defined]
    out = submit_client(api, "team1", {"sum.py": SUM_AC.encode()}, contest="final")  # main s1, newer
    assert out.lines[1] == "Check http://testserver/team/submission/1 for the result."
    cookie, _ = _login(api, "team1")
    r = api.get("/team/submission/1", cookies={COOKIE: cookie})
    assert (r.status_code, r.headers["location"]) == (303, "/contests/main/submissions/1")
    assert api.get(r.headers["location"], cookies={COOKIE: cookie}).status_code == 200
    clock.advance(60)  # type: ignore[attr-defined]
    assert submit_client(api, "team1", {"sum.py": SUM_AC.encode()}, contest="warmup").code == 0  # practice s2
    r = api.get("/team/submission/2", cookies={COOKIE: cookie})
    assert r.headers["location"] == "/contests/practice/submissions/2"
    # another team's id, a number not sent, not a number: the site's list; not logged in: the login
    other, _ = _login(api, "team2")
    for path, cookies in (
        ("/team/submission/2", {COOKIE: other}),
        ("/team/submission/9", {COOKIE: cookie}),
        ("/team/submission/x", {COOKIE: cookie}),
    ):
        r = api.get(path, cookies=cookies)
        assert (r.status_code, r.headers["location"]) == (303, "/"), path
    assert api.get("/team/submission/1").headers["location"] == "/login"
