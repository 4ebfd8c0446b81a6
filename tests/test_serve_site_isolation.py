"""Isolation of a site's contests (issue 44), a Hypothesis property through the real ASGI app: random
sites (two contests, each with some of the four teams, B hidden or not), random actions in both (teams'
submissions, their judging, questions, the jury's announcements and rejudges), then every role asks
every document, feed and page of contest A. The world where B did nothing and the world where B did its
actions must answer every one of them byte for byte alike (the CSRF tokens of the pages aside, random per
session): nothing of B (its ids, counts, sizes, events) reaches A. And to everyone but the jury a hidden
B answers exactly as a contest that does not exist (the same status and body, a 404 for each path, a 405
for a wrong method alike)."""

from __future__ import annotations

import base64
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_fixtures import SUM_AC, SUM_WA, T0, FakeClock
from serve_site_fixtures import SITE_PASSWORDS, open_test_site, write_site
from test_serve_site import SiteApi, admin_viewer

from judge.serve.http.pages.sessions import COOKIE
from judge.serve.http.site_app import create_site_app
from judge.serve.model.upload import pack
from judge.serve.services.lifecycle.registry import ContestChange
from judge.serve.site.site import Site

TEAMS = ("team1", "team2", "team3", "team4")
ROLES = (None, *TEAMS, "judge", "admin")
A_API = (
    "",
    "/state",
    "/account",
    "/teams",
    "/accounts",
    "/problems",
    "/submissions",
    "/submissions/1",
    "/submissions/2",
    "/submissions/3",
    "/judgements",
    "/judgements/1",
    "/runs",
    "/clarifications",
    "/scoreboard",
    "/awards",
    "/event-feed?stream=false",
    "/judging/queue",
    "/judging/errors",
    "/balloons",
    "/audit-log",
)
A_PAGES = ("/scoreboard", "/problems", "/submissions", "/clarifications", "/admin", "/admin/judging", "/status")
B_PROBES = ("", "/teams", "/submissions", "/submissions/1", "/scoreboard", "/event-feed?stream=false", "/x")
CSRF = re.compile(r'name="csrf" value="[0-9a-f]+"')

submit = st.tuples(st.just("submit"), st.sampled_from(TEAMS), st.booleans())
question = st.tuples(st.just("question"), st.sampled_from(TEAMS), st.just(True))
other = st.tuples(st.sampled_from(["judge", "announce", "rejudge"]), st.just(""), st.booleans())
actions = st.lists(st.one_of(submit, submit, question, other), max_size=6)


@st.composite
def worlds(draw: Any) -> dict[str, Any]:
    return {
        "a_teams": sorted(draw(st.sets(st.sampled_from(TEAMS), min_size=1))),
        "b_teams": sorted(draw(st.sets(st.sampled_from(TEAMS), min_size=1))),
        "b_hidden": draw(st.booleans()),
        "a_actions": draw(actions),
        "b_actions": draw(actions.filter(bool)),
    }


def _do(api: SiteApi, site: Site, cid: str, action: tuple[str, str, bool]) -> None:
    kind, team, ok = action
    if kind == "submit":
        data = base64.b64encode(pack({"sum.py": (SUM_AC if ok else SUM_WA).encode()})).decode()
        body = {"problem_id": "sum", "language_id": "python3", "files": [{"data": data}]}
        api.request("POST", f"/api/contests/{cid}/submissions", team, json=body)
    elif kind == "question":
        api.request("POST", f"/api/contests/{cid}/clarifications", team, json={"text": f"a question from {team}"})
    elif kind == "announce":
        api.request("POST", f"/api/contests/{cid}/clarifications", "admin", json={"text": "an announcement"})
    elif kind == "rejudge":
        api.request("POST", f"/api/contests/{cid}/submissions/1/rejudge", "admin")
    elif kind == "judge":
        found = site.contest(cid)
        assert found is not None
        found.server.judging.run_pending()  # the pool's work, here


def _login(api: SiteApi, user: str) -> str:
    first = api.get("/login")
    token = re.search(r'name="csrf" value="([^"]+)"', first.text)
    assert token is not None
    form = {"csrf": token.group(1), "username": user, "password": SITE_PASSWORDS[user]}
    r = api.request("POST", "/login", data=form, cookies={COOKIE: first.cookies[COOKIE]})
    assert r.status_code == 303, r.text
    return str(r.cookies[COOKIE])


