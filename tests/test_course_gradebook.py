"""The gradebook (judge/course/gradebook.py): hand-computed grades for a late submission under each window
(on time, each late step, practice after the close, early), a student extension, a section override, best vs
last, group work, a judge error, a student with no submission; and a Hypothesis property: a student's grade
depends on their own submissions and overrides only."""

from __future__ import annotations

from dataclasses import replace

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.course.assignment import Assignment, Counts, Override, parse_assignment
from judge.course.gradebook import AssignmentGrade, Submission, grade_assignment, grade_student
from judge.course.roster import Student
from judge.course.window import AfterClose, LateStep, Phase, Window
from judge.scoreboard.times import parse_time

DAY, HOUR, MINUTE = 86400.0, 3600.0, 60.0
OPEN = parse_time("2026-09-01T09:00:00Z", "t")
DUE = parse_time("2026-09-08T23:59:00Z", "t")
LATE_UNTIL = parse_time("2026-09-15T23:59:00Z", "t")
RULES = """
open: 2026-09-01T09:00:00Z
due: 2026-09-08T23:59:00Z
late: [{for: 1d, credit: 80}, {credit: 50}]
late_until: 2026-09-15T23:59:00Z
after_close: practice
counts: last
overrides:
  - {students: [dan], extension: 2d}
  - {section: B, due: "2026-09-09T23:59:00Z"}
groups: {team-x: [gus, hal]}
"""
PROBLEMS = {"p": 100.0, "q": 50.0}
STUDENTS = tuple(
    Student(sid, sid.title(), f"{sid}@uni.example", section)
    for sid, section in [
        ("ann", "A"),
        ("bob", "A"),
        ("cid", "B"),
        ("dan", "A"),
        ("eve", "A"),
        ("fay", "A"),
        ("gus", "A"),
        ("hal", "B"),
    ]
)
SUBMISSIONS = (
    Submission("ann", "p", DUE - HOUR, 100.0, "ann-1"),  # on time: 100
    Submission("ann", "q", DUE + 2 * HOUR, 40.0, "ann-2"),  # late, first step: 80 % of 40 = 32; 120 minutes late
    Submission("bob", "p", DUE - DAY, 60.0, "bob-1"),  # on time: 60 (what `best` keeps)
    Submission("bob", "p", DUE + DAY + 1, 90.0, "bob-2"),  # the second step: 50 % of 90 = 45 (what `last` keeps)
    Submission("bob", "q", LATE_UNTIL + 1, 50.0, "bob-3"),  # practice: judged, never counted
    Submission("cid", "p", DUE + 12 * HOUR, 80.0, "cid-1"),  # section B's due is a day later: on time
    Submission("dan", "p", DUE + DAY + HOUR, 100.0, "dan-1"),  # his extension: on time
    Submission("dan", "q", DUE + 2 * DAY + 2 * HOUR, 50.0, "dan-2"),  # late by his window: 80 % of 50 = 40
    Submission("fay", "p", OPEN - 1, 100.0, "fay-1"),  # before the open: never counts
    Submission("fay", "q", DUE - HOUR, None, "fay-2"),  # a judge error: never counts
    Submission("team-x", "p", DUE - 5 * MINUTE, 70.0, "x-1"),  # group work: 70 for gus and for hal
    Submission("hal", "q", DUE - MINUTE, 10.0, "hal-1"),  # hal's own, beside the group's
    Submission("zed", "p", DUE - MINUTE, 100.0, "zed-1"),  # not on the roster: nobody's
)


def assignment(**changes: object) -> Assignment:
    return replace(parse_assignment(yaml.safe_load(RULES), "rules"), **changes)  # type: ignore[arg-type]


def summary(g: AssignmentGrade) -> tuple[object, ...]:
    return (
        g.student.id,
        g.score,
        g.raw,
        tuple((p.score, p.raw, p.percent, p.minutes_late) for p in g.problems),
        g.minutes_late,
        g.override,
        g.extension_used,
        g.submitted,
    )


def test_hand_computed_gradebook_last() -> None:
    grades = grade_assignment(assignment(), PROBLEMS, STUDENTS, SUBMISSIONS)
    assert [summary(g) for g in grades] == [
        ("ann", 132.0, 140.0, ((100.0, 100.0, 100.0, 0), (32.0, 40.0, 80.0, 120)), 120, "", False, True),
        ("bob", 45.0, 90.0, ((45.0, 90.0, 50.0, 1441), (0.0, 0.0, 0.0, 0)), 1441, "", False, True),
        ("cid", 80.0, 80.0, ((80.0, 80.0, 100.0, 0), (0.0, 0.0, 0.0, 0)), 0, "section B", True, True),
        ("dan", 140.0, 150.0, ((100.0, 100.0, 100.0, 0), (40.0, 50.0, 80.0, 120)), 120, "student", True, True),
        ("eve", 0.0, 0.0, ((0.0, 0.0, 0.0, 0), (0.0, 0.0, 0.0, 0)), 0, "", False, False),
        ("fay", 0.0, 0.0, ((0.0, 0.0, 0.0, 0), (0.0, 0.0, 0.0, 0)), 0, "", False, True),
        ("gus", 70.0, 70.0, ((70.0, 70.0, 100.0, 0), (0.0, 0.0, 0.0, 0)), 0, "", False, True),
        ("hal", 80.0, 80.0, ((70.0, 70.0, 100.0, 0), (10.0, 10.0, 100.0, 0)), 0, "section B", False, True),
    ]
    bob = grades[1]
    assert bob.problems[0].counted is not None and bob.problems[0].counted.ref == "bob-2"
    assert bob.problems[1].phase is Phase.PRACTICE and bob.problems[1].submissions == 1
    assert grades[5].problems[0].phase is Phase.EARLY
    assert grades[3].override_label == "extension 2d" and grades[2].override_label.startswith("due 2026-09-09T23:59")
    assert all(g.max_score == 150.0 for g in grades)


