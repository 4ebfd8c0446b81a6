"""LTI 1.3 (issue 48) end to end through the site's real ASGI app, against an LMS platform emulated in the tests
(tests/lti_platform.py: its own keys and JWKS, real signed id_tokens, NRPS and AGS endpoints):

- an instructor's deep-linking launch picks the assignment; the tool's signed LtiDeepLinkingResponse checks with
  the tool's JWKS;
- a student's launch (login initiation -> platform -> launch) logs them in as their roster account, lands on the
  assignment; they submit on the submit page; the instructor publishes; the platform receives the score after
  the penalty; a later change is sent again; a failing LMS is retried, stored as failed and shown;
- an NRPS sync goes through the roster import's very preview and confirmation (students added and withdrawn);
- a first launch of someone not in the roster adds them to it;
- every refusal (a replayed nonce, a wrong audience, an expired token, an unknown deployment, a bad signature,
  a bad state, ...) is a clear 4xx with one log line and nothing stored;
- the tool's key is made owner-only on the first start; a key others may read is refused."""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
import pytest
from lti_platform import (
    CLIENT_ID,
    INSTRUCTOR,
    LMS,
    LTI_YAML,
    Browser,
    Platform,
    new_key,
    no_sleep,
)
from serve_course_fixtures import CourseApi, write_course
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, FakeClock
from serve_site_fixtures import open_test_site

from judge.course.sitefiles import read_roster
from judge.serve.http.pages.sessions import COOKIE
from judge.serve.model import lti as L
from judge.serve.model.contest import ContestError
from judge.serve.site.site import SITE_DB


@dataclass
class Lms:
    api: CourseApi
    site: Any
    platform: Platform
    browser: Browser
    clock: FakeClock
    logs: list[str]
    root: Path


@pytest.fixture
def lms(tmp_path: Path) -> Iterator[Lms]:
    clock = FakeClock(T0 + HOUR)  # hw: open at T0, due T0 + 2 h
    root = write_course(tmp_path / "course")
    (root / "lti.yaml").write_text(LTI_YAML)
    platform = Platform(now=clock.now)
    logs: list[str] = []
    site = open_test_site(root, clock, lti_http=platform, log=logs.append)
    api = CourseApi(site, clock)
    platform.tool_jwks = lambda: api.get("/lti/jwks.json").json()
    yield Lms(api, site, platform, Browser(api, platform), clock, logs, root)
    site.close()


def stored(m: Lms) -> tuple[str, ...]:
    """Everything a launch could store: the site database (every table) and the people's files."""
    with sqlite3.connect(m.root / SITE_DB) as c:
        dump = "\n".join(c.iterdump())
    files = tuple(hashlib.sha256((m.root / f).read_bytes()).hexdigest() for f in ("teams.json", "accounts.yaml"))
    return (dump, *files)


def session_of(r: Any) -> str:
    found = [v for k, v in r.cookies.items() if k == COOKIE]
    assert found, r.headers
    return found[0]


def csrf_of(text: str) -> str:
    token = re.search(r'name="csrf" value="([^"]+)"', text)
    assert token is not None, text
    return token.group(1)


def student_launch(m: Lms, **claims: Any) -> tuple[Any, str]:
    claims.setdefault(L.LIS, {"person_sourcedid": "s1"})
    r, _ = m.browser.launch(**claims)
    assert r.status_code == 303, r.text
    return r, session_of(r)


# ------------------------------------------------------------------------------------------------ the whole walk


