"""The gradebook's exports (judge/course/export.py): golden files of the three column layouts (ours, Canvas's
gradebook import, Moodle's grade import), per-problem columns, numbers, and cells a spreadsheet would run."""

from __future__ import annotations

import csv
import io

import pytest
import yaml

from judge.course.assignment import parse_assignment
from judge.course.export import Format, GradedAssignment, csv_text, gradebook_rows, number
from judge.course.gradebook import Submission, grade_assignment
from judge.course.roster import Student
from judge.scoreboard.times import parse_time

DUE = parse_time("2026-09-08T23:59:00Z", "t")
STUDENTS = (
    Student("s001", "Ada Lovelace", "ada@uni.example", "A"),
    Student("s002", "=HYPERLINK(1)", "", "B"),
)


def gradebook() -> tuple[GradedAssignment, ...]:
    a = parse_assignment(
        yaml.safe_load(
            "due: 2026-09-08T23:59:00Z\nlate: [{for: 1d, credit: 80}]\noverrides: [{students: [s002], extension: 1d}]"
        ),
        "a",
    )
    problems = {"hello": 100.0, "sum": 50.0}
    subs = [
        Submission("s001", "hello", DUE + 60, 100.0),  # 80
        Submission("s001", "sum", DUE, 25.0),  # 25
        Submission("s002", "hello", DUE + 3600, 90.0),  # on time by the extension
    ]
    grades = grade_assignment(a, problems, STUDENTS, subs)
    return (GradedAssignment("lab1", "Lab 1", ("hello", "sum"), 150.0, (100.0, 50.0), grades),)


def rows(fmt: Format, per_problem: bool = False) -> list[list[str]]:
    text = csv_text(gradebook_rows(fmt, STUDENTS, gradebook(), per_problem=per_problem))
    assert "\r\n" in text
    return list(csv.reader(io.StringIO(text)))


def test_ours_has_everything() -> None:
    assert rows(Format.CSV) == [
        [
            "id", "name", "email", "section", "lab1", "lab1 raw", "lab1/hello", "lab1/sum",
            "lab1 minutes late", "lab1 override", "lab1 override used", "total",
        ],
        ["s001", "Ada Lovelace", "ada@uni.example", "A", "105", "125", "80", "25", "1", "", "no", "105"],
        ["s002", "'=HYPERLINK(1)", "", "B", "90", "90", "90", "0", "0", "extension 1d", "yes", "90"],
    ]  # fmt: skip


def test_canvas_gradebook_import_layout() -> None:
    assert rows(Format.CANVAS) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1"],
        ["    Points Possible", "", "", "", "", "150"],
        ["Ada Lovelace", "", "s001", "", "A", "105"],
        ["'=HYPERLINK(1)", "", "s002", "", "B", "90"],
    ]
    assert rows(Format.CANVAS, per_problem=True)[:2] == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1", "Lab 1: hello", "Lab 1: sum"],
        ["    Points Possible", "", "", "", "", "150", "100", "50"],
    ]


def test_moodle_grade_import_layout() -> None:
    assert rows(Format.MOODLE) == [
        ["First name", "Last name", "ID number", "Email address", "Lab 1 (Real)"],
        ["Ada", "Lovelace", "s001", "ada@uni.example", "105"],
        ["'=HYPERLINK(1)", "", "s002", "", "90"],
    ]


@pytest.mark.parametrize(("x", "text"), [(80.0, "80"), (62.5, "62.5"), (1 / 3, "0.3333"), (0.0, "0"), (-0.0, "0")])
def test_numbers(x: float, text: str) -> None:
    assert number(x) == text


def test_grades_must_follow_the_students() -> None:
    with pytest.raises(ValueError):
        gradebook_rows(Format.CSV, tuple(reversed(STUDENTS)), gradebook())
