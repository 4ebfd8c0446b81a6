"""LTI 1.3 (issue 48) in Chromium: the LMS is the emulated platform (tests/lti_platform.py), its pages served to
the browser by Playwright's routing of ``https://lms.test`` (its course page with the tool's link, its
authorization endpoint that auto-posts the signed id_token back to the tool, its deep-linking return URL), and
the tool is the course's site served by uvicorn on a loopback port. What a browser adds to the HTTP tests: the
login's state cookie (``SameSite=None; Secure``) really comes back with the platform's cross-site form post, the
session cookie set by the launch really logs the student in, and the deep-linking response's auto-post passes
the page's CSP. Screenshots in ``$JUDGE_ARTIFACTS/serve/lti-*.png``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from lti_platform import CLIENT_ID, INSTRUCTOR, ISSUER, LMS, LTI_YAML, Platform
from serve_course_fixtures import write_course
from serve_fixtures import HOUR, SUM_AC, T0, FakeClock
from serve_site_fixtures import open_test_site
from test_serve_browser import CHROMIUM, WAIT_MS, browser, shots  # noqa: F401 - fixtures
from test_serve_ui_browser import Served

from judge.serve.http.site_app import create_site_app
from judge.serve.model import lti as L

try:
    from playwright.sync_api import Browser, Route, expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it (pyproject's test extra)
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture
def tool(tmp_path: Path) -> Iterator[tuple[Any, Platform, str]]:
    clock = FakeClock(T0 + HOUR)
    root = write_course(tmp_path / "course")
    (root / "lti.yaml").write_text(LTI_YAML)
    platform = Platform(now=clock.now)
    site = open_test_site(root, clock, lti_http=platform)
    web = Served(create_site_app(site))
    base = web.base.replace("127.0.0.1", "localhost")  # a secure context on plain HTTP (the state cookie is Secure)
    assert site.lti is not None
    site.lti.config = replace(site.lti.config, url=base)
    platform.tool_jwks = lambda: site.lti.jwks()
    try:
        yield site, platform, base
    finally:
        web.close()
        site.close()


class Lms:
    """The LMS's side in the browser: its course page, its authorization endpoint, its deep-linking return."""

    def __init__(self, platform: Platform, base: str, sub: str, roles: list[str], message_type: str) -> None:
        self.platform, self.base, self.sub, self.roles, self.message_type = platform, base, sub, roles, message_type
        self.returned: dict[str, str] = {}

    def route(self, route: Route) -> None:
        request = route.request
        parts = urlsplit(request.url)
        if parts.path == "/course":
            query = {"iss": ISSUER, "login_hint": self.sub, "target_link_uri": f"{self.base}/lti/launch",
                     "client_id": CLIENT_ID}  # fmt: skip
            link = f"{self.base}/lti/login?{urlencode(query)}"
            html = f'<h1>CS 101</h1><a id="open-tool" href="{link}">Homework (judge)</a>'
            route.fulfill(status=200, content_type="text/html", body=html)
        elif parts.path == "/auth":
            auth = dict(parse_qsl(parts.query))
            assert auth["redirect_uri"] == f"{self.base}/lti/launch"
            claims = self.platform.claims(
                auth["nonce"], sub=self.sub, roles=self.roles, message_type=self.message_type,
                contest=None if self.message_type == L.DEEP_LINKING_REQUEST else "hw",
                **{L.LIS: {"person_sourcedid": "s1"}},
            )  # fmt: skip
            token = self.platform.sign(claims)
            html = (
                f'<form id="f" method="post" action="{auth["redirect_uri"]}">'
                f'<input type="hidden" name="id_token" value="{token}">'
                f'<input type="hidden" name="state" value="{auth["state"]}"></form>'
                "<script>document.getElementById('f').submit()</script>"
            )
            route.fulfill(status=200, content_type="text/html", body=html)
        elif parts.path == "/deep-link-return":
            self.returned = dict(parse_qsl(request.post_data or ""))
            route.fulfill(status=200, content_type="text/html", body="<h1>Links added</h1>")
        else:
            route.fulfill(status=404, body="")


def test_a_student_launches_from_the_lms_and_submits_and_an_instructor_deep_links(
    tool: tuple[Any, Platform, str],
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    site, platform, base = tool
    # the student
    context = browser.new_context(viewport={"width": 1200, "height": 760})
    context.set_default_timeout(WAIT_MS)
    lms = Lms(platform, base, "lms-ada", ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
              L.RESOURCE_LINK_REQUEST)  # fmt: skip
    context.route(f"{LMS}/**", lms.route)
    page = context.new_page()
    page.goto(f"{LMS}/course")
    page.click("#open-tool")
    page.wait_for_url(f"{base}/contests/hw/**")  # the assignment (its home shows the student's submissions)
    expect(page.locator("header .user")).to_contain_text("Ada Lovelace")  # s1, logged in by the launch
    page.screenshot(path=str(shots / "lti-student-landed.png"), full_page=True)
    page.goto(f"{base}/contests/hw/submit?problem=sum")
    page.fill("#code", SUM_AC)
    page.select_option("#language", "python3")
    page.click("#submit-form button[type=submit]")
    page.wait_for_url(f"{base}/contests/hw/submissions**")
    context.close()
    hw = site.contest("hw").server
    with hw.storage.read() as r:
        assert [s.team_id for s in r.submissions()] == ["s1"]

    # the instructor adds the assignment by deep linking
    context = browser.new_context(viewport={"width": 1200, "height": 760})
    context.set_default_timeout(WAIT_MS)
    lms = Lms(platform, base, "lms-teacher", INSTRUCTOR, L.DEEP_LINKING_REQUEST)
    context.route(f"{LMS}/**", lms.route)
    page = context.new_page()
    page.goto(f"{LMS}/course")
    page.click("#open-tool")
    page.wait_for_url(f"{base}/lti/deep-link**")
    expect(page.locator("#deep-link-form")).to_contain_text("Homework")
    page.check("#pick-hw")
    page.screenshot(path=str(shots / "lti-deep-link.png"), full_page=True)
    page.click("#deep-link-add")
    page.wait_for_url(f"{LMS}/deep-link-return")
    claims = platform.receive_deep_link(lms.returned["JWT"])
    assert claims[L.DL_CONTENT_ITEMS][0]["custom"] == {"judge_contest": "hw"}
    page.goto(f"{base}/site/lti")
    expect(page.locator("#lti-urls")).to_contain_text(f"{base}/lti/jwks.json")
    page.screenshot(path=str(shots / "lti-admin.png"), full_page=True)
    context.close()
    assert json.dumps(claims)  # the response read whole
