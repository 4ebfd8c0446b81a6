"""Which student and which problem each file of an LMS download is, and when it was made (issue 48;
docs/course.md, "Grading an LMS download"). Pure: the download's paths, the roster and the assignment in, a plan
out; the files are read and written by judge/grade/lmsdownload.py.

**The student**, in this order, the first that finds exactly one:

1. the LMS's number in the name (Canvas's user id, Moodle's participant id) against the roster's LMS number
   (Canvas's gradebook ``ID``, Moodle's worksheet ``Identifier``);
2. that number against the roster's own ids (a roster whose ids are the LMS's numbers);
3. the name in the file's name against the roster's names: Moodle's full name as written or last name first,
   Canvas's sanitized sortable name for any split of the name into first and last names; case, accents' forms
   and spaces do not matter. Two students of one name: neither is taken.

An email is never used: neither LMS puts one in the file names.

**The problem**: the student's own file name (its last part), as `judge grade` reads ``<problem>.<ext>``: the part
before the first dot is a problem of the assignment (case does not matter), or starts with one followed by
``-``, ``_``, a space or ``(`` (``coins-1.py``, ``coins (2).py``: what a re-upload is named), the longest winning.

**When**: Canvas's ``LATE`` marker is kept as a time: one second after the student's own due time (the first late
step's credit; Canvas does not say how late); a file without it, the student's due time (on time). Moodle's
names carry no time: the grading worksheet's ``Last modified (submission)`` when it is the roster, else the
student's due time (on time). The zip's own file times are never used (the LMS sets them when it zips).

Files that are not placed are kept with the reason, never dropped: an online text or URL entry, a name neither
layout makes, no student, an anonymous name with no worksheet, no problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judge.course.assignment import Assignment
from judge.course.lmsnames import Layout, LmsFile, file_key, name_keys, parse_entry
from judge.course.lmsroster import LmsRoster
from judge.course.roster import Student

LATE_AFTER_DUE_S = 1.0  # a LATE file is taken as made this long after the student's due time
_SEPARATORS = ("-", "_", " ", "(")


@dataclass(frozen=True)
class Placed:
    file: LmsFile
    student: Student
    problem: str
    time_s: float
    found_by: str  # "LMS id 1001" | "id 1001" | "name"
    when: str  # why this time, in words


@dataclass(frozen=True)
class Unplaced:
    path: str
    reason: str
    file: LmsFile | None = None


@dataclass(frozen=True)
class Plan:
    layout: Layout
    placed: tuple[Placed, ...]
    unplaced: tuple[Unplaced, ...]
    lms_ids: Mapping[str, str]  # student id -> the LMS's number (the roster's, else the files')


def problem_of(file_name: str, problems: Sequence[str]) -> str | None:
    """The problem a student's file is for (None: none of ``problems``)."""
    stem = file_name.rsplit("/", 1)[-1].split(".", 1)[0].casefold()
    by_key = {p.casefold(): p for p in problems}
    if stem in by_key:
        return by_key[stem]
    found = [k for k in by_key if stem.startswith(k) and stem[len(k) : len(k) + 1] in _SEPARATORS]
    return by_key[max(found, key=len)] if found else None


class _Students:
    def __init__(self, roster: LmsRoster) -> None:
        self.by_lms = {v: k for k, v in roster.lms_ids.items()}
        self.by_id = {s.id: s for s in roster.students}
        self.by_name: dict[str, list[Student]] = {}
        for s in roster.students:
            for key in name_keys(s.name):
                self.by_name.setdefault(key, []).append(s)

    def find(self, f: LmsFile) -> tuple[Student | None, str]:
        """(the student, how they were found) or (None, why not)."""
        if f.lms_id in self.by_lms:
            return self.by_id[self.by_lms[f.lms_id]], f"LMS id {f.lms_id}"
        if f.lms_id in self.by_id:
            return self.by_id[f.lms_id], f"id {f.lms_id}"
        if f.anonymous:
            return None, "anonymous (no name in the download): give the roster with the LMS's ids"
        found = {s.id: s for s in self.by_name.get(file_key(f), [])}
        if len(found) > 1:
            return None, f"the name {f.name!r} is more than one student's ({', '.join(sorted(found))})"
        if not found:
            return None, f"no student of the roster has the id {f.lms_id} or the name {f.name!r}"
        return next(iter(found.values())), "name"


def _when(f: LmsFile, student: Student, assignment: Assignment, roster: LmsRoster) -> tuple[float, str]:
    due = assignment.resolve(student.id, student.section_id).window.due_s
    if f.layout is Layout.CANVAS:
        if f.late:
            return due + LATE_AFTER_DUE_S, "LATE in the name: taken as 1 s after the due time"
        return due, "no LATE in the name: on time"
    if student.id in roster.submitted_s:
        return roster.submitted_s[student.id], "the worksheet's Last modified (submission)"
    return due, "no time in the download: on time"


def plan(
    paths: Sequence[str], layout: Layout, roster: LmsRoster, problems: Sequence[str], assignment: Assignment
) -> Plan:
    """Each of ``paths`` (the download's files) placed, or said why not."""
    students = _Students(roster)
    placed: list[Placed] = []
    unplaced: list[Unplaced] = []
    lms_ids = dict(roster.lms_ids)
    for path in sorted(paths):
        f = parse_entry(path, layout)
        if f is None:
            unplaced.append(Unplaced(path, f"not a file name of {layout.value.title()}'s download"))
            continue
        if f.plugin != "file":
            what = {"onlinetext": "an online text", "text": "an online text", "link": "a URL"}.get(f.plugin, f.plugin)
            unplaced.append(Unplaced(path, f"{what} entry, not an uploaded file", f))
            continue
        student, how = students.find(f)
        if student is None:
            unplaced.append(Unplaced(path, how, f))
            continue
        problem = problem_of(f.file_name, problems)
        if problem is None:
            name = f.file_name.rsplit("/", 1)[-1]
            unplaced.append(Unplaced(path, f"{name!r} is no problem of the assignment ({', '.join(problems)})", f))
            continue
        lms_ids.setdefault(student.id, f.lms_id)
        time_s, when = _when(f, student, assignment, roster)
        placed.append(Placed(f, student, problem, time_s, how, when))
    return Plan(layout, tuple(placed), tuple(unplaced), lms_ids)
