"""The grades of an LMS download, in the file that LMS imports (issue 48; docs/course.md, "Grading an LMS
download"). Pure: rows of strings (export.csv_text writes them).

- **Canvas**: the gradebook import export.py writes (``Student, ID, SIS User ID, SIS Login ID, Section``, the
  assignment's column, a ``Points Possible`` row), with ``ID`` filled with Canvas's user id where the roster or
  the download's names give it (Canvas matches a row by ``ID`` first, then by ``SIS User ID``); the
  assignment's column is named as the roster's (Canvas's export) column for it, ``Lab 1 (4242)``, when it has
  one.
- **Moodle**: the assignment's grading worksheet, which "Upload grading worksheet" (the offline grading
  worksheet feedback plugin) imports: it finds the row's student by ``Identifier`` (``Participant <id>``) and reads
  ``Grade`` and ``Last modified (grade)``. When the roster was the worksheet Moodle gave, it is written back
  whole with each student's grade in ``Grade`` (scaled to its ``Maximum Grade`` when that is not the
  assignment's maximum); else a worksheet is made of ``Identifier, Full name, Email
  address, Grade, Maximum Grade, Last modified (grade)`` for the students whose participant id the download
  gave (the others cannot be imported: they are returned, to be said).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from judge.course.export import Format, GradedAssignment, cell, gradebook_rows, number
from judge.course.lmsnames import Layout
from judge.course.lmsroster import GRADE, GRADED, IDENTIFIER, MAXIMUM, PARTICIPANT, LmsRoster
from judge.course.roster import Student

WORKSHEET_HEADERS = (IDENTIFIER, "Full name", "Email address", GRADE, MAXIMUM, GRADED)


def canvas_column(name: str, headers: Sequence[str]) -> str:
    """The assignment's column: the Canvas export's own for it when the roster has one (``Lab 1 (4242)``, which
    Canvas matches by the number), else the assignment's name (Canvas makes a new assignment of it)."""
    pattern = re.compile(rf"^{re.escape(name)} \(\d+\)$")
    return next((h for h in headers if pattern.match(h)), name)


def canvas_rows(graded: GradedAssignment, roster: LmsRoster, lms_ids: Mapping[str, str]) -> list[list[str]]:
    students = [g.student for g in graded.grades]
    named = replace(graded, name=canvas_column(graded.name, roster.headers))
    rows = gradebook_rows(Format.CANVAS, students, [named])
    for row, s in zip(rows[2:], students, strict=True):
        row[1] = lms_ids.get(s.id, "")
    return rows


def _scaled(score: float, ours: float, theirs: str) -> str:
    """``score`` (of ``ours``) out of the worksheet's maximum grade (as it wrote it), to Moodle's 2 decimals."""
    try:
        maximum = float(theirs.replace(",", "."))
    except ValueError:
        return number(score)
    if maximum <= 0 or ours <= 0 or abs(maximum - ours) < 1e-9:
        return number(score)
    return number(round(score * maximum / ours, 2))


def moodle_rows(
    graded: GradedAssignment, roster: LmsRoster, lms_ids: Mapping[str, str]
) -> tuple[list[list[str]], list[Student]]:
    """The worksheet's rows, and the students left out of it (no participant id known). A worksheet whose
    ``Maximum Grade`` is not the assignment's maximum gets the score scaled to it."""
    sheet = roster.worksheet
    if sheet is not None:
        rows = [list(sheet.headers), *(list(r) for r in sheet.rows)]
        top = sheet.headers.index(MAXIMUM) if MAXIMUM in sheet.headers else None
        for g in graded.grades:
            i = sheet.student_row.get(g.student.id)
            if i is not None:
                row = rows[i + 1]
                value = number(g.score) if top is None else _scaled(g.score, g.max_score, row[top])
                row[sheet.grade_column] = value
        return rows, []
    rows = [list(WORKSHEET_HEADERS)]
    left_out = []
    for g in graded.grades:
        s = g.student
        if s.id not in lms_ids:
            left_out.append(s)
            continue
        rows.append(
            [f"{PARTICIPANT}{lms_ids[s.id]}", cell(s.name), cell(s.email), number(g.score), number(g.max_score), "-"]
        )
    return rows, left_out


def lms_rows(
    layout: Layout, graded: GradedAssignment, roster: LmsRoster, lms_ids: Mapping[str, str]
) -> tuple[list[list[str]], list[Student]]:
    """The import file's rows for ``layout``'s LMS, and the students it cannot hold."""
    if layout is Layout.CANVAS:
        return canvas_rows(graded, roster, lms_ids), []
    return moodle_rows(graded, roster, lms_ids)
