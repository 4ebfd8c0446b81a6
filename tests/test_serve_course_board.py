"""A course's board and a student's submission pages (issue 45): per student the score after the late penalty
and why in words (the same words as `judge grade --assignment`'s board), hand-computed; staff see every
student, a student their own row, the public none; the API's scoreboard says the same."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_course_fixtures import CourseApi, write_course
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, FakeClock
from serve_site_fixtures import open_test_site


@pytest.fixture
def course(tmp_path: Path) -> Iterator[CourseApi]:
    clock = FakeClock(T0)
    site = open_test_site(write_course(tmp_path / "course"), clock)
    api = CourseApi(site, clock)
    at = [
        # (time after T0, student, problem, code): hand-computed below
        (1 * HOUR, "s1", "divisor", SUM_WA),  # on time, 0
        (2.5 * HOUR, "s1", "sum", SUM_AC),  # due T0 + 2 h: late 30 min, 80 % of 100 = 80
        (2.5 * HOUR, "s2", "sum", SUM_AC),  # extension 1h: due T0 + 3 h, on time: 100
        (4.5 * HOUR, "s3", "sum", SUM_AC),  # section B: due T0 + 3 h, 80 % until + 1 h, then 50 %: 50
    ]
    for t, who, problem, code in at:
        clock.t = T0 + t
        r = api.submit_as(who, problem, code)
        assert r.status_code == 201, r.text
    assert site.contest("hw").server.judging.run_pending() == 4
    clock.t = T0 + 6.5 * HOUR  # every window closed
    yield api
    site.close()


def rows(api: CourseApi, user: str | None) -> list[dict]:
    r = api.get("/api/contests/hw/scoreboard", user)
    assert r.status_code == 200, r.text
    return r.json()["rows"]


def test_the_staffs_board_ranks_every_student_by_the_points_that_count(course: CourseApi) -> None:
    board = rows(course, "ta")
    assert [(r["rank"], r["team_id"], r["score"]["score"]) for r in board] == [
        (1, "s2", 100),
        (2, "s1", 80),
        (3, "s3", 50),
        (4, "s4", 0),
    ]
    s1 = {c["problem_id"]: c for c in board[1]["problems"]}
    assert s1["sum"]["score"] == 80
    assert s1["sum"]["credit"] == {"raw": 100, "percent": 80, "minutes_late": 30, "note": "late 30 min"}
    assert s1["divisor"]["score"] == 0 and s1["divisor"]["credit"]["note"] == "on time"
    s2 = {c["problem_id"]: c for c in board[0]["problems"]}
    assert s2["sum"]["credit"]["note"] == "extension 1h: on time"
    s3 = {c["problem_id"]: c for c in board[2]["problems"]}
    assert s3["sum"]["credit"] == {"raw": 100, "percent": 50, "minutes_late": 90, "note": "late 1 h 30 min"}


def test_a_student_sees_their_own_row_and_the_public_none(course: CourseApi) -> None:
    mine = rows(course, "s3")
    assert [(r["team_id"], r["score"]["score"]) for r in mine] == [("s3", 50)]
    assert rows(course, None) == []
    page = course.page("s1", "/contests/hw/scoreboard")
    text = re.sub(r"\s+", " ", page.text)
    assert 'id="student-s1"' in text and "student-s2" not in text and "student-s3" not in text
    assert "100 × 80 %: late 30 min" in text
    assert 'Your window: opens <time class="clock" datetime="2030-01-01T10:00:00.000+00:00">' in text
    public = course.page(None, "/contests/hw/scoreboard")
    assert public.status_code == 200 and "student-s" not in public.text and "log in" in public.text


def test_the_staffs_board_page_shows_the_penalty_in_words(course: CourseApi) -> None:
    page = course.page("instructor", "/contests/hw/scoreboard")
    text = re.sub(r"\s+", " ", page.text)
    for student in ("s1", "s2", "s3", "s4"):
        assert f'id="student-{student}"' in text
    assert "100 × 80 %: late 30 min" in text and "100 × 50 %: late 1 h 30 min" in text
    assert "extension 1h: on time" in text
    section_b = course.page("instructor", "/contests/hw/scoreboard?group=B&fragment=1")
    assert "student-s3" in section_b.text and "student-s1" not in section_b.text


def test_a_students_submission_pages_say_what_each_counts(course: CourseApi) -> None:
    page = course.page("s1", "/contests/hw/submissions")
    text = re.sub(r"\s+", " ", page.text)
    late = re.search(r'<tr id="submission-2">.*?</tr>', text)
    assert late is not None and "<b>80</b>" in late.group(0) and "100 × 80 %: late 30 min" in late.group(0)
    on_time = re.search(r'<tr id="submission-1">.*?</tr>', text)
    assert on_time is not None and "<b>0</b>" in on_time.group(0) and "on time" in on_time.group(0)
    feedback = re.sub(r"\s+", " ", course.page("s1", "/contests/hw/submissions/2").text)
    assert 'id="credit"><b>80</b>' in feedback and "100 × 80 %: late 30 min" in feedback
    s2 = re.sub(r"\s+", " ", course.page("s2", "/contests/hw/submissions/3").text)
    assert 'id="credit"><b>100</b>' in s2 and "extension 1h: on time" in s2