def test_deep_link_then_a_student_launches_submits_and_the_lms_receives_the_score(lms: Lms) -> None:
    m = lms
    # the instructor adds the assignment in the LMS (deep linking)
    r, _ = m.browser.launch(sub="lms-teacher", roles=INSTRUCTOR, message_type=L.DEEP_LINKING_REQUEST, contest=None)
    assert r.status_code == 303 and r.headers["location"].startswith("/lti/deep-link?context="), r.text
    teacher = {COOKIE: session_of(r)}
    page = m.api.request("GET", r.headers["location"], cookies=teacher)
    assert page.status_code == 200 and "Homework" in page.text and 'name="contest:hw"' in page.text
    context = re.search(r'name="context" value="([^"]+)"', page.text)
    assert context is not None
    form = {"csrf": csrf_of(page.text), "context": context.group(1), "contest:hw": "1"}
    sent = m.api.request("POST", "/lti/deep-link", data=form, cookies=teacher)
    assert sent.status_code == 200 and f'action="{LMS}/deep-link-return"' in sent.text
    assert f"form-action 'self' {LMS}" in sent.headers["content-security-policy"]
    token = re.search(r'name="JWT" value="([^"]+)"', sent.text)
    assert token is not None
    claims = m.platform.receive_deep_link(token.group(1))
    [item] = claims[L.DL_CONTENT_ITEMS]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"judge_contest": "hw"}
    assert item["url"] == "https://judge.test/lti/launch"
    assert item["lineItem"] == {"scoreMaximum": 200.0, "label": "Homework", "resourceId": "hw"}  # sum + divisor

    # a student launches the link: logged in as their roster account (their SIS id), on the assignment
    r, cookie = student_launch(m, sub="lms-ada")
    assert r.headers["location"] == "/contests/hw/"
    submit_page = m.api.request("GET", "/contests/hw/submit", cookies={COOKIE: cookie})
    assert submit_page.status_code == 200 and "Ada Lovelace" in submit_page.text  # s1's name, in the header
    form = {"csrf": csrf_of(submit_page.text), "problem": "sum", "language": "python3", "code": SUM_AC}
    done = m.api.request("POST", "/contests/hw/submit", data=form, cookies={COOKIE: cookie})
    assert done.status_code == 303, done.text
    hw = m.site.contest("hw").server
    assert hw.judging.run_pending() == 1
    with hw.storage.read() as rd:
        [sub] = rd.submissions()
    assert sub.team_id == "s1"

    # nothing is sent before the grades are published
    assert m.site.sync_grades(no_sleep).sent == 0 and m.platform.scores == []
    m.clock.t = T0 + 2.5 * HOUR  # after the due time
    woken: list[str] = []
    hw.course.grades_changed = lambda: woken.append("published")  # the site's: wakes the grade sync thread
    published = m.api.post_page(
        "instructor", "/contests/hw/admin/course/publish", {"confirmed": "yes"}, form_from="/contests/hw/admin/course"
    )
    assert published.status_code == 303, published.text
    assert woken == ["published"]
    report = m.site.sync_grades(no_sleep)
    assert (report.sent, report.failed) == (1, 0)
    [score] = m.platform.scores
    assert score["lineitem"] == f"{LMS}/api/lineitems/1"  # the line item the deep link made
    assert score["userId"] == "lms-ada" and score["scoreGiven"] == 100 and score["scoreMaximum"] == 200
    assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
    assert m.site.sync_grades(no_sleep).unchanged == 1 and len(m.platform.scores) == 1  # nothing new: nothing sent

    # a later change (a late resubmission: the last counts, 0 points) is sent again; an audit line each
    m.clock.t = T0 + 2.75 * HOUR
    assert m.api.submit_as("s1", "sum", SUM_WA).status_code == 201
    assert hw.judging.run_pending() == 1
    assert m.site.sync_grades(no_sleep).sent == 1
    assert [s["scoreGiven"] for s in m.platform.scores] == [100, 0]
    with m.site.storage.read() as rd:
        actions = [a.action for a in rd.audit(50)]
    assert actions.count("lti.score") == 2 and "lti.user" in actions
    assert not any("Bearer" in line or "eyJ" in line for line in m.logs)  # no token, no id_token in the logs


