"""A course's gradebook: every assignment of a course folder graded for the roster's students (the order of the
roster: by id), ready for an export (export.py) or a page. Pure: the submissions are the caller's
(`judge course grades` reads them from each contest's database; `judge serve`'s gradebook page would read
them from its storage)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from judge.course.export import GradedAssignment
from judge.course.folder import Course, CourseAssignment
from judge.course.gradebook import Submission, grade_assignment
from judge.course.roster import Student


@dataclass(frozen=True)
class Gradebook:
    students: tuple[Student, ...]
    assignments: tuple[GradedAssignment, ...]

    def total(self, i: int) -> float:
        return round(sum(a.grades[i].score for a in self.assignments), 6)


def graded(a: CourseAssignment, students: tuple[Student, ...], submissions: Iterable[Submission]) -> GradedAssignment:
    problems = a.max_scores
    grades = grade_assignment(a.assignment, problems, students, submissions)
    return GradedAssignment(
        a.id, a.name, tuple(problems), round(sum(problems.values()), 6), tuple(problems.values()), grades
    )


def gradebook(course: Course, submissions: Mapping[str, Iterable[Submission]]) -> Gradebook:
    """``submissions``: each assignment's (by its id; none: nobody submitted)."""
    students = course.roster.students
    return Gradebook(students, tuple(graded(a, students, submissions.get(a.id, ())) for a in course.assignments))
