"""An assignment's rules read from YAML (judge/course/assignment.py): the window and its late steps, the
credit a submission made at a given moment earns, overrides per student and per section (the late timeline
moves with the due time), group work, rate limits and feedback per problem; every mistake one line."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from judge.course.assignment import Counts, parse_assignment
from judge.course.feedback import Level, Switch
from judge.course.ratelimit import RateLimit
from judge.course.values import CourseError
from judge.course.window import AfterClose, LateStep, Phase, Window, credit_at, lasts_until_s, minutes_late
from judge.scoreboard.times import parse_time

DAY, HOUR, MINUTE = 86400.0, 3600.0, 60.0
OPEN = parse_time("2026-09-01T09:00:00Z", "t")
DUE = parse_time("2026-09-08T23:59:00Z", "t")
LATE_UNTIL = parse_time("2026-09-15T23:59:00Z", "t")

EXAMPLE = """
open: 2026-09-01T09:00:00Z
due: 2026-09-08T23:59:00Z
late:
  - {for: 1d, credit: 80}
  - {credit: 50}
late_until: 2026-09-15T23:59:00Z
after_close: practice
counts: best
overrides:
  - {students: [s007], extension: 2d, note: medical}
  - {section: B, due: "2026-09-09T23:59:00Z"}
  - {students: [s010], late_until: "2026-09-09T12:00:00Z"}
groups: {team-1: [s001, s002]}
rate_limit: {submissions: 5, every: 30m}
feedback: {before: samples, after: details, switch: close}
problems:
  hello: {rate_limit: {submissions: 10, every: 10m}, feedback: {before: verdicts}}
  coins: {rate_limit: null}
