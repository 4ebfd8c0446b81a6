"""Writes tests/fixtures/serve_v12: a contest folder as the release before issue 44 (schema 12, one contest per
`judge serve`) left it, and what that release answered. Run with that release's code (commit 542a20d):

    python3 tests/serve_v12_fixture.py

It builds the test contest of serve_fixtures.py (pass-fail, freeze 1 h, plus a print_command-less printer),
then, at a FakeClock, runs the steps listed in the fixture's README.md through the real HTTP app, and
stores ``answers.json``: every document of the Contest API, our extensions an admin reads, and the event
feed, for each role; and ``session.txt``: a page session's cookie (team1's) made by that release.
tests/test_serve_site_upgrade.py opens a copy with the current release (a site of one contest) and checks
that every answer is the same and that the session still logs team1 in.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from serve_fixtures import HOUR, PASSWORDS, SUM_AC, SUM_WA, T0, Api, FakeClock, make_server, write_contest

OUT = Path(__file__).parent / "fixtures" / "serve_v12"
C = "/api/contests/test"
USERS = (None, "team1", "team2", "team4", "judge", "admin")
PATHS = ("", "/state", "/access", "/account", "/problems", "/teams", "/accounts", "/groups", "/organizations")
PATHS += ("/submissions", "/judgements", "/runs", "/scoreboard", "/judgement-types", "/languages")
PATHS += ("/clarifications", "/awards", "/prints")
STAFF_PATHS = ("/audit-log", "/judging", "/judging/queue", "/balloons", "/judging/errors")
TEAM4_PASSWORD = "pw-team4-live"


def passwords() -> dict[str, str]:
    return {**PASSWORDS, "team4": TEAM4_PASSWORD}


def answers(api: Api) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pw = passwords()
    for user in USERS:
        who = user or "public"
        password = None if user is None else pw[user]
        for path in PATHS + (STAFF_PATHS if user in ("judge", "admin") else ()):
            r = api.request("GET", C + path, user, password)
            out[f"{who} GET {path or '/'}"] = [r.status_code, r.json()]
        params = {"stream": "false"}
        r = api.request("GET", C + "/event-feed", user, password, params=params)
        assert r.status_code == 200, r.text
        out[f"{who} feed"] = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    r = api.request("GET", "/api/contests")
    out["public GET /api/contests"] = [r.status_code, r.json()]
    return out


def page_session(api: Api) -> str:
    """team1 logs in on the login page: the session cookie it gets."""

    async def go() -> str:
        transport = httpx.ASGITransport(app=api.app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            page = await c.get("/login")
            token = re.search(r'name="csrf" value="([^"]+)"', page.text)
            assert token is not None
            data = {"csrf": token.group(1), "username": "team1", "password": PASSWORDS["team1"]}
            r = await c.post("/login", data=data)
            assert r.status_code == 303, r.text
            return str(c.cookies["judge_session"])

    return asyncio.run(go())


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    root = write_contest(OUT, scoreboard_type="pass-fail", rate=(10, 60))
    clock = FakeClock(T0 + 60)
    server = make_server(root, clock)
    api = Api.of(server)
    ok = lambda r, status=200: r.status_code == status or sys.exit(f"{r.status_code} {r.text}")  # noqa: E731
    # 1. before the freeze: submissions, judged; a question and its answer; a print-out
    ok(api.submit("team1"), 201)
    clock.advance(600)
    ok(api.submit("team2", files={"sum.py": SUM_WA}), 201)
    server.judging.run_pending()
    clock.advance(60)
    asked = api.request("POST", C + "/clarifications", "team1", json={"problem_id": "sum", "text": "Negative a?"})
    ok(asked, 201)
    clock.advance(60)
    answer = {"text": "Yes, a may be negative.", "reply_to_id": asked.json()["id"], "problem_id": "sum"}
    ok(api.request("POST", C + "/clarifications", "judge", json=answer), 201)
    ok(api.request("POST", C + "/prints", "team2", json={"filename": "a.py", "text": "print(1)\n"}), 201)
    # 2. people changed live: a new group and team, its account; team2 renamed
    clock.advance(60)
    ok(api.request("PUT", C + "/groups/late", "admin", json={"id": "late", "name": "Late entries"}))
    team4 = {"id": "team4", "name": "Omega", "label": "4", "group_ids": ["late"]}
    ok(api.request("PUT", C + "/teams/team4", "admin", json=team4))
    account = {"id": "team4", "username": "team4", "type": "team", "team_id": "team4", "password": TEAM4_PASSWORD}
    ok(api.request("PUT", C + "/accounts/team4", "admin", json=account))
    ok(api.request("PUT", C + "/teams/team2", "admin", json={"id": "team2", "name": "Alpha Prime", "label": "2"}))
    clock.advance(60)
    ok(api.request("POST", C + "/submissions", "team4", TEAM4_PASSWORD, json=_body()), 201)
    ok(api.submit("team3", problem="divisor", files={"d.py": "print(1)\n"}), 201)
    server.judging.run_pending()
    # a submission ignored by the jury, a review, a balloon delivered, an award of the admin's
    clock.advance(60)
    ok(api.submit("team3", files={"sum.py": SUM_AC}), 201)
    server.judging.run_pending()
    ok(api.request("POST", C + "/submissions/5/ignore", "judge"))
    ok(api.request("POST", C + "/submissions/1/review", "judge", json={"verified": True, "comment": "fine"}))
    ok(api.request("POST", C + "/balloons/1/done", "judge"))
    award = {"citation": "Best question", "team_ids": ["team1"]}
    ok(api.request("PUT", C + "/awards/best-question", "admin", json={"id": "best-question", **award}))
    # 3. in the freeze: judged but hidden from the public; one left queued
    clock.t = T0 + 4 * HOUR + 60
    ok(api.submit("team2"), 201)
    server.judging.run_pending()
    clock.advance(60)
    ok(api.submit("team1", files={"sum.py": SUM_WA}), 201)
    session = page_session(api)
    clock.advance(60)
    got = answers(api)
    server.close()
    for junk in ("contest.sqlite-wal", "contest.sqlite-shm", "contest.sqlite.lock"):
        (root / junk).unlink(missing_ok=True)
    (OUT / "answers.json").write_text(json.dumps({"now": clock.t, "answers": got}, indent=1, sort_keys=True) + "\n")
    (OUT / "session.txt").write_text(session + "\n")
    print(f"wrote {OUT}: {len(got)} answers")


def _body() -> dict[str, Any]:
    import base64

    from judge.serve.model.upload import pack

    data = pack({"sum.py": SUM_AC.encode()})
    return {"problem_id": "sum", "language_id": "python3", "files": [{"data": base64.b64encode(data).decode()}]}


if __name__ == "__main__":
    main()