def test_a_failing_lms_is_retried_stored_as_failed_shown_to_the_instructor_and_sent_later(lms: Lms) -> None:
    m = lms
    student_launch(m, sub="lms-ada")
    assert m.api.submit_as("s1", "sum", SUM_AC).status_code == 201
    assert m.site.contest("hw").server.judging.run_pending() == 1
    m.clock.t = T0 + 2.5 * HOUR
    m.api.post_page(
        "instructor", "/contests/hw/admin/course/publish", {"confirmed": "yes"}, form_from="/contests/hw/admin/course"
    )
    waits: list[float] = []
    m.platform.fail_scores = 3
    report = m.site.sync_grades(waits.append)
    assert (report.sent, report.failed) == (0, 1) and waits == [1.0, 4.0]  # three attempts
    page = m.api.page("instructor", "/site/lti")
    assert page.status_code == 200 and "1 score(s) could not be sent to the LMS" in page.text
    assert "answered 500" in page.text
    assert sum("was not sent" in line for line in m.logs) == 1
    # the line item was made in the link's container (no deep link here: the launch had only ``lineitems``)
    assert m.platform.lineitems[0]["resourceId"] == "hw" and m.platform.lineitems[0]["scoreMaximum"] == 200
    sync = m.api.post_page("instructor", "/site/lti/sync", {}, form_from="/site/lti")  # the admin's button
    assert sync.status_code == 303
    assert [s["scoreGiven"] for s in m.platform.scores] == [100]
    assert "could not be sent" not in m.api.page("instructor", "/site/lti").text


# ------------------------------------------------------------------------------------------------ accounts


def test_a_first_launch_of_someone_not_in_the_roster_adds_them_and_later_launches_find_them(lms: Lms) -> None:
    m = lms
    r, _ = m.browser.launch(sub="lms-newcomer", name="Barbara Liskov", email="bl@example.edu")
    assert r.status_code == 303 and r.headers["location"] == "/contests/hw/"
    roster = read_roster(m.root)
    added = roster.get("lti-lms-newcomer")
    assert added is not None and added.name == "Barbara Liskov" and added.email == "bl@example.edu"
    r2, _ = m.browser.launch(sub="lms-newcomer", name="Barbara Liskov", email="bl@example.edu")
    assert r2.status_code == 303
    assert len(read_roster(m.root).students) == 5  # not added twice
    # matched by email (no SIS id): s2
    r3, _ = m.browser.launch(sub="lms-alan", name="Alan Turing", email="s2@example.edu")
    page = m.api.request("GET", "/contests/hw/submit", cookies={COOKIE: session_of(r3)})
    assert "Alan Turing" in page.text and len(read_roster(m.root).students) == 5


def test_a_link_made_by_hand_names_its_assignment_in_the_target_link_uri(lms: Lms) -> None:
    r, _ = lms.browser.launch(contest=None, **{L.TARGET_LINK_URI: "https://judge.test/lti/launch?contest=hw"})
    assert r.status_code == 303 and r.headers["location"] == "/contests/hw/"
    r2, _ = lms.browser.launch(contest=None)  # no assignment named: the site's list
    assert r2.status_code == 303 and r2.headers["location"] == "/"


def test_an_instructor_lands_on_the_instructor_pages_as_the_account_lti_yaml_names(lms: Lms) -> None:
    r, _ = lms.browser.launch(sub="lms-teacher", roles=INSTRUCTOR)
    assert r.status_code == 303 and r.headers["location"] == "/contests/hw/admin/course"
    page = lms.api.request("GET", "/contests/hw/admin/course", cookies={COOKIE: session_of(r)})
    assert page.status_code == 200 and "instructor" in page.text and 'href="/site/lti"' in page.text


# ------------------------------------------------------------------------------------------------ NRPS


