"""Every contest page under one base path (issue 44: in a site of contests a contest's pages live under
``/contests/<cid>/``; a single-contest folder keeps today's URLs, base ""). The app is built with
``create_app(server, page_base=BASE)`` and walked as the public, a team, a judge and an admin through the
real forms of the pages (the team's submit, a clarification, a print-out; the jury's answers, balloons,
reviews, rejudges and their confirmations, similarity, a counterexample added as a test and the preview, the
people, the contest's times, freeze, thaw, finalize, the resolver), then every page each of them can reach
by a link is fetched. Every URL of every HTML answer (each tag's ``href``, ``src``, ``action``, ``data-live``,
any attribute holding a path; resolved against the page's own URL, so a relative one counts too) and every
redirect's ``Location`` must point under the base, except the site-level pages (``SITE_PAGES``) and the API.
Each contest page of the route table must have been requested at least once. Run with the base "" as
well: today's URLs, the same walk."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from serve_fixtures import CHEAP_HASHER, HOUR, PASSWORDS, SUM_WA, T0, FakeClock
from starlette.routing import compile_path
from test_serve_pages import Browser, csrf_of
from test_serve_previews import open_contest, package_zip
from test_serve_similarity import compute_queued
from test_serve_statements import contest_with_files

from judge.serve.http.app import PAGE_SPECS, create_app
from judge.serve.model.records import Counterexample
from judge.serve.site.server import Server

BASE = "/contests/test"
# the site-level pages: at the top of the site, never under a contest's base path (PageSpec.site)
SITE_PAGES = ("/login", "/logout", "/favicon.ico")
SITE_PREFIXES = ("/static/", "/api/")  # the pages' scripts and style; the Contest API (its own URLs)
URL_ATTRIBUTES = ("href", "src", "action", "formaction", "data-live", "data-url", "data-base")
STATIC = Path(__file__).parent.parent / "judge" / "serve" / "http" / "static"
SIMILAR = Path(__file__).parent / "fixtures" / "similarity"
# team1's and team3's programs: one copied from the other (a pair for the similarity pages), both accepted
# (the scripted judge accepts a source that adds: "a + b")
ORIGINAL = (SIMILAR / "original.py").read_text() + "\n# a + b\n"
COPY = (SIMILAR / "renamed.py").read_text() + "\n# a + b\n"


@dataclass
class Form:
    method: str
    action: str
    confirm: str | None  # data-confirm: live.js asks it
    fields: dict[str, str] = field(default_factory=dict)


class Doc(HTMLParser):
    """An HTML answer's URLs (tag, attribute, value) and forms (their default fields, as a browser sends them)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str, str]] = []
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: tuple[str, list[str], list[str]] | None = None  # name, values, selected
        self._textarea: tuple[str, list[str]] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for name, value in a.items():
            if name in URL_ATTRIBUTES or value.startswith("/"):
                self.urls.append((tag, name, value))
        if tag == "form":
            self._form = Form(a.get("method", "get").lower(), a.get("action", ""), a.get("data-confirm"))
            self.forms.append(self._form)
        elif self._form is not None and tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind not in ("file", "submit"):
                self._form.fields.setdefault(a["name"], a.get("value", "on" if kind == "checkbox" else ""))
        elif self._form is not None and tag == "select":
            self._select = (a.get("name", ""), [], [])
        elif self._select is not None and tag == "option":
            self._select[1].append(a.get("value", ""))
            if "selected" in a:
                self._select[2].append(a.get("value", ""))
        elif self._form is not None and tag == "textarea":
            self._textarea = (a.get("name", ""), [])

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select" and self._select is not None:
            name, values, chosen = self._select
            if self._form is not None and name and values:
                self._form.fields[name] = (chosen or values)[0]
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            if self._form is not None and self._textarea[0]:
                self._form.fields[self._textarea[0]] = "".join(self._textarea[1])
            self._textarea = None


def site_level(path: str) -> bool:
    return path in SITE_PAGES or path == "/api" or path.startswith(SITE_PREFIXES)


