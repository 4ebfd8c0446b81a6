"""Feedback rules (judge/course/feedback.py): what each viewer sees of a submission's tests before and after
the switch (the student's own due time, their close, or the grades' publishing), as a table; and the score
hidden until published."""

from __future__ import annotations

import pytest
import yaml

from judge.course.assignment import parse_assignment
from judge.course.feedback import EVERYTHING, NOTHING, FeedbackRules, Level, Shown, Switch, Viewer, shown
from judge.course.window import AfterClose, LateStep, Window

DUE = 1_800_000_000.0
WINDOW = Window(None, DUE, (LateStep(DUE + 86400, 50.0),), AfterClose.CLOSED)
SAMPLES = Shown(True, False, False, False, False)
VERDICTS = Shown(True, True, False, True, True)
BEFORE, LATE, AFTER = DUE - 1, DUE + 10, DUE + 86400 + 10


@pytest.mark.parametrize(
    ("rules", "now", "published", "owner"),
    [
        (FeedbackRules(Level.SAMPLES, Level.DETAILS, Switch.DUE), BEFORE, False, SAMPLES),
        (FeedbackRules(Level.SAMPLES, Level.DETAILS, Switch.DUE), DUE, False, SAMPLES),  # the due time is inclusive
        (FeedbackRules(Level.SAMPLES, Level.DETAILS, Switch.DUE), LATE, False, EVERYTHING),
        (FeedbackRules(Level.SAMPLES, Level.VERDICTS, Switch.CLOSE), LATE, False, SAMPLES),  # late ones still count
        (FeedbackRules(Level.SAMPLES, Level.VERDICTS, Switch.CLOSE), AFTER, False, VERDICTS),
        (FeedbackRules(Level.VERDICTS, Level.DETAILS, Switch.PUBLISHED), AFTER, False, VERDICTS),
        (FeedbackRules(Level.VERDICTS, Level.DETAILS, Switch.PUBLISHED), BEFORE, True, EVERYTHING),
        (
            FeedbackRules(Level.DETAILS, Level.DETAILS, Switch.DUE, True),
            AFTER,
            False,
            Shown(True, True, True, True, False),
        ),
        (FeedbackRules(Level.DETAILS, Level.DETAILS, Switch.DUE, True), AFTER, True, EVERYTHING),
    ],
)
def test_every_viewer_before_and_after(rules: FeedbackRules, now: float, published: bool, owner: Shown) -> None:
    assert shown(rules, Viewer.OWNER, WINDOW, now, published) == owner
    assert shown(rules, Viewer.STAFF, WINDOW, now, published) == EVERYTHING
    assert shown(rules, Viewer.OTHER, WINDOW, now, published) == NOTHING


def test_the_switch_is_the_students_own_due_time() -> None:
    """With an extension, the secret tests stay hidden from that student until their own due time."""
    a = parse_assignment(
        yaml.safe_load(
            "due: 2027-01-15T08:00:00Z\nfeedback: {before: samples}\noverrides: [{students: [s7], extension: 2d}]"
        ),
        "a",
    )
    after_due = a.window.due_s + 3600
    assert shown(a.feedback, Viewer.OWNER, a.resolve("s1", None).window, after_due, False) == EVERYTHING
    assert shown(a.feedback, Viewer.OWNER, a.resolve("s7", None).window, after_due, False) == SAMPLES
    assert not SAMPLES.secret_verdicts and SAMPLES.anything and not NOTHING.anything
