"""The gradebook (issue 45): from the submissions, an assignment, its problems and the roster, per student
the score after the late penalty (and per problem), the raw score, the minutes late and whether an override
was used. Pure.

For each student and problem, the submissions that are theirs (their own and their group's: group work gives
the team's score to each member) are judged under the student's own window (assignment.resolve): each gets
its credit (window.credit_at); those made on time or late and judged (not pending, not a judge error) are
candidates; ``counts: last`` takes the last candidate, ``counts: best`` the one with the most points after
the penalty (the earliest of equals). Practice submissions (after the close), early and refused ones never
count. A student's grade depends on their own submissions and overrides only (tests/test_course_gradebook.py
checks it with Hypothesis).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from judge.course.assignment import Assignment, Counts
from judge.course.roster import Student
from judge.course.window import Credit, Phase, Window, credit_at, minutes_late

SCORE_DIGITS = 6


@dataclass(frozen=True)
class Submission:
    owner: str  # the team that submitted: a student's own id, or a group's team id
    problem: str
    time_s: float  # seconds since the epoch
    score: float | None  # None: not judged yet, or a judge error (never counted, never charged)
    ref: str = ""  # the submission's id or path, for the reports; also the last tie-break


@dataclass(frozen=True)
class ProblemGrade:
    problem: str
    score: float  # after the penalty
    raw: float  # the counted submission's own score
    max_score: float
    percent: float  # the credit applied (100 on time)
    minutes_late: int
    counted: Submission | None  # None: nothing counts (no submission, or none in the window)
    phase: Phase | None  # the counted submission's; else the last submission's (None: no submission)
    submissions: int  # every submission of the student's for this problem, counted or not


@dataclass(frozen=True)
class AssignmentGrade:
    student: Student
    score: float
    raw: float
    max_score: float
    problems: tuple[ProblemGrade, ...]
    minutes_late: int  # the most of any counted submission
    override: str  # "" | "student" | "section <id>": whose window this was
    override_label: str  # what the override says ("extension 2d")
    extension_used: bool  # an override applies and a counted submission was made after the assignment's due

    @property
    def submitted(self) -> bool:
        return any(p.submissions for p in self.problems)


def _rounded(x: float) -> float:
    return round(x, SCORE_DIGITS)


def _choose(assignment: Assignment, graded: Sequence[tuple[Submission, Credit]]) -> tuple[Submission, Credit] | None:
    candidates = [(s, c) for s, c in graded if c.phase.counts and s.score is not None]
    if not candidates:
        return None
    if assignment.counts is Counts.LAST:
        return max(candidates, key=lambda sc: (sc[0].time_s, sc[0].ref, sc[0].score or 0.0))
    return min(
        candidates, key=lambda sc: (-_rounded((sc[0].score or 0.0) * sc[1].percent / 100.0), sc[0].time_s, sc[0].ref)
    )


def grade_problem(
    assignment: Assignment, window: Window, problem: str, max_score: float, mine: Sequence[Submission]
) -> ProblemGrade:
    """One student's grade on one problem from ``mine``, their submissions for it."""
    graded = [(s, credit_at(window, s.time_s)) for s in sorted(mine, key=lambda s: (s.time_s, s.ref))]
    chosen = _choose(assignment, graded)
    if chosen is None:
        phase = graded[-1][1].phase if graded else None
        return ProblemGrade(problem, 0.0, 0.0, max_score, 0.0, 0, None, phase, len(graded))
    sub, credit = chosen
    raw = sub.score or 0.0
    return ProblemGrade(
        problem,
        _rounded(raw * credit.percent / 100.0),
        raw,
        max_score,
        credit.percent,
        minutes_late(window, sub.time_s),
        sub,
        credit.phase,
        len(graded),
    )


def grade_student(
    assignment: Assignment,
    problems: Mapping[str, float],
    student: Student,
    submissions: Iterable[Submission],
) -> AssignmentGrade:
    """``student``'s grade; ``problems``: the assignment's problems (in order) and their maximum scores;
    ``submissions``: any submissions (only the student's own and their group's are read)."""
    owners = set(assignment.owners(student.id))
    resolved = assignment.resolve(student.id, student.section_id)
    by_problem: dict[str, list[Submission]] = {p: [] for p in problems}
    for s in submissions:
        if s.owner in owners and s.problem in by_problem:
            by_problem[s.problem].append(s)
    grades = tuple(grade_problem(assignment, resolved.window, p, m, by_problem[p]) for p, m in problems.items())
    counted = [g.counted for g in grades if g.counted is not None]
    return AssignmentGrade(
        student=student,
        score=_rounded(sum(g.score for g in grades)),
        raw=_rounded(sum(g.raw for g in grades)),
        max_score=_rounded(sum(problems.values())),
        problems=grades,
        minutes_late=max((g.minutes_late for g in grades), default=0),
        override=resolved.source,
        override_label="" if resolved.override is None else resolved.override.label,
        extension_used=resolved.override is not None and any(s.time_s > assignment.window.due_s for s in counted),
    )


def grade_assignment(
    assignment: Assignment,
    problems: Mapping[str, float],
    students: Iterable[Student],
    submissions: Iterable[Submission],
) -> tuple[AssignmentGrade, ...]:
    """Every student's grade, in the order of ``students``."""
    mine: dict[str, list[Submission]] = {}
    for s in submissions:
        mine.setdefault(s.owner, []).append(s)
    out = []
    for student in students:
        theirs = [s for owner in assignment.owners(student.id) for s in mine.get(owner, ())]
        out.append(grade_student(assignment, problems, student, theirs))
    return tuple(out)
