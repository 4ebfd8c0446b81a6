"""`judge grade --assignment FILE [--roster PATH]` (docs/course.md): a contest folder graded as a course's
assignment, with the same rules as `judge serve` and `judge course grades` (judge/course/): every file of a
problem is an attempt, made when times.yaml or the file's time says; each student's window (their override,
their section's), the late penalty, the submission that counts (last or best), group work (a group's folder
counts for each member). The board shows per student and problem the submission that counts and its score
after the penalty; the gradebook is the same rows `judge course grades` writes.

Students: the roster's (a roster CSV, or a course folder's people), else every contestant folder that is not a
group's. A folder that is neither a student's nor a group's is graded for nobody: a notice says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from judge.course.assignment import Assignment
from judge.course.book import graded
from judge.course.export import GradedAssignment
from judge.course.folder import CourseAssignment, check_roster
from judge.course.gradebook import Submission
from judge.course.notes import cell_credit, rules_text
from judge.course.roster import Roster, Student
from judge.course.rostercsv import parse_roster_csv
from judge.course.sitefiles import read_roster
from judge.course.values import CourseError
from judge.grade.discovery import ContestFolder, Issue
from judge.grade.schedule import Summary
from judge.scoreboard.model import AssignmentView, Board, BoardRun, CellCredit, Notice


@dataclass(frozen=True)
class AssignmentSettings:
    assignment: Assignment
    roster: Roster | None  # None: the contestant folders are the students
    id: str  # the gradebook's columns (as `judge course grades`: the contest's id, its folder's name)
    name: str  # the LMS layouts' columns
    gradebook: str = ""  # the gradebook's file name beside the board
    # the assignment's problems, in order (a contest.yaml's problems.yaml beside it); None: every problem graded
    problems: tuple[str, ...] | None = None


def load_roster(path: Path) -> Roster:
    """``--roster``: a roster CSV (columns by header, as `judge course roster import`), or a course folder."""
    if path.is_dir():
        return read_roster(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CourseError(f"{path}: cannot read it ({exc.strerror})") from None
    return Roster(parse_roster_csv(data, str(path)).students)


def students_of(contest: ContestFolder, settings: AssignmentSettings) -> tuple[tuple[Student, ...], list[Issue]]:
    """The students graded, and a notice per folder that is nobody's."""
    a = settings.assignment
    if settings.roster is not None:
        check_roster(a, settings.roster, "--assignment")
        students = settings.roster.students
    else:
        named = {c for c in contest.contestants if c not in a.groups} | a.students_named
        students = tuple(Student(c, c) for c in sorted(named))
    known = {s.id for s in students} | set(a.groups)
    issues = [
        Issue("not-on-roster", c, "not a student of the roster nor a group of the assignment: graded for nobody", c)
        for c in contest.contestants
        if c not in known
    ]
    return students, issues


def submissions(contest: ContestFolder, summary: Summary, times: Mapping[str, float]) -> list[Submission]:
    """Every judged file as a course submission (``ref``: its path in the folder); a judge error scores None."""
    out = []
    for e in contest.entries:
        run = summary.runs.get(e.key)
        if run is None:
            continue  # not judged (its toolchain is missing): a notice already
        score = run.result.score if run.result.verdict.charged else None
        out.append(Submission(e.contestant, e.problem, times[e.rel], score, e.rel))
    return out


def assignment_board(
    board: Board,
    contest: ContestFolder,
    summary: Summary,
    settings: AssignmentSettings,
    times: Mapping[str, float],
) -> tuple[Board, GradedAssignment, list[Issue]]:
    """``board`` (build_board's, every attempt a run) as the assignment's: one row per student, each cell the
    submission that counts (else the last) with its credit; the graded assignment for the gradebook; the
    notices of folders that are nobody's."""
    students, issues = students_of(contest, settings)
    if settings.problems is not None:
        by_id = {p.id: p for p in board.problems}
        missing = [pid for pid in settings.problems if pid not in by_id]
        if missing:
            raise CourseError(f"the assignment's problem {missing[0]!r} is not among the problems graded (--problems)")
        board = replace(board, problems=tuple(by_id[pid] for pid in settings.problems))
    problems = {p.id: p.max_score for p in board.problems}
    course = CourseAssignment(settings.id, settings.name, contest.root, settings.assignment, tuple(problems.items()))
    subs = submissions(contest, summary, times)
    result = graded(course, students, subs)
    by_rel = {e.rel: board.runs[e.key] for e in contest.entries if e.key in board.runs}
    mine: dict[tuple[str, str], list[Submission]] = {}
    for s in students:
        owners = set(settings.assignment.owners(s.id))
        for sub in subs:
            if sub.owner in owners:
                mine.setdefault((s.id, sub.problem), []).append(sub)
    runs: dict[tuple[str, str], BoardRun] = {}
    credits: dict[tuple[str, str], CellCredit] = {}
    for g in result.grades:
        for p in g.problems:
            tried = sorted(mine.get((g.student.id, p.problem), []), key=lambda s: (s.time_s, s.ref))
            shown = p.counted or (tried[-1] if tried else None)
            if shown is None or shown.ref not in by_rel:
                continue
            runs[(g.student.id, p.problem)] = replace(by_rel[shown.ref], contestant=g.student.id)
            credits[(g.student.id, p.problem)] = cell_credit(g, p, shown, settings.assignment.window.due_s)
    view = AssignmentView(credits, rules_text(settings.assignment), settings.gradebook)
    notices = (*board.notices, *(Notice(i.kind, i.path, i.reason, i.contestant) for i in issues))
    new = replace(board, contestants=tuple(s.id for s in students), runs=runs, assignment=view, notices=notices)
    return new, result, issues