class Walk:
    """The app with the contest's pages under ``base``, its browsers, and what they found wrong."""

    def __init__(self, server: Server, base: str) -> None:
        self.server, self.base = server, base
        self.app = create_app(server, page_base=base)
        self.requested: set[tuple[str, str]] = set()  # (method, path)
        self.problems: list[str] = []
        self.checked = 0  # URLs looked at

    def under(self, path: str) -> bool:
        return path == self.base or path.startswith(self.base + "/")

    def resolve(self, where: str, value: str) -> str | None:
        """``value`` (a link on the page at ``where``) as this server's path and query; None: elsewhere."""
        parts = urlsplit(urljoin("http://testserver" + where, value))
        if parts.scheme not in ("http", "https") or parts.netloc != "testserver":
            return None
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def check_url(self, where: str, value: str, what: str) -> None:
        if value.startswith("#") or value == "":
            return
        self.checked += 1
        url = self.resolve(where, value)
        if url is None:
            return
        path = url.split("?")[0]
        if not site_level(path) and not self.under(path):
            self.problems.append(f"{what}: {value!r} ({path}) is not under the base {self.base!r}")

    def check(self, method: str, url: str, r: httpx.Response) -> Doc | None:
        where = url.split("?")[0]
        self.requested.add((method, where))
        if r.status_code >= 500:
            self.problems.append(f"{method} {url}: {r.status_code}")
        if 300 <= r.status_code < 400:
            self.check_url(where, r.headers["location"], f"{method} {url} -> Location")
        if "text/html" not in r.headers.get("content-type", ""):
            return None
        doc = Doc(r.text)
        for tag, name, value in doc.urls:
            self.check_url(where, value, f"{method} {url}: <{tag} {name}>")
        return doc

    def browser(self) -> Checked:
        return Checked(self)

    def login(self, user: str) -> Checked:
        b = self.browser()
        r = b.send("/login", "/login", {"username": user, "password": PASSWORDS[user]}, site=True)
        landing = "/admin" if user in ("judge", "admin") else "/submissions"
        b.landed(r, landing)  # the contest's page, under the base
        return b


