"""The roster of an LMS download's grading (issue 48; docs/course.md, "Grading an LMS download"): the students
(as a roster CSV gives them, rostercsv.py) and what the LMS calls each of them, read from the same file. Pure:
bytes in, records out.

- **Canvas**'s gradebook export (``Student, ID, SIS User ID, SIS Login ID, Section``): the student's id is read
  as rostercsv reads it (``SIS User ID`` first); ``ID``, when another column is the id, is Canvas's own user id,
  the number in the download's file names.
- **Moodle**'s grading worksheet (the assignment's "Download grading worksheet": ``Identifier, Full name, Email
  address, Status, Grade, ..., Last modified (submission), ..., Last modified (grade)``): ``Identifier`` is
  ``Participant <id>``, the number in the download's folder names; the student's id is the ``ID number``
  column when the worksheet has one (Moodle's "Show user identity" setting), else ``participant<id>``;
  ``Last modified (submission)`` is when the student's submission was last changed, in Moodle's English date
  format (``Thursday, 10 January 2030, 1:00 PM``) in the time zone of whoever downloaded it. The worksheet is
  kept whole: the grades are written into its ``Grade`` column (lmsexport.py), which Moodle's "Upload grading
  worksheet" reads.
- any other roster CSV: the students only (the download's names are then matched by id or by name).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from judge.course.roster import Student
from judge.course.rostercsv import csv_rows, decode_csv, normalize, parse_roster_csv
from judge.course.values import CourseError, valid_id

IDENTIFIER = "Identifier"
PARTICIPANT = "Participant "  # Moodle's hiddenuser string: the Identifier is "Participant <id>"
GRADE = "Grade"
SUBMITTED = "Last modified (submission)"
GRADED = "Last modified (grade)"
MAXIMUM = "Maximum Grade"
MOODLE_DATE = "%A, %d %B %Y, %I:%M %p"  # Moodle's strftimedaydatetime (English)
_PARTICIPANT_ID = re.compile(r"^\s*participant\s*(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Worksheet:
    """Moodle's grading worksheet as read: its header and rows, kept to write the grades back into."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    student_row: Mapping[str, int] = field(default_factory=dict)  # student id -> index in rows
    grade_column: int = -1


@dataclass(frozen=True)
class LmsRoster:
    students: tuple[Student, ...]
    lms_ids: Mapping[str, str] = field(default_factory=dict)  # student id -> the LMS's number for them
    submitted_s: Mapping[str, float] = field(default_factory=dict)  # student id -> when their submission changed
    worksheet: Worksheet | None = None
    notes: tuple[str, ...] = ()  # what could not be read (a date), one line each
    kind: str = "roster"  # "roster" | "Canvas gradebook" | "Moodle grading worksheet"
    headers: tuple[str, ...] = ()  # the file's header row (Canvas's has the assignments' columns, "Lab 1 (4242)")


def moodle_time(value: str, zone: tzinfo) -> float | None:
    """A Moodle date (``Thursday, 10 January 2030, 1:00 PM``) in ``zone``, as seconds since the epoch; None for
    ``-`` (no submission) or a date in another format."""
    value = " ".join(value.split())
    if not value or value == "-":
        return None
    try:
        return datetime.strptime(value, MOODLE_DATE).replace(tzinfo=zone).timestamp()
    except ValueError:
        return None


def _worksheet(rows: list[list[str]], where: str, zone: tzinfo) -> LmsRoster:
    headers = [h.replace("\ufeff", "").strip() for h in rows[0]]
    norm = [normalize(h) for h in headers]

    def col(*names: str) -> int | None:
        return next((norm.index(n) for n in names if n in norm), None)

    ident, name, email = col("identifier"), col("full name"), col("email address", "email")
    idnumber, submitted, grade = col("id number", "idnumber"), col(normalize(SUBMITTED)), col("grade")
    if ident is None or grade is None:
        raise CourseError(f"{where}: a grading worksheet needs the columns {IDENTIFIER!r} and {GRADE!r}")
    students: list[Student] = []
    lms_ids: dict[str, str] = {}
    times: dict[str, float] = {}
    notes: list[str] = []
    index: dict[str, int] = {}
    body = [list(r) + [""] * (len(headers) - len(r)) for r in rows[1:]]
    for n, row in enumerate(body):
        m = _PARTICIPANT_ID.match(row[ident])
        if m is None:
            raise CourseError(f"{where} row {n + 2}: {IDENTIFIER} {row[ident]!r} is not 'Participant <number>'")
        number = m[1]
        sid = row[idnumber].strip() if idnumber is not None and row[idnumber].strip() else f"participant{number}"
        if not valid_id(sid):
            raise CourseError(f"{where} row {n + 2}: id {sid!r} is not a valid id (letters, digits, _ . -)")
        if sid in index:
            raise CourseError(f"{where} rows {index[sid] + 2} and {n + 2}: the id {sid!r} twice")
        index[sid] = n
        full = row[name].strip() if name is not None else ""
        students.append(Student(sid, full or sid, row[email].strip() if email is not None else ""))
        lms_ids[sid] = number
        if submitted is not None and row[submitted].strip() not in ("", "-"):
            when = moodle_time(row[submitted], zone)
            if when is None:
                notes.append(
                    f"{where} row {n + 2}: {SUBMITTED} {row[submitted]!r} is not a date like "
                    "'Thursday, 10 January 2030, 1:00 PM': their files count as on time"
                )
            else:
                times[sid] = when
    sheet = Worksheet(tuple(headers), tuple(tuple(r) for r in body), index, grade)
    return LmsRoster(tuple(students), lms_ids, times, sheet, tuple(notes), "Moodle grading worksheet", tuple(headers))


def parse_lms_roster(data: bytes, where: str, zone: tzinfo) -> LmsRoster:
    """The students of a roster CSV and what the LMS calls them (``zone``: the time zone of a Moodle
    worksheet's dates)."""
    text, _ = decode_csv(data, where)
    rows = csv_rows(text, where)
    norm = [normalize(h) for h in rows[0]]
    if "identifier" in norm:
        return _worksheet(rows, where, zone)
    roster = parse_roster_csv(data, where)
    id_header = dict(roster.mapping)["id"]
    headers = tuple(h.replace("\ufeff", "").strip() for h in rows[0])
    if "id" not in norm or id_header is None or normalize(id_header) == "id":
        return LmsRoster(roster.students, headers=headers)
    id_col, lms_col = norm.index(normalize(id_header)), norm.index("id")
    lms_ids = {}
    for row in rows[1:]:
        if max(id_col, lms_col) < len(row) and row[id_col].strip() and row[lms_col].strip().isdigit():
            lms_ids[row[id_col].strip()] = row[lms_col].strip()
    known = {s.id for s in roster.students}
    lms_ids = {k: v for k, v in lms_ids.items() if k in known}
    return LmsRoster(roster.students, lms_ids, kind="Canvas gradebook", headers=headers)
