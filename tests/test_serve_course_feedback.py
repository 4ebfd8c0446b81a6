"""A course's feedback rules (issue 45), decided in visibility.py and asked by every channel: the API's
submissions, judgements, runs and scoreboard, the event feed, the pages and the downloads agree, for every role
(the public, another student, the student, a TA, the instructor) before the due time, after it, and after the
instructor publishes the grades (stored, audited, once; the feed gets what becomes visible, as at the thaw).

The rules: problem sum shows the samples only until the student's due time, then everything; problem divisor
shows each test's verdict (not the score) until the grades are published. s1 is due at T0 + 2 h."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_course_fixtures import ASSIGNMENT, CourseApi, write_course
from serve_fixtures import HOUR, SUM_AC, T0, FakeClock
from serve_site_fixtures import open_test_site

FEEDBACK = ASSIGNMENT + (
    "  feedback: {before: samples, after: details, switch: due}\n"
    "  problems:\n"
    "    divisor: {feedback: {before: verdicts, after: details, switch: published, score: published}}\n"
)
ROLES = (None, "s3", "s1", "ta", "instructor")  # the public, another student, the student, a TA, the instructor


@pytest.fixture
def course(tmp_path: Path) -> Iterator[CourseApi]:
    clock = FakeClock(T0 + HOUR)
    site = open_test_site(write_course(tmp_path / "course", FEEDBACK), clock)
    api = CourseApi(site, clock)
    for problem in ("sum", "divisor"):
        assert api.submit_as("s1", problem, SUM_AC).status_code == 201  # 1: sum, 2: divisor; AC, 100 each
    assert site.contest("hw").server.judging.run_pending() == 2
    yield api
    site.close()


def server(api: CourseApi) -> Any:
    return api.site.contest("hw").server


def api_view(api: CourseApi, user: str | None) -> dict[str, Any]:
    """What ``user`` gets of s1's two submissions from the REST API."""
    base = "/api/contests/hw"
    subs = [s["id"] for s in api.get(f"{base}/submissions", user).json()]
    judgements = {
        j["submission_id"]: (j.get("judgement_type_id"), j.get("score"))
        for j in api.get(f"{base}/judgements", user).json()
    }
    runs: dict[str, list[str]] = {}
    for r in api.get(f"{base}/runs", user).json():
        runs.setdefault(r["judgement_id"], []).append(r["judgement_type_id"])
    files = api.get(f"{base}/submissions/1/files", user).status_code
    board = {
        c["problem_id"]: c.get("score", c.get("hidden"))
        for row in api.get(f"{base}/scoreboard", user).json()["rows"]
        for c in row.get("problems", [])
        if c["num_judged"]
    }
    return {"submissions": subs, "judgements": judgements, "runs": runs, "files": files, "board": board}


def feed_view(api: CourseApi, user: str | None) -> dict[str, Any]:
    """The last version of each judgement and the runs ``user``'s event feed holds."""
    r = api.get("/api/contests/hw/event-feed", user, params={"stream": "false"})
    assert r.status_code == 200, r.text
    events = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    subs = sorted({e["data"]["id"] for e in events if e["type"] == "submissions" and e["data"]})
    judgements = {
        e["data"]["submission_id"]: (e["data"].get("judgement_type_id"), e["data"].get("score"))
        for e in events
        if e["type"] == "judgements" and e["data"]
    }
    runs = sorted({e["data"]["id"] for e in events if e["type"] == "runs" and e["data"]})
    return {"submissions": subs, "judgements": judgements, "runs": len(runs)}


EVERYTHING_API = {
    "submissions": ["1", "2"],
    "judgements": {"1": ("AC", 100), "2": ("AC", 100)},
    "runs": {"1": ["AC"] * 4, "2": ["AC"] * 5},
    "files": 200,
    "board": {"sum": 100, "divisor": 100},
}
NOTHING_API = {"submissions": [], "judgements": {}, "runs": {}, "files": 404, "board": {}}


def expected_api(role: str | None, moment: str) -> dict[str, Any]:
    if role in ("ta", "instructor"):
        return EVERYTHING_API
    if role != "s1":
        return NOTHING_API
    if moment == "before the due time":  # sum: its sample only; divisor: verdicts, no score
        return {
            "submissions": ["1", "2"],
            "judgements": {"1": (None, None), "2": ("AC", None)},
            "runs": {"1": ["AC"], "2": ["AC"] * 5},
            "files": 200,
            "board": {"sum": "until the due time", "divisor": "until the grades are published"},
        }
    if moment == "after the due time":  # sum: everything; divisor: still no score
        return {**EVERYTHING_API, "judgements": {"1": ("AC", 100), "2": ("AC", None)}} | {
            "board": {"sum": 100, "divisor": "until the grades are published"}
        }
    return EVERYTHING_API


