"""A course's board (issue 45, docs/course.md): per student the score after the late penalty, each cell the
submission that counts (else the last one) and why, in words; the same grades as the gradebook and `judge grade
--assignment`'s board (judge/course: ``grade_student``, ``notes.cell_credit``). Who sees which row and which
score is visibility.py's (``sees_course_row``, ``course_shown``): staff every student's row, a student their own
row (a score hidden by the feedback rules stays hidden), the public none. Made anew per request: a class's board
is small."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge.course.gradebook import Submission, grade_student
from judge.course.notes import cell_credit
from judge.scoreboard.model import CellCredit
from judge.serve.model.course import course_submissions, students_of
from judge.serve.model.errors import Refused
from judge.serve.model.records import Counted
from judge.serve.model.times import format_reltime, format_time
from judge.serve.services.core.context import Served
from judge.serve.visibility import Sight, board_view, course_shown, sees_course_row, sees_group

SCORE_DIGITS = 6


@dataclass(frozen=True)
class CourseCell:
    problem_id: str
    credit: CellCredit | None  # None: nothing to show (no submission, or its score is hidden: ``hidden``)
    submission_id: int | None  # the submission the cell shows (the one that counts, else the last)
    submissions: int  # every submission of the student's for the problem (their group's too)
    pending: int  # of those, not judged yet
    hidden: str  # "" | why the score is not shown yet ("until the due time", "until the grades are published")


@dataclass(frozen=True)
class CourseRow:
    rank: int | None  # among every student (staff); None: a student's own row (no rank among the others)
    team_id: str
    name: str
    section: str
    score: float | None  # the total that counts; None: some of it is hidden from the viewer
    cells: tuple[CourseCell, ...]
    override: str  # "" | the override that applies ("extension 2d", "section B: due ...")


def _hidden_why(s: Sight, team_id: str, problem_id: str) -> str:
    """Why the viewer does not see the score of ``team_id``'s cell now ("" they do)."""
    shown = course_shown(s, team_id, problem_id)
    if shown is None or shown.score:
        return ""
    assert s.course is not None
    rules = s.course.assignment.feedback_for(problem_id)
    if rules.score_published_only and not s.course.published:
        return "until the grades are published"
    return {"due": "until the due time", "close": "until the assignment closes"}.get(
        rules.switch.value, "until the grades are published"
    )


def _cells(
    s: Sight, row: Any, grade: Any, mine: Sequence[Submission], pending: dict[tuple[str, str], int], base_due: float
) -> tuple[CourseCell, ...]:
    out = []
    for p in grade.problems:
        tried = sorted((x for x in mine if x.problem == p.problem), key=lambda x: (x.time_s, x.ref))
        shown = p.counted or (tried[-1] if tried else None)
        hidden = _hidden_why(s, row.id, p.problem) if tried else ""
        credit = None if shown is None or hidden else cell_credit(grade, p, shown, base_due)
        sid = None if shown is None else int(shown.ref)
        waiting = sum(pending.get((owner, p.problem), 0) for owner in {x.owner for x in tried})
        out.append(CourseCell(p.problem, credit, sid, len(tried), waiting, hidden))
    return tuple(out)


def course_rows(server: Served, sight: Sight, counted: Sequence[Counted] | None = None) -> list[CourseRow]:
    """The rows ``sight`` sees of the course's board, ranked by the points that count (then by name)."""
    view = server.course.view(server.contest)
    if view is None:
        return []
    if counted is None:
        with server.storage.read() as r:
            counted = r.counted(None)
    assignment, contest = view.assignment, server.contest
    subs = course_submissions(counted)
    pending: dict[tuple[str, str], int] = {}
    for c in counted:
        if c.judgement is None:
            key = (c.submission.team_id, c.submission.problem_id)
            pending[key] = pending.get(key, 0) + 1
    problems = {p.id: float(p.problem.secret.max_score) for p in contest.problems}
    base_due = assignment.window.due_s
    graded = []
    for student in students_of(contest, assignment):
        owners = set(assignment.owners(student.id))
        mine = [x for x in subs if x.owner in owners]
        grade = grade_student(assignment, problems, student, mine)
        cells = _cells(sight, student, grade, mine, pending, base_due)
        total = None if any(c.hidden for c in cells) else grade.score
        resolved = view.resolved(student.id)
        override = ""
        if resolved.override is not None:
            label = resolved.override.label
            override = label if resolved.source == "student" else f"{resolved.source}: {label}"
        graded.append(CourseRow(None, student.id, student.name, student.section, total, cells, override))
    graded.sort(key=lambda r: (-(r.score or 0.0), r.name.casefold(), r.team_id))
    rows, rank, previous = [], 0, None
    for i, row in enumerate(graded):
        if previous is None or round(row.score or 0.0, SCORE_DIGITS) != previous:
            rank, previous = i + 1, round(row.score or 0.0, SCORE_DIGITS)
        if sees_course_row(sight, row.team_id):
            rows.append(CourseRow(rank if sight.staff else None, *_rest(row)))
    return rows


def in_group(server: Served, sight: Sight, rows: list[CourseRow], group_id: str | None) -> list[CourseRow]:
    """The rows of ``group_id``'s students (a section; a hidden group staff only); None: every row."""
    if group_id is None:
        return rows
    contest = server.contest
    known = any(str(g["id"]) == group_id for g in contest.groups)
    if not known or not sees_group(sight, group_id in contest.hidden_groups):
        raise Refused(400, f"no group {group_id!r}")
    teams = {t.id for t in contest.teams if group_id in t.group_ids}
    return [r for r in rows if r.team_id in teams]


def _rest(row: CourseRow) -> tuple[Any, ...]:
    return (row.team_id, row.name, row.section, row.score, row.cells, row.override)


def _cell_json(c: CourseCell) -> dict[str, Any]:
    out: dict[str, Any] = {"problem_id": c.problem_id, "num_judged": c.submissions - c.pending}
    out["num_pending"] = c.pending
    if c.credit is not None:
        out["score"] = round(c.credit.score, SCORE_DIGITS)
        out["credit"] = {  # ours: what the score after the penalty is made of
            "raw": round(c.credit.raw, SCORE_DIGITS),
            "percent": c.credit.percent,
            "minutes_late": c.credit.minutes_late,
            "note": c.credit.note,
        }
    elif c.hidden:
        out["hidden"] = c.hidden
    return out


def scoreboard_json(server: Served, sight: Sight, group_id: str | None = None) -> dict[str, Any]:
    """The Contest API's scoreboard object of a course: the rows ``sight`` sees (``rank``: among every student
    for staff; a student's own row is ranked 1 among the rows they see), each cell's score after the penalty
    and what it is made of (``credit``, ours); a score hidden from the viewer is left out (``hidden`` says
    until when) and so is the total then. ``group_id``: that group's students only (a section)."""
    show = board_view(sight).show_problems
    rows = []
    for i, r in enumerate(in_group(server, sight, course_rows(server, sight), group_id)):
        row: dict[str, Any] = {
            "rank": r.rank if r.rank is not None else i + 1,
            "team_id": r.team_id,
            "score": {"score": None if r.score is None else round(r.score, SCORE_DIGITS)},
        }
        if show:
            row["problems"] = [_cell_json(c) for c in r.cells]
        rows.append(row)
    info = server.contest.info
    return {
        "time": format_time(sight.now),
        "contest_time": format_reltime(info.contest_time_s(sight.now)),
        "state": sight.phase.state_json(sight.now),
        "rows": rows,
    }