def test_an_nrps_sync_adds_and_withdraws_students_through_the_roster_imports_preview(lms: Lms) -> None:
    m = lms
    student_launch(m, sub="lms-ada")  # the launch that offers the roster service
    m.platform.members = [
        {"user_id": "lms-ada", "name": "Ada Lovelace", "email": "s1@example.edu", "roles": ["Learner"],
         "status": "Active"},
        {"user_id": "lms-alan", "name": "Alan Turing", "email": "s2@example.edu", "roles": ["Learner"]},
        {"user_id": "lms-new", "name": "New Person", "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]},
        {"user_id": "lms-teacher", "name": "The Teacher", "roles": INSTRUCTOR},
        {"user_id": "lms-gone", "name": "Left", "roles": ["Learner"], "status": "Inactive"},
    ]  # fmt: skip
    before = read_roster(m.root)
    r = m.api.post_page(
        "instructor", "/contests/hw/admin/course/roster/lms", {}, form_from="/contests/hw/admin/course/roster"
    )
    assert r.status_code == 200, r.text
    text = re.sub(r"\s+", " ", r.text)
    assert "1 added, 0 changed, 2 withdrawn, 2 unchanged" in text, text
    assert "+ lti-lms-new New Person" in text and "- s3" in text and "- s4" in text
    assert read_roster(m.root) == before  # nothing applied before the confirmation
    form = re.search(r'<form method="post" action="[^"]*/roster/apply".*?</form>', r.text, re.S)
    assert form is not None
    fields = dict(re.findall(r'name="(name|data|columns|digest)" value="([^"]*)"', form.group(0)))
    applied = m.api.post_page(
        "instructor",
        "/contests/hw/admin/course/roster/apply",
        {**fields, "confirmed": "yes"},
        form_from="/contests/hw/admin/course/roster",
    )
    assert applied.status_code == 303, applied.text
    after = read_roster(m.root)
    assert [s.id for s in after.students] == ["lti-lms-new", "s1", "s2"]
    assert {s.id for s in after.withdrawn} == {"s3", "s4"}
    assert after.get("s1") is not None and after.get("s1").section == "A"  # no section column: kept
    # the member added by the sync logs in by their launch as the same account
    r2, _ = m.browser.launch(sub="lms-new", name="New Person", email="")
    page = m.api.request("GET", "/contests/hw/submit", cookies={COOKIE: session_of(r2)})
    assert "New Person" in page.text and len(read_roster(m.root).students) == 3


# ------------------------------------------------------------------------------------------------ refusals


def _expect_refused(m: Lms, r: Any, status: int, words: str, before: tuple[str, ...], logs_before: int) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    assert words in r.text
    assert COOKIE not in r.cookies  # no session
    assert stored(m) == before  # nothing stored
    new = m.logs[logs_before:]
    assert len([line for line in new if "refused" in line]) == 1 and len(new) <= 2, new  # (a JWKS fetch may log)
    assert not any("eyJ" in line for line in new)


def other_key_sign(m: Lms) -> Any:
    forged = new_key()
    return lambda claims: m.platform.sign(claims, key=forged, kid=m.platform.kid)  # the platform's kid, another key


REFUSALS: dict[str, tuple[dict[str, Any], int, str]] = {
    "wrong audience": ({"aud": "another-tool"}, 401, "audience"),
    "two audiences without azp": ({"aud": [CLIENT_ID, "another-tool"]}, 401, "authorized party"),
    "wrong azp": ({"azp": "another-tool"}, 401, "authorized party"),
    "wrong issuer": ({"iss": "https://evil.test"}, 401, "issuer"),
    "expired": ({"exp": 0}, 401, "expired"),
    "issued in the future": ({"iat": 4102444800 + 86400 * 365}, 401, "issue time"),
    "unknown deployment": ({L.DEPLOYMENT_ID: "dep-unknown"}, 403, "unknown deployment id"),
    "wrong message type": ({L.MESSAGE_TYPE: "LtiSubmissionReviewRequest"}, 400, "message type"),
    "wrong version": ({L.VERSION: "1.1"}, 400, "version"),
    "no roles": ({L.ROLES: None}, 400, "no roles claim"),
    "no known role": ({L.ROLES: ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]}, 403, "roles"),
    "no sub": ({"sub": ""}, 400, "names no user"),
    "wrong nonce": ({"nonce": "not-the-one"}, 401, "nonce"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_each_claim_check_refuses_with_a_4xx_one_log_line_and_nothing_stored(lms: Lms, case: str) -> None:
    claims, status, words = REFUSALS[case]
    m = lms
    m.api.get("/lti/jwks.json")
    before, logs = stored(m), len(m.logs)
    if "exp" in claims:
        claims = {**claims, "exp": int(m.clock.t) - 3600, "iat": int(m.clock.t) - 3700}
    elif "iat" in claims:
        claims = {**claims, "iat": int(m.clock.t) + 3600, "exp": int(m.clock.t) + 7200}
    r, _ = m.browser.launch(**claims)
    _expect_refused(m, r, status, words, before, logs)


def test_a_bad_signature_is_refused_and_nothing_stored(lms: Lms) -> None:
    before, logs = stored(lms), len(lms.logs)
    r, _ = lms.browser.launch(sign=other_key_sign(lms))
    _expect_refused(lms, r, 401, "signature does not match", before, logs)


def test_an_unsigned_or_hmac_token_is_refused(lms: Lms) -> None:
    before, logs = stored(lms), len(lms.logs)
    r, _ = lms.browser.launch(sign=lambda c: jwt.encode(c, "secret-secret-secret-secret-32by", algorithm="HS256"))
    _expect_refused(lms, r, 401, "not RS256", before, logs)


def test_a_replayed_launch_is_refused_and_nothing_more_stored(lms: Lms) -> None:
    m = lms
    r, sent = m.browser.launch(**{L.LIS: {"person_sourcedid": "s1"}})
    assert r.status_code == 303
    before, logs = stored(m), len(m.logs)
    again = m.browser.post(sent["token"], sent["state"], sent["cookies"])  # the very same post, replayed
    _expect_refused(m, again, 401, "nonce was used already", before, logs)


def test_a_bad_state_is_refused_and_nothing_stored(lms: Lms) -> None:
    m = lms
    before = stored(m)
    _, auth, cookies = m.browser.login()
    token = m.platform.sign(m.platform.claims(auth["nonce"]))
    for state, jar, words in [
        (auth["state"], {}, "state does not match"),  # another browser (no state cookie)
        ("x" + auth["state"], {k: "x" + v for k, v in cookies.items()}, "state does not match"),  # another name
        ("", cookies, "state does not match"),
    ]:
        logs = len(m.logs)
        _expect_refused(m, m.browser.post(token, state, jar), 400, words, before, logs)
    # a state not made by the tool, with its own cookie
    forged = "eyJpc3MiOiJodHRwczovL2xtcy50ZXN0In0.AAAA"
    from judge.serve.http.pages.lti_pages import state_cookie_name

    logs = len(m.logs)
    r = m.browser.post(token, forged, {state_cookie_name(forged): forged})
    _expect_refused(m, r, 400, "not made by this tool", before, logs)
    # an expired state (the login was more than ten minutes ago)
    m.clock.advance(L.STATE_S + 1)
    logs = len(m.logs)
    fresh = m.platform.sign(m.platform.claims(auth["nonce"]))
    _expect_refused(m, m.browser.post(fresh, auth["state"], cookies), 400, "expired", before, logs)


def test_login_initiation_refusals_store_nothing(lms: Lms) -> None:
    m = lms
    before = stored(m)
    for params, words in [
        ({"iss": "https://unknown.test"}, "no platform"),
        ({"target_link_uri": "https://evil.test/steal"}, "target_link_uri"),
        ({"login_hint": ""}, "login_hint"),
    ]:
        logs = len(m.logs)
        r, _, _ = m.browser.login(**params)
        _expect_refused(m, r, 400, words, before, logs)


def test_a_rotated_platform_key_is_fetched_again(lms: Lms) -> None:
    m = lms
    r, _ = student_launch(m, sub="lms-ada")
    fetches = [u for _, u in m.platform.requests if u.endswith("/jwks")]
    m.platform.rotate("lms-key-2")
    m.clock.advance(30)
    r2, _ = student_launch(m, sub="lms-ada")
    assert r2.status_code == 303
    assert len([u for _, u in m.platform.requests if u.endswith("/jwks")]) == len(fetches) + 1


def test_an_instructor_without_an_account_in_lti_yaml_is_refused(tmp_path: Path) -> None:
    clock = FakeClock(T0 + HOUR)
    root = write_course(tmp_path / "course")
    (root / "lti.yaml").write_text(LTI_YAML.replace("    instructor_account: instructor\n", ""))
    platform = Platform(now=clock.now)
    logs: list[str] = []
    site = open_test_site(root, clock, lti_http=platform, log=logs.append)
    try:
        m = Lms(CourseApi(site, clock), site, platform, Browser(CourseApi(site, clock), platform), clock, logs, root)
        before, n = stored(m), len(logs)
        r, _ = m.browser.launch(sub="lms-teacher", roles=INSTRUCTOR)
        _expect_refused(m, r, 403, "instructor_account", before, n)
    finally:
        site.close()


# ------------------------------------------------------------------------------------------------ keys


def test_the_tools_key_is_made_owner_only_and_its_jwks_is_served(lms: Lms) -> None:
    key = lms.root / L.KEY_FILE
    assert key.stat().st_mode & 0o777 == 0o600
    jwks = lms.api.get("/lti/jwks.json").json()
    [k] = jwks["keys"]
    assert k["kty"] == "RSA" and k["alg"] == "RS256" and k["use"] == "sig" and k["kid"] == lms.site.lti.kid
    assert "d" not in k and "p" not in k  # the public half only


def test_a_key_others_may_read_stops_the_start_and_lti_yaml_mistakes_are_one_line(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    root = write_course(tmp_path / "course")
    (root / "lti.yaml").write_text(LTI_YAML)
    site = open_test_site(root, clock, lti_http=Platform(now=clock.now))
    site.close()
    os.chmod(root / L.KEY_FILE, 0o644)
    with pytest.raises(ContestError, match="readable by others"):
        open_test_site(root, clock, lti_http=Platform(now=clock.now))
    os.chmod(root / L.KEY_FILE, 0o600)
    (root / "lti.yaml").write_text(LTI_YAML.replace("auth_url: https://lms.test/auth", "auth_url: http://lms.test/a"))
    with pytest.raises(ContestError, match="auth_url` must be an https:// URL"):
        open_test_site(root, clock, lti_http=Platform(now=clock.now))
    (root / "lti.yaml").write_text(LTI_YAML + "    colour: blue\n")
    with pytest.raises(ContestError, match="unknown key `colour`"):
        open_test_site(root, clock, lti_http=Platform(now=clock.now))


def test_a_site_without_lti_yaml_has_no_lti_endpoints(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    site = open_test_site(write_course(tmp_path / "course"), clock)
    try:
        api = CourseApi(site, clock)
        assert api.get("/lti/jwks.json").status_code == 404
        assert api.get("/lti/login?iss=x").status_code == 404
    finally:
        site.close()


# ------------------------------------------------------------------------------------------------ the admins' page


def test_an_admin_registers_a_platform_on_the_page_checked_stored_audited_and_in_force(lms: Lms) -> None:
    m = lms
    page = m.api.page("instructor", "/site/lti")
    assert page.status_code == 200 and "https://judge.test/lti/login" in page.text and "Test LMS" in page.text
    assert m.api.page("ta", "/site/lti").status_code == 403  # admins only
    new = {
        "name": "Moodle",
        "issuer": "https://moodle.test",
        "client_id": "abc123",
        "deployment_ids": "7 8",
        "auth_url": "https://moodle.test/mod/lti/auth.php",
        "token_url": "https://moodle.test/mod/lti/token.php",
        "jwks_url": "https://moodle.test/mod/lti/certs.php",
        "instructor_account": "instructor",
    }
    before = stored(m)
    bad = m.api.post_page("instructor", "/site/lti/platforms", {**new, "jwks_url": "ftp://x"}, form_from="/site/lti")
    assert bad.status_code == 400 and "jwks_url" in bad.text and stored(m) == before
    twice = m.api.post_page(
        "instructor", "/site/lti/platforms", {**new, "issuer": "https://lms.test", "client_id": CLIENT_ID},
        form_from="/site/lti",
    )  # fmt: skip
    assert twice.status_code == 409 and stored(m) == before
    added = m.api.post_page("instructor", "/site/lti/platforms", new, form_from="/site/lti")
    assert added.status_code == 303, added.text
    page = m.api.page("instructor", "/site/lti")
    assert "https://moodle.test" in page.text and "7, 8" in page.text
    with m.site.storage.read() as rd:
        assert "lti.platform_add" in [a.action for a in rd.audit(10)]
    r = m.api.request(
        "GET", "/lti/login?iss=https://moodle.test&login_hint=u&target_link_uri=https://judge.test/lti/launch"
    )
    assert r.status_code == 302 and r.headers["location"].startswith("https://moodle.test/mod/lti/auth.php?")
    # kept over a restart
    m.site.close()
    again = open_test_site(m.root, m.clock, lti_http=m.platform)
    try:
        assert again.lti.config.platform("https://moodle.test", "abc123") is not None
    finally:
        again.close()
    m.site = open_test_site(m.root, m.clock, lti_http=m.platform)  # the fixture closes it


# ------------------------------------------------------------------------------------------------ the acceptance


def test_the_demo_course_in_the_lms_a_student_launches_submits_and_the_lms_receives_the_grade(tmp_path: Path) -> None:
    """The issue's acceptance: `judge course init`'s demo course with an lti.yaml; the emulated platform launches
    s001 into Lab 1 (due an hour ago: 80 %), they submit, the instructor publishes, the platform gets the score."""
    from serve_fixtures import CHEAP_HASHER

    from judge.commands.contest import demo_problems
    from judge.course.demo import write_demo_course
    from judge.grade.discovery import load_problems
    from judge.serve.model.viewer import Role, Viewer
    from judge.serve.services.judging.course_feedback import publish_grades

    problems, issues = load_problems(demo_problems())
    assert not issues
    root = tmp_path / "course"
    write_demo_course(root, problems, T0, lambda: "pw-demo-1234", CHEAP_HASHER.hash)
    (root / "lti.yaml").write_text(LTI_YAML)
    clock = FakeClock(T0)
    platform = Platform(now=clock.now)
    logs: list[str] = []
    site = open_test_site(root, clock, lti_http=platform, log=logs.append)
    try:
        api = CourseApi(site, clock)
        platform.tool_jwks = lambda: api.get("/lti/jwks.json").json()
        browser = Browser(api, platform)
        r, _ = browser.launch(sub="lms-s001", contest="lab1", name="Student 1", **{L.LIS: {"person_sourcedid": "s001"}})
        assert r.status_code == 303 and r.headers["location"] == "/contests/lab1/", r.text
        cookie = {COOKIE: session_of(r)}
        form_page = api.request("GET", "/contests/lab1/submit", cookies=cookie)
        assert form_page.status_code == 200 and "80 %" in form_page.text  # late: 80 %
        form = {"csrf": csrf_of(form_page.text), "problem": "rummy", "language": "python3", "code": SUM_AC}
        assert api.request("POST", "/contests/lab1/submit", data=form, cookies=cookie).status_code == 303
        lab1 = site.contest("lab1").server
        assert lab1.judging.run_pending() == 1
        publish_grades(lab1, Viewer(Role.ADMIN, "instructor", "instructor"), clock.now())
        assert site.sync_grades(no_sleep).sent == 1
        [score] = platform.scores
        rummy = float(problems["rummy"].secret.max_score)
        top = rummy + float(problems["coins"].secret.max_score)
        assert score["userId"] == "lms-s001"
        assert score["scoreGiven"] == pytest.approx(0.8 * rummy) and score["scoreMaximum"] == pytest.approx(top)
    finally:
        site.close()


def test_publishing_wakes_the_grade_sync_thread_of_a_running_site(tmp_path: Path) -> None:
    """With the site running (its grade sync thread every hour here), publishing the grades sends them at once."""
    import threading

    clock = FakeClock(T0 + HOUR)
    root = write_course(tmp_path / "course")
    (root / "lti.yaml").write_text(LTI_YAML + "grade_sync: 3600\n")
    platform = Platform(now=clock.now)
    site = open_test_site(root, clock, lti_http=platform)
    site.start()
    try:
        api = CourseApi(site, clock)
        platform.tool_jwks = lambda: api.get("/lti/jwks.json").json()
        m = Lms(api, site, platform, Browser(api, platform), clock, [], root)
        student_launch(m, sub="lms-ada")
        assert api.submit_as("s1", "sum", SUM_AC).status_code == 201
        hw = site.contest("hw").server
        for _ in range(600):  # the site's judging pool judges it (a safety net, not a measurement)
            with hw.storage.read() as rd:
                counted = rd.counted(None)
            if counted and all(c.judgement is not None for c in counted):
                break
            threading.Event().wait(0.1)
        clock.t = T0 + 2.5 * HOUR
        api.post_page(
            "instructor",
            "/contests/hw/admin/course/publish",
            {"confirmed": "yes"},
            form_from="/contests/hw/admin/course",
        )
        for _ in range(600):
            if platform.scores:
                break
            threading.Event().wait(0.1)
        assert [s["scoreGiven"] for s in platform.scores] == [100]
    finally:
        site.stop()
        site.close()