def test_best_keeps_the_most_points_after_the_penalty() -> None:
    grades = grade_assignment(assignment(counts=Counts.BEST), PROBLEMS, STUDENTS, SUBMISSIONS)
    bob = grades[1]
    assert (bob.score, bob.raw, bob.minutes_late) == (60.0, 60.0, 0)
    assert bob.problems[0].counted is not None and bob.problems[0].counted.ref == "bob-1"
    # of equal points after the penalty, the earliest: 100 % of 40 at 10:00 and 80 % of 50 after the due time
    equal = [Submission("ann", "q", DUE - HOUR, 40.0, "b"), Submission("ann", "q", DUE + HOUR, 50.0, "a")]
    g = grade_student(assignment(counts=Counts.BEST), PROBLEMS, STUDENTS[0], equal)
    assert g.problems[1].counted is not None and g.problems[1].counted.ref == "b"


def test_closed_after_the_close_and_a_lower_later_score_under_last() -> None:
    closed = assignment(window=replace(assignment().window, after=AfterClose.CLOSED))
    late = [Submission("eve", "p", DUE - HOUR, 100.0, "1"), Submission("eve", "p", LATE_UNTIL + 5, 100.0, "2")]
    g = grade_student(closed, PROBLEMS, STUDENTS[4], late)
    assert (g.score, g.problems[0].counted.ref if g.problems[0].counted else None) == (100.0, "1")
    # `last` means the last: a worse resubmission on time replaces a better one
    worse = [Submission("eve", "p", DUE - HOUR, 100.0, "1"), Submission("eve", "p", DUE - MINUTE, 20.0, "2")]
    assert grade_student(assignment(), PROBLEMS, STUDENTS[4], worse).score == 20.0


# --- the property: a student's grade is a function of their own submissions and overrides -----------------

NAMES = ["s1", "s2", "s3", "s4", "s5"]
SECTIONS = ["A", "B"]
times = st.integers(-3 * 24, 12 * 24).map(lambda h: DUE + h * HOUR + 0.5)
windows = st.builds(
    lambda shift_h, steps: Window(
        OPEN,
        DUE + shift_h * HOUR,
        tuple(LateStep(DUE + shift_h * HOUR + (i + 1) * DAY, pct) for i, pct in enumerate(steps)),
        AfterClose.PRACTICE,
    ),
    st.integers(0, 72),
    st.lists(st.sampled_from([80.0, 50.0, 25.0]), max_size=3),
)


@st.composite
def courses(draw: st.DrawFn) -> tuple[Assignment, tuple[Student, ...], tuple[Submission, ...]]:
    students = tuple(Student(n, n, "", draw(st.sampled_from(SECTIONS))) for n in NAMES)
    overrides = []
    for n in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3)):
        overrides.append(Override((n,), (), draw(windows), f"for {n}"))
    for s in draw(st.lists(st.sampled_from(SECTIONS), unique=True, max_size=2)):
        overrides.append(Override((), (s,), draw(windows), f"for {s}"))
    members = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    groups = {"g1": tuple(members)} if members else {}
    a = Assignment(
        window=draw(windows), counts=draw(st.sampled_from(list(Counts))), overrides=tuple(overrides), groups=groups
    )
    owners = NAMES + (["g1"] if groups else []) + ["nobody"]
    subs = draw(
        st.lists(
            st.builds(
                Submission,
                st.sampled_from(owners),
                st.sampled_from(sorted(PROBLEMS)),
                times,
                st.one_of(st.none(), st.sampled_from([0.0, 10.0, 25.0, 50.0])),
                st.sampled_from(["a", "b", "c"]),
            ),
            max_size=25,
        )
    )
    return a, students, tuple(subs)


@settings(max_examples=300, deadline=None)
@given(courses(), st.sampled_from(range(len(NAMES))))
def test_a_grade_depends_on_the_students_own_submissions_and_overrides(
    course: tuple[Assignment, tuple[Student, ...], tuple[Submission, ...]], i: int
) -> None:
    a, students, subs = course
    me = students[i]
    everyone = grade_assignment(a, PROBLEMS, students, subs)[i]
    mine = tuple(o for o in a.overrides if me.id in o.students or me.section in o.sections)
    groups = {t: m for t, m in a.groups.items() if me.id in m}
    alone = replace(a, overrides=mine, groups=groups)
    own = tuple(s for s in subs if s.owner in a.owners(me.id))
    assert grade_student(alone, PROBLEMS, me, own) == everyone
    assert grade_student(alone, PROBLEMS, me, subs) == everyone  # it reads only the student's own
    # nor on the order the submissions come in
    assert grade_assignment(a, PROBLEMS, students, tuple(reversed(subs)))[i] == everyone