class Checked(Browser):
    """A browser whose every answer the walk checks."""

    def __init__(self, walk: Walk) -> None:
        super().__init__(walk.app)
        self.walk = walk
        self.last: Doc | None = None

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        r = super().request(method, path, **kw)
        self.last = self.walk.check(method, path, r)
        return r

    def page(self, path: str) -> Doc:
        """A contest page (``path`` under the base), answered 200."""
        r = self.get(self.walk.base + path)
        assert r.status_code == 200, (path, r.status_code, r.text[:300])
        assert self.last is not None
        return self.last

    def form(self, doc: Doc, where: str, action: str, pick: Callable[[Form], bool] | None, site: bool) -> Form:
        want = action if site else self.walk.base + action
        found = [f for f in doc.forms if self.walk.resolve(where, f.action) == want and (pick is None or pick(f))]
        assert found, f"no form to {want} on {where}: {[f.action for f in doc.forms]}"
        return found[0]

    def send(
        self,
        page: str,
        action: str,
        fields: dict[str, str] | None = None,
        *,
        files: dict[str, Any] | None = None,
        pick: Callable[[Form], bool] | None = None,
        site: bool = False,
    ) -> httpx.Response:
        """Fill in the form to ``action`` (under the base, or a site-level page's: ``site``) on ``page`` (under
        the base, or a site-level page) and send it as a browser would: its fields as drawn, ``fields`` typed
        over them."""
        where = page if site_level(page.split("?")[0]) else self.walk.base + page
        r = self.get(where)
        assert r.status_code == 200 and self.last is not None, (where, r.status_code)
        form = self.form(self.last, where, action, pick, site)
        target = self.walk.resolve(where, form.action)
        assert target is not None and form.method == "post"
        return self.post(target, data={**form.fields, **(fields or {})}, files=files)

    def confirmed(self, page: str, action: str, fields: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        """A form that asks first (data-confirm): sent as without scripts, the server's confirmation page,
        whose form ("Yes, do it") is sent in turn."""
        asked = self.send(page, action, fields, **kw)
        assert asked.status_code == 200 and self.last is not None, (action, asked.status_code, asked.text[:300])
        here = self.walk.base + action.split("?")[0]
        yes = self.form(self.last, here, action, lambda f: f.fields.get("confirmed") == "yes", False)
        cancel = re.search(r'id="confirm-cancel" href="([^"]*)"|href="([^"]*)" id="confirm-cancel"', asked.text)
        assert cancel, asked.text[:500]
        return self.post(self.walk.base + action, data=yes.fields)

    def landed(self, r: httpx.Response, path: str, prefix: bool = False) -> str:
        """``r`` is the 303 of a form to the contest's page ``path`` (a page whose path starts so: ``prefix``),
        with any query: the Location."""
        assert r.status_code == 303, (path, r.status_code, r.text[:500])
        location = r.headers["location"]
        want = self.walk.base + path
        assert location.startswith(want) if prefix else location.split("?")[0] == want, (location, want)
        return location

    def csrf(self) -> str:
        return csrf_of(self.get(self.walk.base + "/scoreboard").text)


def crawl(walk: Walk, b: Checked, start: str, limit: int = 400) -> int:
    """Every contest page ``b`` reaches by links, redirects and live parts from ``start`` (one URL per path
    and set of query keys), fetched and checked; none a 404. How many were fetched."""
    queue, seen, fetched = deque([walk.base + start]), set(), 0
    while queue and fetched < limit:
        url = queue.popleft()
        path, _, query = url.partition("?")
        key = (path, tuple(sorted(k.split("=")[0] for k in query.split("&") if k)))
        if key in seen:
            continue
        seen.add(key)
        r = b.get(url)
        fetched += 1
        if r.status_code == 404:
            walk.problems.append(f"GET {url}: a link to no page")
        links = [("location", r.headers["location"])] if r.is_redirect else []
        links += [(name, value) for _tag, name, value in b.last.urls] if b.last is not None else []
        for name, value in links:
            if name in ("location", "href", "src", "data-live") and not value.startswith("#"):
                target = walk.resolve(path, value)
                if target is not None and not site_level(target.split("?")[0]) and walk.under(target.split("?")[0]):
                    queue.append(target)
    return fetched


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    root = contest_with_files(tmp_path / "contest")
    (root / "contest.yaml").write_text((root / "contest.yaml").read_text().replace("score", "pass-fail"))
    statement = root / "problems" / "sum" / "problem_statement"
    (statement / "problem.en.md").write_text((statement / "problem.en.md").read_text() + "\n![a picture](pic.svg)\n")
    (statement / "pic.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    (root / "problems" / "sum" / "fuzz.py").write_text("# the hooks: only their presence matters here\n")
    s, _ = open_contest(root, clock)
    yield s
    s.close()


@pytest.mark.parametrize("base", [BASE, ""], ids=["under-a-base", "today"])
def test_every_contest_page_link_form_and_redirect_is_under_the_base(
    server: Server, clock: FakeClock, tmp_path: Path, base: str
) -> None:
    walk = Walk(server, base)
    public = walk.browser()
    public.landed(public.get(base + "/"), "/scoreboard")
    assert public.get("/login").status_code == 200 and public.get("/static/live.js").status_code == 200
    assert public.get("/favicon.ico").status_code == 200
    if base:
        assert public.get("/scoreboard", headers={"Accept": "text/html"}).status_code == 404  # no page without it
        assert public.get(base).status_code in (307, 308)  # to base + "/" (the router's slash)
    r = public.get(base + "/submit")
    assert r.status_code == 303 and r.headers["location"] == "/login"  # the login is the site's

    # --- the teams: submit, ask, print
    team1, team2, team3 = walk.login("team1"), walk.login("team2"), walk.login("team3")
    for team, code in ((team1, ORIGINAL), (team2, SUM_WA), (team3, COPY)):
        r = team.send("/submit", "/submit", {"problem": "sum", "language": "python3", "code": code, "filename": "a.py"})
        team.landed(r, "/submissions")
    assert server.judging.run_pending() == 3
    team1.landed(team1.send("/clarifications", "/clarifications", {"text": "Is 0 allowed?"}), "/clarifications")
    team1.landed(team1.send("/print", "/print", {"text": "print(1)", "filename": "a.py"}), "/print")
    team1.landed(team1.get(base + "/team/submission/1"), "/submissions/1")
    team1.landed(team1.get(base + "/problems/sum"), "/problems/sum/")
    assert team1.get(base + "/admin").status_code == 403  # the error page, checked too
    # issue 47: a run's downloads (the crawl reaches the run pages that link them; asked here by hand)
    assert team2.get(base + "/submissions/2/runs/1/input").status_code == 200

    # --- the jury
    judge = walk.login("judge")
    judge.landed(judge.get(base + "/submit"), "/admin")  # a team's page sends the jury to theirs
    assert judge.get(base + "/admin/judgements/2/runs/2/answer").status_code == 200
    assert judge.page("/admin/compare?a=1&b=2").urls  # two submissions compared (issue 47): its links checked
    judge.landed(judge.get(base + "/clarifications"), "/admin/clarifications")
    clar = re.findall(r'href="[^"]*/admin/clarifications/([^"/?]+)"', judge.get(base + "/admin/clarifications").text)
    r = judge.send(f"/admin/clarifications/{clar[0]}", f"/admin/clarifications/{clar[0]}", {"text": "Yes."})
    judge.landed(r, "/admin/clarifications")
    r = judge.send("/admin/clarifications", "/admin/clarifications", {"text": "Read the statement."})
    judge.landed(r, "/admin/clarifications")
    judge.landed(judge.send("/admin/balloons", "/admin/balloons/1/done"), "/admin/balloons")
    judge.landed(judge.send("/admin/prints", "/admin/prints/1/delivered"), "/admin/prints")
    judge.landed(
        judge.send("/admin/submissions/2", "/admin/submissions/2/review", {"comment": "ok"}), "/admin/submissions/2"
    )
    judge.landed(judge.send("/admin/submissions/2", "/admin/submissions/2/ignored"), "/admin/submissions/2")
    judge.landed(judge.send("/admin/submissions/2", "/admin/submissions/2/ignored"), "/admin/submissions/2")
    # issue 47: each rejudge is a set, reviewed on its page, applied or cancelled there
    sets = [
        judge.landed(judge.confirmed("/admin/submissions/1", "/admin/submissions/1/rejudge"), "/admin/previews/", True),
        judge.landed(
            judge.confirmed("/admin?problem_id=divisor", "/admin/problems/divisor/rejudge"), "/admin/previews/", True
        ),
        judge.landed(judge.confirmed("/admin/rejudgings", "/admin/rejudgings"), "/admin/previews/", True),
    ]
    server.judging.run_pending()
    first, second = (s.removeprefix(base).split("?")[0] for s in sets[:2])
    judge.landed(judge.confirmed(first, f"{first}/apply"), first, True)
    judge.landed(judge.confirmed(second, f"{second}/discard"), second, True)
    judge.landed(judge.send("/admin/similarity", "/admin/similarity"), "/admin/similarity")
    compute_queued(server)
    pairs = re.findall(r'href="[^"]*(/admin/similarity/sum/pairs/\d+)"', judge.get(base + "/admin/similarity/sum").text)
    assert pairs, "no pair of similar submissions"
    review = "/admin/similarity/sum/review"
    on_pair = judge.form(judge.page(pairs[0]), base + pairs[0], review, None, False)  # with its way back
    judge.landed(judge.send("/admin/similarity/sum", review), "/admin/similarity/sum")
    judge.landed(judge.post(base + review, data=on_pair.fields), pairs[0])
    found = Counterexample("sum", 2, 2, b"1000000 1\n", b"1000001\n", b"0\n", "WA", "wrong", True, clock.now())
    with server.storage.write() as w:
        ce = w.add_counterexample(found)
    added = judge.confirmed(f"/admin/counterexamples/{ce}", f"/admin/counterexamples/{ce}/add-as-test")
    preview = judge.landed(added, "/admin/previews/", prefix=True)
    assert server.previews is not None
    server.previews.run_pending()

    # --- an admin: previews, people, the contest's times, judging, freeze
    admin = walk.login("admin")
    preview_path = preview.removeprefix(base)
    admin.landed(admin.confirmed(preview_path, f"{preview_path}/apply"), preview_path)
    upload = {"package": ("sum.zip", package_zip(server.contest.root / "problems" / "sum"), "application/zip")}
    uploaded = admin.send("/admin/problems/sum/package", "/admin/problems/sum/package", files=upload)
    other = admin.landed(uploaded, "/admin/previews/", prefix=True)
    other_path = other.removeprefix(base)
    admin.landed(admin.confirmed(other_path, f"{other_path}/discard"), other_path)
    server.judging.run_pending()
    people = "/admin/people"
    admin.landed(admin.send(people, "/admin/teams", {"id": "team4", "name": "Nu", "label": "4"}), people)
    admin.landed(admin.send(people, "/admin/groups", {"id": "g2", "name": "Second"}), people)
    admin.landed(admin.send(people, "/admin/accounts", {"id": "team4", "type": "team", "team_id": "team4"}), people)
    accounts = b"- {id: nine, username: nine, type: judge}\n"  # its password shown once (?shown=)
    imported = admin.send(people, "/admin/people/import", files={"file": ("accounts.yaml", accounts)})
    assert "shown=" in admin.landed(imported, people)
    admin.landed(admin.send(people, "/admin/teams/team4/hidden"), people)
    admin.landed(admin.confirmed(people, "/admin/accounts/team4/reset-password"), people)
    admin.landed(admin.confirmed(people, "/admin/accounts/team4/disabled"), people)
    contest = "/admin/contest"
    admin.landed(admin.send(contest, contest, pick=lambda f: f.fields.get("action") == "lengths"), contest)
    admin.landed(admin.send(contest, contest, pick=lambda f: f.fields.get("action") == "time_factor"), contest)
    removed = {"start": "2030-01-01T10:10:00Z", "end": "2030-01-01T10:12:00Z"}
    admin.landed(admin.send(contest, "/admin/contest/removed", removed), contest)
    admin.landed(admin.send(contest, "/admin/contest/removed", pick=lambda f: "index" in f.fields), contest)
    pause = admin.confirmed("/admin/judging", "/admin/judging", pick=lambda f: f.fields.get("action") == "pause")
    admin.landed(pause, "/admin/judging")
    resume = admin.send("/admin/judging", "/admin/judging", pick=lambda f: f.fields.get("action") == "resume")
    admin.landed(resume, "/admin/judging")
    hold = admin.send("/admin/judging", "/admin/judging", pick=lambda f: f.fields.get("action") == "hold")
    admin.landed(hold, "/admin/judging")
    release = admin.send("/admin/judging", "/admin/judging", pick=lambda f: f.fields.get("action") == "release")
    admin.landed(release, "/admin/judging")
    # issue 47: verification turned on, a judgement verified from the queue, turned off again
    verify = "/admin/verification"
    admin.landed(admin.send(verify, verify, pick=lambda f: f.fields.get("required") == "1"), verify)
    team3.landed(
        team3.send("/submit", "/submit", {"problem": "sum", "language": "python3", "code": ORIGINAL}), "/submissions"
    )
    server.judging.run_pending()
    waiting = re.findall(r'action="[^"]*/admin/verification/(\d+)"', admin.get(base + verify).text)
    assert waiting, "nothing awaits verification"
    admin.landed(admin.send(verify, f"{verify}/{waiting[0]}"), verify)
    admin.landed(admin.confirmed(verify, verify), verify)
    admin.landed(admin.send("/admin", "/admin/freeze"), "/admin")
    admin.landed(admin.post(base + "/admin/thaw", data={"csrf": admin.csrf()}), "/admin/thaw")  # not confirmed
    admin.landed(admin.send("/admin/thaw", "/admin/thaw"), "/admin")  # thaws at the end
    for b, start in ((public, "/"), (team1, "/"), (judge, "/"), (admin, "/")):
        assert crawl(walk, b, start) > 3, start
    assert admin.get(base + "/no/such/page", headers={"Accept": "text/html"}).status_code == 404

    # --- a course's pages (issue 45; tests/test_serve_course_instructor.py has them in a course): this contest is
    # not one, so each answers as a page that is not there, under the base all the same
    for spec in PAGE_SPECS:
        if spec.path.startswith("/admin/course"):
            data = {"csrf": admin.csrf()} if spec.method == "POST" else None
            r = admin.request(spec.method, base + spec.path, data=data)
            assert r.status_code in (400, 403, 404), (spec.method, spec.path, r.status_code, r.text[:200])
    # a counterexample's part of a submission's page and its files (issue 46; tests/test_serve_explain_pages.py
    # has them with a policy): requested here for their links and answers under the base
    for path in ("/submissions/1/counterexample", "/submissions/1/counterexample/input"):
        assert team1.get(base + path).status_code in (200, 404), path

    # --- after the end: finalize, un-finalize, the resolver, the awards
    clock.advance(5 * HOUR)
    admin.landed(admin.send("/admin/finalize", "/admin/finalize"), "/admin")
    admin.landed(admin.send("/admin", "/admin/unfinalize"), "/admin")
    admin.landed(admin.send("/admin/finalize", "/admin/finalize"), "/admin")
    ends = ((public, "/awards"), (team2, "/"), (admin, "/admin/resolver"), (admin, "/admin/problems/sum/package"))
    for b, start in (*ends, (admin, "/")):
        assert crawl(walk, b, start) > 3, start
    team1.landed(team1.send("/scoreboard", "/logout", site=True), "/scoreboard")  # back to the contest's board

    course = course_walk(tmp_path / "course", base)  # a course's pages (issue 45): a contest with an assignment
    walk.requested |= course.requested
    walk.problems += course.problems
    assert walk.problems == [], "\n".join(list(dict.fromkeys(walk.problems))[:40])
    assert walk.checked > 500  # the walk looked at URLs (not an empty pass)
    missing = [
        f"{spec.method} {spec.path}"
        for spec in PAGE_SPECS
        if not spec.site
        and not any(m == spec.method and compile_path(base + spec.path)[0].fullmatch(p) for m, p in walk.requested)
    ]
    assert missing == [], f"contest pages this walk never requested (add them to it): {missing}"


COURSE = (  # an assignment (docs/course.md) for write_contest's contest: 10:00 to 15:00
    "assignment:",
    '  due: "2030-01-01T12:00:00Z"',
    "  late: [{for: 1h, credit: 80}]",
    "  rate_limit: {submissions: 3, every: 30m}",
    "  feedback: {before: samples, after: details}",
)


def course_walk(root: Path, base: str) -> Walk:
    """The same walk over a course's pages (issue 45): a contest folder with an assignment and a roster (the
    teams in the group ``students`` and sections), served alone as `judge serve` serves it; a team submits, an
    admin publishes the grades, reads the gradebook and its CSV, sets an override, imports a roster (its
    preview, the confirmation, the logins once); then everything reachable is crawled."""
    import json

    from serve_fixtures import ScriptedJudge, write_contest

    from judge.languages.table import load_languages
    from judge.serve.model.site import load_site
    from judge.serve.site.server import ServeOptions
    from judge.serve.site.site import open_site

    write_contest(root, extra=COURSE)
    groups = [{"id": "students", "name": "Students"}, {"id": "A", "name": "A", "type": "section"}]
    (root / "groups.json").write_text(json.dumps(groups))
    teams = json.loads((root / "teams.json").read_text())
    (root / "teams.json").write_text(json.dumps([{**t, "group_ids": ["students", "A"]} for t in teams]))
    spec = load_site(root, Path(__file__).parent / "fixtures")
    judge = ScriptedJudge({p.id: p.problem for p in spec.contests[0].problems})
    langs = {k: v for k, v in load_languages().items() if k == "python3"}
    site = open_site(spec, langs, judge, ServeOptions(hasher=CHEAP_HASHER, clock=FakeClock(T0 + HOUR)))
    try:
        server = site.contests()[0].server
        walk = Walk(server, base)
        team1 = walk.login("team1")
        sent = team1.send("/submit", "/submit", {"problem": "sum", "language": "python3", "code": SUM_WA})
        team1.landed(sent, "/submissions")
        assert server.judging.run_pending() == 1
        admin = walk.login("admin")
        admin.landed(admin.confirmed("/admin/course", "/admin/course/publish"), "/admin/course")
        admin.page("/admin/course/gradebook")
        assert admin.get(base + "/admin/course/gradebook.csv?format=moodle").status_code == 200
        roster = "/admin/course/roster"
        override = {"student:team1": "on", "kind": "extension", "value": "1h"}
        admin.landed(admin.send(roster, "/admin/course/overrides", override), roster)
        csv_file = {"file": ("roster.csv", b"id,name,section\nteam1,Zeta,A\nteam2,Alpha,A\nteam3,Mu,B\nteam5,Nu,B\n")}
        shown = admin.send(roster, "/admin/course/roster/preview", files=csv_file)
        assert shown.status_code == 200 and admin.last is not None, shown.text[:300]
        here = base + "/admin/course/roster/preview"
        apply = admin.form(admin.last, here, "/admin/course/roster/apply", None, False)
        asked = admin.post(base + "/admin/course/roster/apply", data=apply.fields)
        assert asked.status_code == 200 and "confirmed" in asked.text  # the confirmation page
        done = admin.post(base + "/admin/course/roster/apply", data={**apply.fields, "confirmed": "yes"})
        location = admin.landed(done, roster)
        assert "shown=" in location
        page = admin.get(location)
        logins = re.search(r'href="([^"]*logins\.csv[^"]*)"', page.text)
        assert logins is not None and admin.get(logins.group(1).replace("&amp;", "&")).status_code == 200
        for b, start in ((admin, "/admin/course"), (team1, "/")):
            assert crawl(walk, b, start) > 3, start
        return walk
    finally:
        site.close()


def test_the_pages_scripts_hold_no_absolute_path() -> None:
    """The static scripts take every URL from the page (data-live) or from the page's own: a path written in
    a script would miss a contest's base."""
    for script in STATIC.glob("*.js"):
        code = re.sub(r"^\s*//.*$", "", script.read_text(), flags=re.M)
        assert not re.search(r"""["'`]/(?!/)""", code), f"{script.name} holds an absolute path"