def _clarification_ids(api: SiteApi) -> dict[str, str]:
    """A's clarifications' ids (random by design: they count nothing), each named by its place in the
    order they were made (the jury's list), so that two worlds compare."""
    found = api.get("/api/contests/a/clarifications", "admin").json()
    return {c["id"]: f"clar{i}" for i, c in enumerate(found)}


def _answers(api: SiteApi, cookies: dict[str | None, str]) -> dict[str, tuple[int, str]]:
    """Every role's answer to every document, feed and page of contest A, and the site's list."""
    out: dict[str, tuple[int, str]] = {}
    names = _clarification_ids(api)

    def plain(r: Any) -> tuple[int, str]:
        text = CSRF.sub("csrf", r.text)
        for cid, name in names.items():
            text = text.replace(cid, name)
        return r.status_code, text

    for role in ROLES:
        out[f"{role} /api/contests"] = plain(api.get("/api/contests", role))
        for path in A_API:
            out[f"{role} {path}"] = plain(api.get(f"/api/contests/a{path}", role))
        jar = {COOKIE: cookies[role]} if role is not None else {}
        for path in A_PAGES:
            page = api.get(f"/contests/a{path}", cookies=jar, headers={"accept": "text/html"})
            out[f"{role} page {path}"] = plain(page)
    return out


def _world(tmp: Path, w: dict[str, Any], with_b: bool) -> tuple[dict[str, tuple[int, str]], list[str]]:
    contests = {
        "a": {"problems": ("sum",), "teams": w["a_teams"], "start": "2030-01-01T09:00:00Z"},
        "b": {"problems": ("sum",), "teams": w["b_teams"], "start": "2030-01-01T09:00:00Z"},
    }
    site = open_test_site(write_site(tmp, contests), FakeClock(T0))
    try:
        api = SiteApi(create_site_app(site))
        a_actions, b_actions = list(w["a_actions"]), list(w["b_actions"]) if with_b else []
        while a_actions or b_actions:  # interleaved: B's between A's
            if b_actions:
                _do(api, site, "b", b_actions.pop(0))
            if a_actions:
                _do(api, site, "a", a_actions.pop(0))
        if w["b_hidden"]:
            site.change(admin_viewer(site), "b", ContestChange(hidden=True))
        cookies = {role: _login(api, role) for role in ROLES if role is not None}
        answers = _answers(api, {None: "", **cookies})
        problems: list[str] = []
        if w["b_hidden"]:  # a hidden B is, to all but the jury, a contest that does not exist
            for role in (None, *TEAMS):
                jar = {COOKIE: cookies[role]} if role is not None else {}
                for path in B_PROBES:
                    for kind in ("/api/contests/", "/contests/"):
                        hidden = api.get(f"{kind}b{path}", role, cookies=jar, headers={"accept": "text/html"})
                        unknown = api.get(f"{kind}q{path}", role, cookies=jar, headers={"accept": "text/html"})
                        renamed = hidden.text.replace("'b'", "'q'").replace("contests/b", "contests/q")
                        same = (hidden.status_code, renamed) == (unknown.status_code, unknown.text)
                        if not same or hidden.status_code != 404:
                            problems.append(f"{role} {kind}b{path}: {hidden.status_code} {hidden.text[:200]}")
                wrong = api.request("DELETE", "/api/contests/b/teams", role).status_code
                if wrong != api.request("DELETE", "/api/contests/q/teams", role).status_code:
                    problems.append(f"{role}: a wrong method tells a hidden contest from an unknown one")
        return answers, problems
    finally:
        site.close()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_nothing_of_contest_b_reaches_contest_a_and_a_hidden_b_does_not_exist(w: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        quiet, _ = _world(Path(tmp) / "quiet", w, with_b=False)
        busy, problems = _world(Path(tmp) / "busy", w, with_b=True)
    assert not problems, problems
    assert quiet.keys() == busy.keys()
    differ = [k for k in quiet if quiet[k] != busy[k]]
    assert not differ, (differ[:5], [(quiet[k], busy[k]) for k in differ[:2]])
