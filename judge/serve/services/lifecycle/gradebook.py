"""A course's gradebook while it is served (issue 45, docs/course.md): every assignment of the course (the site's
contests that have one, in the site's order), graded for the roster's students (the site's people files: the
students of the group ``students``, with their emails) with the rules in force (the overrides set on the roster
page too), from each contest's stored submissions; the same ``course.book.gradebook`` and exports as `judge
course grades`, so that the page's CSV is the file the command writes. Staff only: it holds the emails."""

from __future__ import annotations

from collections.abc import Sequence

from judge.course.book import Gradebook, gradebook
from judge.course.export import Format, csv_text, gradebook_rows
from judge.course.folder import Course, CourseAssignment
from judge.course.sitefiles import read_roster
from judge.course.values import CourseError
from judge.serve.model.course import course_submissions
from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.context import Served
from judge.serve.services.core.coursework import CourseContest
from judge.serve.services.people import access


def _assignment(c: CourseContest) -> CourseAssignment | None:
    state = c.course.state
    if state is None:
        return None
    info = c.contest.info
    problems = tuple((p.id, float(p.problem.secret.max_score)) for p in c.contest.problems)
    name = state.assignment.name or info.name
    return CourseAssignment(info.id, name, c.contest.root, state.assignment, problems, info.start_s, info.end_s)


def course_of(server: Served) -> tuple[Course, Sequence[CourseContest]]:
    """The course ``server``'s contest is an assignment of, and the contests of its assignments."""
    root = server.course.root
    if server.course.state is None or root is None:
        raise Refused(404, "this contest is not a course's assignment")
    try:
        roster = read_roster(root)
    except CourseError as exc:
        raise Refused(409, str(exc)) from None
    contests, assignments, skipped = [], [], []
    for c in server.course.contests():
        a = _assignment(c)
        if a is None:
            skipped.append(c.contest.info.id)
        else:
            contests.append(c)
            assignments.append(a)
    return Course(root, root.name, roster, tuple(assignments), tuple(skipped)), contests


def course_gradebook(server: Served, viewer: Viewer) -> tuple[Course, Gradebook]:
    """The course's gradebook now (staff)."""
    access.staff(viewer, "see the gradebook")
    course, contests = course_of(server)
    submissions = {}
    for c in contests:
        with c.storage.read() as r:
            submissions[c.contest.info.id] = course_submissions(r.counted(None))
    return course, gradebook(course, submissions)


def gradebook_csv(server: Served, viewer: Viewer, fmt: Format, per_problem: bool) -> str:
    """The gradebook as `judge course grades --format FMT [--per-problem]` writes it."""
    _, book = course_gradebook(server, viewer)
    return csv_text(gradebook_rows(fmt, book.students, book.assignments, per_problem=per_problem))