"""


def parse(text: str) -> Any:
    return parse_assignment(yaml.safe_load(text), "hw1/contest.yaml: assignment")


def test_the_example_of_the_docs() -> None:
    a = parse(EXAMPLE)
    assert a.window == Window(OPEN, DUE, (LateStep(DUE + DAY, 80.0), LateStep(LATE_UNTIL, 50.0)), AfterClose.PRACTICE)
    assert a.counts is Counts.BEST
    assert a.groups == {"team-1": ("s001", "s002")}
    assert a.owners("s002") == ("s002", "team-1") and a.owners("s003") == ("s003",)
    assert a.rate_limit_for("go") == RateLimit(5, 1800.0)
    assert a.rate_limit_for("hello") == RateLimit(10, 600.0)
    assert a.rate_limit_for("coins") is None
    assert a.feedback_for("go").before is Level.SAMPLES and a.feedback_for("go").switch is Switch.CLOSE
    # a problem's feedback keys replace the assignment's, the others stay
    assert a.feedback_for("hello").before is Level.VERDICTS and a.feedback_for("hello").switch is Switch.CLOSE


def test_the_credit_along_the_timeline() -> None:
    w = parse(EXAMPLE).window
    cases = [
        (OPEN - 1, Phase.EARLY, 0.0),
        (OPEN, Phase.ON_TIME, 100.0),
        (DUE, Phase.ON_TIME, 100.0),  # inclusive
        (DUE + 1, Phase.LATE, 80.0),
        (DUE + DAY, Phase.LATE, 80.0),
        (DUE + DAY + 1, Phase.LATE, 50.0),
        (LATE_UNTIL, Phase.LATE, 50.0),
        (LATE_UNTIL + 1, Phase.PRACTICE, 0.0),
    ]
    for t, phase, pct in cases:
        c = credit_at(w, t)
        assert (c.phase, c.percent) == (phase, pct), t
    assert minutes_late(w, DUE) == 0 and minutes_late(w, DUE + 1) == 1 and minutes_late(w, DUE + 61) == 2
    assert lasts_until_s(w, OPEN - 5) == OPEN
    assert lasts_until_s(w, DUE - 5) == DUE
    assert lasts_until_s(w, DUE + 5) == DUE + DAY
    assert lasts_until_s(w, LATE_UNTIL + 5) is None
    assert Phase.PRACTICE.accepted and not Phase.PRACTICE.counts and not Phase.CLOSED.accepted


def test_a_student_extension_moves_the_whole_late_timeline() -> None:
    r = parse(EXAMPLE).resolve("s007", "B")  # a student's override beats their section's
    assert r.source == "student" and r.override is not None and r.override.note == "medical"
    assert r.window == Window(
        OPEN, DUE + 2 * DAY, (LateStep(DUE + 3 * DAY, 80.0), LateStep(LATE_UNTIL + 2 * DAY, 50.0)), AfterClose.PRACTICE
    )
    assert r.override.label == "extension 2d"


def test_a_section_override_and_a_cut_close() -> None:
    a = parse(EXAMPLE)
    b = a.resolve("s003", "B")
    assert b.source == "section B"
    assert b.window.due_s == DUE + DAY and b.window.close_s == LATE_UNTIL + DAY
    cut = a.resolve("s010", None)  # late_until before the first step's end: one step, cut there
    assert cut.window.late == (LateStep(parse_time("2026-09-09T12:00:00Z", "t"), 80.0),)
    assert a.resolve("s003", "A").override is None and a.resolve("s003", "A").window == a.window


def test_a_later_close_lengthens_the_last_step() -> None:
    a = parse(
        "due: 2026-09-08T23:59:00Z\nlate: [{for: 1d, credit: 80}]\n"
        "overrides: [{students: [x], late_until: '2026-09-12T23:59:00Z'}]"
    )
    assert a.window.close_s == DUE + DAY
    assert a.resolve("x", None).window.late == (LateStep(DUE + 4 * DAY, 80.0),)


def test_defaults_no_late_period_closed_last() -> None:
    a = parse("due: 2026-09-08T23:59:00Z")
    assert a.window == Window(None, DUE, (), AfterClose.CLOSED)
    assert a.counts is Counts.LAST and a.rate_limit is None
    assert credit_at(a.window, DUE + 1).phase is Phase.CLOSED
    assert credit_at(a.window, 0).phase is Phase.ON_TIME  # no `open`: open from the start


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("open: 2026-09-01T09:00:00Z", "`due` is required"),
        ("due: 2026-09-08T23:59:00", "has no time zone"),
        (
            "due: 2026-09-08T23:59:00Z\nlate_until: 2026-09-01T00:00:00Z",
            "late_until: 2026-09-01T00:00:00.000+00:00 is before",
        ),
        ("due: 2026-09-08T23:59:00Z\nlate_until: 2026-09-09T12:00:00Z", "a late period needs `late` steps"),
        ("due: 2026-09-08T23:59:00Z\nlate: [{credit: 50}]", "late[0]: needs `for: SPAN` or `until: TIME`"),
        ("due: 2026-09-08T23:59:00Z\nlate: [{for: 1d, credit: 120}]", "late[0].credit: 120 is not between 0 and 100"),
        ("due: 2026-09-08T23:59:00Z\nlate: [{for: 1x, credit: 50}]", "late[0].for: expected a length of time"),
        (
            "due: 2026-09-08T23:59:00Z\nlate: [{for: 2d, credit: 80}, {until: 2026-09-09T00:00:00Z, credit: 50}]",
            "late[1]: ends at 2026-09-09T00:00:00.000+00:00, not after the step before it",
        ),
        (
            "due: 2026-09-08T23:59:00Z\nlate: [{for: 2d, credit: 80}]\nlate_until: 2026-09-09T23:59:00Z",
            "late: the last step ends after late_until",
        ),
        ("due: 2026-09-08T23:59:00Z\ncounts: first", "counts: expected one of last, best, got 'first'"),
        ("due: 2026-09-08T23:59:00Z\ndeadline: 2026-09-08T23:59:00Z", "unknown key 'deadline'"),
        ("due: 2026-09-08T23:59:00Z\noverrides: [{students: [a], section: B, extension: 1d}]", "not both"),
        ("due: 2026-09-08T23:59:00Z\noverrides: [{students: [a]}]", "changes nothing"),
        (
            "due: 2026-09-08T23:59:00Z\noverrides: [{students: [a], extension: 1d}, {students: [a], extension: 2d}]",
            "'a' has two overrides",
        ),
        (
            "due: 2026-09-08T23:59:00Z\noverrides: [{students: [a], due: 2026-09-01T00:00:00Z}]\n"
            "open: 2026-09-02T00:00:00Z",
            "overrides[0]: the window would open",
        ),
        ("due: 2026-09-08T23:59:00Z\ngroups: {t1: [a, b], t2: [b]}", "'b' is in two groups (t1 and t2)"),
        (
            "due: 2026-09-08T23:59:00Z\nrate_limit: {submissions: 0, every: 1m}",
            "rate_limit.submissions: expected a whole",
        ),
        ("due: 2026-09-08T23:59:00Z\nrate_limit: {submissions: 3}", "expected {submissions: N, every: SPAN}"),
        ("due: 2026-09-08T23:59:00Z\nfeedback: {before: hidden}", "feedback.before: expected one of samples"),
        ("due: 2026-09-08T23:59:00Z\nproblems: {hello: {points: 3}}", "problems.hello: unknown key 'points'"),
        ("- due", "expected a mapping"),
    ],
)
def test_mistakes_are_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(CourseError) as info:
        parse(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value) and str(info.value).startswith("hw1/contest.yaml: assignment")