def expected_feed(role: str | None, moment: str) -> dict[str, Any]:
    api = expected_api(role, moment)
    return {
        "submissions": api["submissions"],
        "judgements": api["judgements"],
        "runs": sum(len(v) for v in api["runs"].values()),
    }


def advance(api: CourseApi, to: float) -> None:
    api.clock.t = to
    server(api).tick()  # the contest clock's tick: what the switch shows is published on the feed


def publish(api: CourseApi, user: str) -> Any:
    return api.post_page(
        user, "/contests/hw/admin/course/publish", {"confirmed": "yes"}, form_from="/contests/hw/admin/course"
    )


def test_every_role_before_the_due_time_after_it_and_after_publishing(course: CourseApi) -> None:
    server(course).tick()  # the first tick records when the feed is up to date
    moments = [
        ("before the due time", lambda: None),
        ("after the due time", lambda: advance(course, T0 + 2 * HOUR + 1)),
        ("after publishing", lambda: publish(course, "instructor")),
    ]
    for moment, step in moments:
        step()
        for role in ROLES:
            assert api_view(course, role) == expected_api(role, moment), (role, moment)
            assert feed_view(course, role) == expected_feed(role, moment), (role, moment)


def test_the_pages_agree(course: CourseApi) -> None:
    def feedback(user: str, sid: str) -> str:
        return re.sub(r"\s+", " ", course.page(user, f"/contests/hw/submissions/{sid}").text)

    page = feedback("s1", "1")
    assert "judged: shown after the due time" in page and "AC" not in page.split("Tests")[0]
    tests = re.findall(r'<td class="verdict (\w+)">', page)
    assert tests == ["ac"]  # the sample test only
    divisor = feedback("s1", "2")
    assert 'id="verdict">AC' in divisor and "<dt>Score</dt>" not in divisor
    assert "the score is shown once the grades are published" in divisor
    assert len(re.findall(r'<td class="verdict (\w+)">', divisor)) == 5
    listing = re.sub(r"\s+", " ", course.page("s1", "/contests/hw/submissions").text)
    assert "judged: shown after the due time" in listing
    assert course.page("s3", "/contests/hw/submissions/1").status_code == 404
    staff = re.sub(r"\s+", " ", course.page("ta", "/contests/hw/admin/submissions/1").text)
    assert "judged: shown" not in staff
    advance(course, T0 + 2 * HOUR + 1)
    page = feedback("s1", "1")
    assert 'id="verdict">AC' in page and len(re.findall(r'<td class="verdict (\w+)">', page)) == 4
    assert publish(course, "instructor").status_code == 303
    assert "<dt>Score</dt><dd>100.0 / 100.0</dd>" in feedback("s1", "2")


def test_publishing_is_the_instructors_once_and_audited(course: CourseApi) -> None:
    assert publish(course, "ta").status_code == 403  # a TA may not
    admin = course.page("instructor", "/contests/hw/admin/course")
    assert 'id="not-published"' in admin.text and 'id="publish-grades"' in admin.text
    unconfirmed = course.post_page(
        "instructor", "/contests/hw/admin/course/publish", {}, form_from="/contests/hw/admin/course"
    )
    assert unconfirmed.status_code == 200 and "cannot be taken back" in unconfirmed.text  # asked, nothing done
    assert server(course).course.state.published_s is None
    assert publish(course, "instructor").status_code == 303
    assert server(course).course.state.published_s == course.clock.t
    again = publish(course, "instructor")
    assert again.status_code == 409 and "were published at" in again.text
    audit = course.page("instructor", "/contests/hw/admin/audit").text
    assert "course.publish_grades" in audit
    assert 'id="published"' in course.page("instructor", "/contests/hw/admin/course").text


def test_publishing_survives_a_restart(tmp_path: Path) -> None:
    clock = FakeClock(T0 + HOUR)
    root = write_course(tmp_path / "course", FEEDBACK)
    site = open_test_site(root, clock)
    api = CourseApi(site, clock)
    assert publish(api, "instructor").status_code == 303
    site.close()
    again = open_test_site(root, clock)
    try:
        state = again.contest("hw").server.course.state
        assert state is not None and state.published_s == T0 + HOUR
    finally:
        again.close()
