"""Helpers for the tests of a course served (issue 45): a small course site (students s1..s4 in sections A and
B, their accounts, an instructor and a TA; the fixture problems sum and divisor; one assignment ``hw``), opened
over the scripted judge with a settable clock, and a client that logs in through the pages.

The assignment's times (T0 = 2030-01-01T10:00:00Z): open at T0, due T0 + 2 h, 80 % for an hour after, then 50 %
until T0 + 5 h, then closed; s2 has a one-hour extension; section B is due at T0 + 3 h; 2 submissions at once,
one back every 30 minutes. The contest runs from T0 - 1 h for a day."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from serve_fixtures import FIXTURES, SUM_AC, Api, FakeClock

from judge.serve.http.pages.sessions import COOKIE
from judge.serve.http.site_app import create_site_app

PASSWORDS = {
    "s1": "pw-s1-xyz",
    "s2": "pw-s2-xyz",
    "s3": "pw-s3-xyz",
    "s4": "pw-s4-xyz",
    "instructor": "pw-instructor",
    "ta": "pw-ta-xyz",
}
SECTIONS = {"s1": "A", "s2": "A", "s3": "B", "s4": "B"}
NAMES = {"s1": "Ada Lovelace", "s2": "Alan Turing", "s3": "Grace Hopper", "s4": "Edsger Dijkstra"}

ASSIGNMENT = """\
assignment:
  name: Homework
  open: "2030-01-01T10:00:00Z"
  due: "2030-01-01T12:00:00Z"
  late:
    - {for: 1h, credit: 80}
    - {credit: 50}
  late_until: "2030-01-01T15:00:00Z"
  after_close: closed
  counts: last
  rate_limit: {submissions: 2, every: 30m}
  overrides:
    - {students: [s2], extension: 1h, note: ill}
    - {section: B, due: "2030-01-01T13:00:00Z"}
"""


def contest_yaml(cid: str, assignment: str = ASSIGNMENT, extra: str = "") -> str:
    return (
        f"id: {cid}\nname: Course {cid}\n"
        'start_time: "2030-01-01T09:00:00Z"\nduration: "24:00:00"\n'
        "scoreboard_type: score\ncode_limit: 16\nrate_limit: {submissions: 100, seconds: 60}\n"
        f"{extra}{assignment}"
    )


def write_course(root: Path, assignment: str = ASSIGNMENT, extra: str = "", cid: str = "hw") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text(f"name: Test course\ncontests: [{cid}]\n")
    for pid in ("sum", "divisor"):
        shutil.copytree(FIXTURES / pid, root / "problems" / pid)
    groups = [
        {"id": "students", "name": "Students"},
        {"id": "A", "name": "A", "type": "section"},
        {"id": "B", "name": "B", "type": "section"},
    ]
    teams = [{"id": s, "name": NAMES[s], "label": s, "group_ids": ["students", SECTIONS[s]]} for s in sorted(SECTIONS)]
    accounts = [
        {"id": s, "username": s, "password": PASSWORDS[s], "type": "team", "team_id": s, "name": NAMES[s],
         "email": f"{s}@example.edu"}
        for s in sorted(SECTIONS)
    ] + [
        {"id": "instructor", "username": "instructor", "password": PASSWORDS["instructor"], "type": "admin"},
        {"id": "ta", "username": "ta", "password": PASSWORDS["ta"], "type": "judge"},
    ]  # fmt: skip
    (root / "groups.json").write_text(json.dumps(groups))
    (root / "teams.json").write_text(json.dumps(teams))
    (root / "accounts.yaml").write_text(json.dumps(accounts))
    folder = root / "contests" / cid
    folder.mkdir(parents=True)
    (folder / "contest.yaml").write_text(contest_yaml(cid, assignment, extra))
    (folder / "problems.yaml").write_text("- {id: sum, label: A}\n- {id: divisor, label: B}\n")
    return root


class CourseApi(Api):
    """The site's app: the API with Basic auth (the course's passwords), and the pages with a session."""

    def __init__(self, site: Any, clock: FakeClock) -> None:
        super().__init__(create_site_app(site))
        self.site = site
        self.clock = clock
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, user: str | None = None, password: str | None = None, **kw: Any) -> Any:
        if user is not None and password is None:
            password = PASSWORDS[user]
        return super().request(method, path, user, password, **kw)

    def submit_as(
        self, user: str, problem: str = "sum", code: str = SUM_AC, cid: str = "hw", password: str | None = None
    ) -> Any:
        import base64

        from judge.serve.model.upload import pack

        data = base64.b64encode(pack({"sum.py": code.encode()})).decode()
        body = {"problem_id": problem, "language_id": "python3", "files": [{"data": data}]}
        return self.request("POST", f"/api/contests/{cid}/submissions", user, password, json=body)

    def login(self, user: str) -> str:
        """Log in through the site's page; the session cookie (kept for ``page``)."""
        first = self.get("/login")
        token = re.search(r'name="csrf" value="([^"]+)"', first.text)
        assert token is not None
        r = self.request(
            "POST",
            "/login",
            data={"csrf": token.group(1), "username": user, "password": PASSWORDS[user]},
            cookies={COOKIE: first.cookies[COOKIE]},
        )
        assert r.status_code == 303, r.text
        self.cookies[user] = r.cookies[COOKIE]
        return self.cookies[user]

    def page(self, user: str | None, path: str, **kw: Any) -> Any:
        cookies = {COOKIE: self.cookies[user] if user in self.cookies else self.login(user)} if user else {}
        return self.request("GET", path, cookies=cookies, **kw)

    def post_page(self, user: str, path: str, data: dict[str, str], files: Any = None, form_from: str = "") -> Any:
        """POST a page's form as ``user`` (its CSRF token read from ``form_from``, default: the path itself)."""
        page = self.page(user, form_from or path)
        token = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert token is not None, page.text
        cookies = {COOKIE: self.cookies[user]}
        return self.request("POST", path, cookies=cookies, data={"csrf": token.group(1), **data}, files=files)
