"""The LMS's import files (course/lmsexport.py): Canvas's gradebook import with Canvas's user ids and the export's
own column for the assignment; Moodle's grading worksheet written back with the grades (scaled to its Maximum
Grade), or made from a plain roster for the students whose participant id is known, the others returned."""

from __future__ import annotations

from datetime import UTC

from judge.course.export import GradedAssignment
from judge.course.gradebook import AssignmentGrade
from judge.course.lmsexport import canvas_column, lms_rows
from judge.course.lmsnames import Layout
from judge.course.lmsroster import LmsRoster, parse_lms_roster
from judge.course.roster import Student

ADA, BO = Student("s1", "Ada Allen", "a@x.edu", "A"), Student("s2", "=Bo Li", "b@x.edu", "A")


def _graded(scores: dict[Student, float]) -> GradedAssignment:
    grades = tuple(AssignmentGrade(s, v, v, 200.0, (), 0, "", "", False) for s, v in scores.items())
    return GradedAssignment("lab1", "Lab 1", ("rummy", "coins"), 200.0, (100.0, 100.0), grades)


def test_canvas_rows_carry_canvas_ids_and_the_exports_own_column() -> None:
    assert canvas_column("Lab 1", ["Student", "ID", "Lab 10 (9)", "Lab 1 (4242)"]) == "Lab 1 (4242)"
    assert canvas_column("Lab 1", ["Student", "Lab 1"]) == "Lab 1"
    roster = LmsRoster((ADA, BO), headers=("Student", "ID", "SIS User ID", "Lab 1 (4242)"))
    rows, left_out = lms_rows(Layout.CANVAS, _graded({ADA: 150.0, BO: 0.0}), roster, {"s1": "1001"})
    assert left_out == []
    assert rows == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1 (4242)"],
        ["    Points Possible", "", "", "", "", "200"],
        ["Ada Allen", "1001", "s1", "", "A", "150"],
        ["'=Bo Li", "", "s2", "", "A", "0"],
    ]


def test_moodle_worksheet_written_back_scaled_or_made_from_a_plain_roster() -> None:
    sheet = (
        b'Identifier,"Full name","ID number",Grade,"Maximum Grade","Last modified (grade)",Other\n'
        b'"Participant 11","Ada Allen",s1,,100.00,-,keep\n'
        b'"Participant 12","=Bo Li",s2,,100.00,"Friday, 11 January 2030, 9:00 AM",me\n'
    )
    roster = parse_lms_roster(sheet, "ws.csv", UTC)
    rows, left_out = lms_rows(Layout.MOODLE, _graded({ADA: 119.09, BO: 200.0}), roster, roster.lms_ids)
    assert left_out == []
    assert rows == [
        ["Identifier", "Full name", "ID number", "Grade", "Maximum Grade", "Last modified (grade)", "Other"],
        ["Participant 11", "Ada Allen", "s1", "59.55", "100.00", "-", "keep"],  # 119.09 of 200 -> of 100
        ["Participant 12", "=Bo Li", "s2", "100", "100.00", "Friday, 11 January 2030, 9:00 AM", "me"],
    ]
    plain = LmsRoster((ADA, BO))
    rows, left_out = lms_rows(Layout.MOODLE, _graded({ADA: 150.0, BO: 20.0}), plain, {"s1": "11"})
    assert rows == [
        ["Identifier", "Full name", "Email address", "Grade", "Maximum Grade", "Last modified (grade)"],
        ["Participant 11", "Ada Allen", "a@x.edu", "150", "200", "-"],
    ]
    assert left_out == [BO]  # no participant id: said, not dropped
