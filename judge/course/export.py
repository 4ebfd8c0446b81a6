"""The gradebook's exports (issue 45): one row per student, in the column layout an LMS imports. Pure: rows
of strings, and the CSV text of them.

- ``csv`` (ours, everything): ``id, name, email, section``, then per assignment its score after the penalty
  (``<id>``), the raw score (``<id> raw``), each problem's score after the penalty (``<id>/<problem>``), the
  minutes late, the override that applied and whether it was used; then ``total``.
- ``canvas``: Canvas's gradebook import (the layout of its gradebook export): ``Student, ID, SIS User ID, SIS
  Login ID, Section``, then one column per assignment named as the assignment (Canvas makes a new assignment
  of a column it does not know), and a second row ``Points Possible`` with each column's maximum. The student's
  id goes in ``SIS User ID``, which Canvas matches students by when ``ID`` (its own number) is empty.
- ``moodle``: Moodle's grade import (the layout of its "Plain text file" export): ``First name, Last name, ID
  number, Email address``, then one column per assignment, ``<name> (Real)``; map ``ID number`` to
  ``useridnumber`` (or ``Email address`` to ``useremail``) when importing.

With ``per_problem``, the LMS layouts also get a column per problem (``<assignment>: <problem>``). docs/course.md
says which documents these follow. A text cell that a spreadsheet would run as a formula (it starts with
``= + - @``, a tab or a return) is written with a leading ``'``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from judge.course.gradebook import AssignmentGrade
from judge.course.roster import Student


class Format(Enum):
    CSV = "csv"
    CANVAS = "canvas"
    MOODLE = "moodle"


@dataclass(frozen=True)
class GradedAssignment:
    id: str
    name: str
    problems: tuple[str, ...]
    max_score: float
    problem_max: tuple[float, ...]
    grades: tuple[AssignmentGrade, ...]  # one per student, in the gradebook's order


def number(x: float) -> str:
    """``80``, ``62.5``, ``0.3333``: at most 4 decimals, no trailing zeros."""
    out = f"{round(x, 4):.4f}".rstrip("0").rstrip(".")
    return "0" if out in ("-0", "") else out


def cell(value: str) -> str:
    """A text cell a spreadsheet will not run as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _check(students: Sequence[Student], assignments: Sequence[GradedAssignment]) -> None:
    for a in assignments:
        if tuple(g.student.id for g in a.grades) != tuple(s.id for s in students):
            raise ValueError(f"assignment {a.id}: its grades are not one per student in the gradebook's order")


def _ours(students: Sequence[Student], assignments: Sequence[GradedAssignment]) -> list[list[str]]:
    header = ["id", "name", "email", "section"]
    for a in assignments:
        header += [a.id, f"{a.id} raw", *(f"{a.id}/{p}" for p in a.problems)]
        header += [f"{a.id} minutes late", f"{a.id} override", f"{a.id} override used"]
    header.append("total")
    rows = [header]
    for i, s in enumerate(students):
        row = [cell(s.id), cell(s.name), cell(s.email), cell(s.section)]
        for a in assignments:
            g = a.grades[i]
            row += [number(g.score), number(g.raw), *(number(p.score) for p in g.problems)]
            row += [str(g.minutes_late), cell(g.override_label), "yes" if g.extension_used else "no"]
        row.append(number(sum(a.grades[i].score for a in assignments)))
        rows.append(row)
    return rows


def _lms_columns(a: GradedAssignment, per_problem: bool) -> list[tuple[str, float]]:
    cols = [(a.name, a.max_score)]
    if per_problem:
        cols += [(f"{a.name}: {p}", m) for p, m in zip(a.problems, a.problem_max, strict=True)]
    return cols


def _lms_values(g: AssignmentGrade, per_problem: bool) -> list[str]:
    return [number(g.score), *([number(p.score) for p in g.problems] if per_problem else [])]


def _split_name(name: str) -> tuple[str, str]:
    """(first, last) for Moodle's two columns: the last word is the last name (Moodle matches by id or email)."""
    parts = name.split()
    return (" ".join(parts[:-1]), parts[-1]) if len(parts) > 1 else (name, "")


def _canvas(students: Sequence[Student], assignments: Sequence[GradedAssignment], per_problem: bool) -> list[list[str]]:
    cols = [c for a in assignments for c in _lms_columns(a, per_problem)]
    rows = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *(cell(name) for name, _ in cols)],
        ["    Points Possible", "", "", "", "", *(number(m) for _, m in cols)],
    ]
    for i, s in enumerate(students):
        values = [v for a in assignments for v in _lms_values(a.grades[i], per_problem)]
        rows.append([cell(s.name or s.id), "", cell(s.id), "", cell(s.section), *values])
    return rows


def _moodle(students: Sequence[Student], assignments: Sequence[GradedAssignment], per_problem: bool) -> list[list[str]]:
    cols = [c for a in assignments for c in _lms_columns(a, per_problem)]
    rows = [["First name", "Last name", "ID number", "Email address", *(cell(f"{name} (Real)") for name, _ in cols)]]
    for i, s in enumerate(students):
        first, last = _split_name(s.name)
        values = [v for a in assignments for v in _lms_values(a.grades[i], per_problem)]
        rows.append([cell(first), cell(last), cell(s.id), cell(s.email), *values])
    return rows


def gradebook_rows(
    fmt: Format,
    students: Sequence[Student],
    assignments: Sequence[GradedAssignment],
    *,
    per_problem: bool = False,
) -> list[list[str]]:
    """The header row(s), then one row per student in ``students``' order."""
    _check(students, assignments)
    if fmt is Format.CANVAS:
        return _canvas(students, assignments, per_problem)
    if fmt is Format.MOODLE:
        return _moodle(students, assignments, per_problem)
    return _ours(students, assignments)


def csv_text(rows: Sequence[Sequence[str]]) -> str:
    """RFC 4180 CSV (quoted where needed, CRLF line ends), as Canvas and Moodle read it; UTF-8 when written."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()
