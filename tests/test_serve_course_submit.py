"""A course's assignment served (issue 45): `judge serve` loads contest.yaml's ``assignment:`` (a mistake stops the
start with one line), refuses a submission outside the student's window (403, saying when) and one over the
rate limit (429 with Retry-After and the time the next comes back; nothing stored), through the API, DOMjudge's
form and the submit page alike; the submit page says what is left, when the next comes back and the credit now."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_course_fixtures import ASSIGNMENT, CourseApi, write_course
from serve_fixtures import HOUR, SUM_AC, T0, FakeClock
from serve_site_fixtures import open_test_site

from judge.serve.model.contest import ContestError
from judge.serve.model.site import load_site
from judge.serve.model.times import format_time

ROOT = Path(__file__).parent.parent


@pytest.fixture
def course(tmp_path: Path) -> Iterator[CourseApi]:
    clock = FakeClock(T0 - HOUR / 2)
    site = open_test_site(write_course(tmp_path / "course"), clock)
    yield CourseApi(site, clock)
    site.close()


def stored(api: CourseApi) -> list[tuple[str, str]]:
    with sqlite3.connect(api.site.contest("hw").server.storage.path) as conn:
        return list(conn.execute("SELECT team_id, problem_id FROM submissions ORDER BY id"))


def test_the_assignment_is_loaded_with_the_site(tmp_path: Path) -> None:
    spec = load_site(write_course(tmp_path / "course"))
    a = spec.assignments["hw"].assignment
    assert a.name == "Homework" and a.rate_limit is not None and a.rate_limit.submissions == 2
    assert a.resolve("s2", "A").override is not None  # s2's extension
    assert a.resolve("s3", "B").window.due_s == T0 + 3 * HOUR  # section B's


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("students: [s2]", "students: [s9]"), "'s9' is not a student of the roster"),
        (("section: B", "section: C"), "no section 'C'"),
        (("counts: last", "counts: first"), "assignment.counts: expected one of last, best"),
        (('late_until: "2030-01-01T15:00:00Z"', 'late_until: "2030-01-03T15:00:00Z"'), "make its duration longer"),
        (("rate_limit:", "rate_limt:"), "unknown key 'rate_limt'"),
    ],
)
def test_a_wrong_assignment_stops_the_start_in_one_line(tmp_path: Path, change: tuple[str, str], said: str) -> None:
    root = write_course(tmp_path / "course", ASSIGNMENT.replace(*change))
    with pytest.raises(ContestError) as caught:
        load_site(root)
    message = str(caught.value)
    assert said in message and "contests/hw/contest.yaml" in message and "\n" not in message


def test_judge_serve_says_a_wrong_assignment_in_one_line(tmp_path: Path) -> None:
    root = write_course(tmp_path / "course", ASSIGNMENT.replace("students: [s2]", "students: [s9]"))
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "serve", str(root), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "'s9' is not a student of the roster" in lines[0], proc.stderr


def test_before_the_window_opens_and_after_it_closes_a_submission_is_refused_saying_when(course: CourseApi) -> None:
    r = course.submit_as("s1")  # half an hour before the opening (the contest runs)
    assert r.status_code == 403
    assert f"opens at {format_time(T0)}" in r.json()["message"] and "in 30 min" in r.json()["message"]
    course.clock.t = T0 + 5 * HOUR + 1  # s1's window closed at T0 + 5 h; s2's runs an hour longer
    r = course.submit_as("s1")
    assert r.status_code == 403 and f"closed at {format_time(T0 + 5 * HOUR)}" in r.json()["message"]
    assert course.submit_as("s2").status_code == 201
    course.clock.t = T0 + 6 * HOUR  # the close is inclusive
    assert course.submit_as("s2").status_code == 201
    course.clock.t += 1
    assert course.submit_as("s2").status_code == 403
    assert stored(course) == [("s2", "sum"), ("s2", "sum")]


def test_an_admin_submits_for_a_student_at_any_time(course: CourseApi) -> None:
    body_time = format_time(T0 - HOUR / 2)
    import base64

    from judge.serve.model.upload import pack

    data = base64.b64encode(pack({"sum.py": SUM_AC.encode()})).decode()
    body = {"problem_id": "sum", "language_id": "python3", "files": [{"data": data}], "team_id": "s1"}
    body["time"] = body_time
    r = course.request("POST", "/api/contests/hw/submissions", "instructor", json=body)
    assert r.status_code == 201, r.text


def test_at_the_rate_limit_a_submission_is_refused_with_the_time_the_next_comes_back(course: CourseApi) -> None:
    course.clock.t = T0 + 60
    assert course.submit_as("s1").status_code == 201
    course.clock.advance(600)
    assert course.submit_as("s1").status_code == 201
    assert course.submit_as("s1", problem="divisor").status_code == 201  # a bucket per problem
    course.clock.advance(60)
    r = course.submit_as("s1")
    assert r.status_code == 429
    back = T0 + 60 + 30 * 60  # the clock started with the first submission
    assert r.headers["Retry-After"] == str(int(back - course.clock.t))
    message = r.json()["message"]
    assert f"the next comes back at {format_time(back)}" in message and "in 19 min" in message, message
    assert stored(course) == [("s1", "sum"), ("s1", "sum"), ("s1", "divisor")]  # the refused one: nothing stored
    assert course.submit_as("s2").status_code == 201  # a bucket per student
    course.clock.t = back - 1
    assert course.submit_as("s1").status_code == 429
    course.clock.t = back
    assert course.submit_as("s1").status_code == 201
    assert course.submit_as("s1").status_code == 429  # one came back, one taken


def test_domjudges_form_gets_the_same_refusal(course: CourseApi) -> None:
    course.clock.t = T0 - 60
    files = {"code[]": ("sum.py", SUM_AC.encode(), "text/x-python")}
    r = course.request(
        "POST", "/api/contests/hw/submissions", "s1", data={"problem": "sum", "language": "python3"}, files=files
    )
    assert r.status_code == 403 and "opens at" in r.json()["message"]


def submit_page(course: CourseApi, user: str) -> Any:
    return course.page(user, "/contests/hw/submit")


def test_the_submit_page_says_the_credit_now_what_is_left_and_when_the_next_comes_back(course: CourseApi) -> None:
    course.clock.t = T0 - 60
    page = submit_page(course, "s1")
    assert 'id="course-credit" class="course-early"' in page.text and "submit-form" not in page.text
    assert f'datetime="{format_time(T0)}"' in page.text  # the opening, in the viewer's clock (live.js)
    course.clock.t = T0 + 2 * HOUR + 60  # late: 80 % until T0 + 3 h
    assert course.submit_as("s1").status_code == 201
    page = submit_page(course, "s1")
    text = re.sub(r"\s+", " ", page.text)
    assert 'id="course-percent">80 %' in text and f'datetime="{format_time(T0 + 3 * HOUR)}"' in text
    row = re.search(r'<tr id="limit-sum".*?</tr>', text)
    assert row is not None and "1 of 2" in row.group(0)
    assert f'datetime="{format_time(T0 + 2 * HOUR + 60 + 1800)}"' in row.group(0)  # the next one back
    s3 = re.sub(r"\s+", " ", submit_page(course, "s3").text)  # section B: due at T0 + 3 h, on time
    assert 'class="course-on-time"' in s3 and "Your window: section B: due" in s3
    s2 = re.sub(r"\s+", " ", submit_page(course, "s2").text)
    assert "Your window: extension 1h" in s2


def test_the_submit_page_refuses_over_the_limit_with_the_message_and_a_retry_after(course: CourseApi) -> None:
    course.clock.t = T0 + 60
    for _ in range(2):
        assert course.submit_as("s1").status_code == 201
    r = course.post_page("s1", "/contests/hw/submit", {"problem": "sum", "language": "python3", "code": SUM_AC})
    assert r.status_code == 429 and r.headers["Retry-After"] == str(30 * 60)
    assert "no submissions left for sum" in r.text and 'class="none-left"' in r.text
    assert len(stored(course)) == 2
