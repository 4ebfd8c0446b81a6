"""Feedback rules (issue 45): what a student sees of their own submission's tests, before and after their due
time, and whether they see its score before the instructor publishes the grades. Pure: `judge serve`'s
visibility module asks ``shown`` for every channel (the API, the feed, the pages, the downloads), so that they
agree.

The levels, from least to most:

- ``samples``: the sample tests' verdicts and details only; nothing of the secret tests, and neither the
  submission's verdict nor its score (both would tell how the secret tests went);
- ``verdicts``: also every secret test's verdict, the submission's verdict and its score;
- ``details``: everything a contest shows (each test's time, the judge's message, the output shown).

``before`` applies until the switch, ``after`` from then on; the switch is the student's own due time
(``due``), their window's close (``close``: no late submission can use what the secret tests said), or the
instructor's publishing of the grades (``published``). ``score: published`` hides the score (not the
verdict) until the grades are published. Staff see everything; nobody sees another student's submission.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from judge.course.values import choice, mapping
from judge.course.window import Window


class Level(Enum):
    SAMPLES = "samples"
    VERDICTS = "verdicts"
    DETAILS = "details"


class Switch(Enum):
    DUE = "due"
    CLOSE = "close"
    PUBLISHED = "published"


class Viewer(Enum):
    STAFF = "staff"  # judges (TAs) and admins (instructors)
    OWNER = "owner"  # the student (or a member of the team) who submitted
    OTHER = "other"  # another student, the public


@dataclass(frozen=True)
class FeedbackRules:
    before: Level = Level.DETAILS
    after: Level = Level.DETAILS
    switch: Switch = Switch.DUE
    score_published_only: bool = False  # ``score: published``


@dataclass(frozen=True)
class Shown:
    """How much of one submission a viewer sees now."""

    sample_tests: bool  # the sample tests' verdicts and details
    secret_verdicts: bool  # each secret test's verdict
    secret_details: bool  # each secret test's time, message and output
    verdict: bool  # the submission's verdict
    score: bool

    @property
    def anything(self) -> bool:
        return self.sample_tests or self.verdict or self.score


EVERYTHING = Shown(True, True, True, True, True)
NOTHING = Shown(False, False, False, False, False)
_LEVELS = {
    Level.SAMPLES: Shown(True, False, False, False, False),
    Level.VERDICTS: Shown(True, True, False, True, True),
    Level.DETAILS: EVERYTHING,
}
KEYS = ("before", "after", "switch", "score")


def switched(rules: FeedbackRules, window: Window, now: float, published: bool) -> bool:
    """Whether ``after`` applies now to a student with ``window``."""
    if rules.switch is Switch.PUBLISHED:
        return published
    return now > (window.due_s if rules.switch is Switch.DUE else window.close_s)


def shown(rules: FeedbackRules, viewer: Viewer, window: Window, now: float, published: bool) -> Shown:
    """What ``viewer`` sees now of a submission of a student whose window is ``window``."""
    if viewer is Viewer.STAFF:
        return EVERYTHING
    if viewer is Viewer.OTHER:
        return NOTHING
    level = rules.after if switched(rules, window, now, published) else rules.before
    out = _LEVELS[level]
    if rules.score_published_only and not published:
        out = Shown(out.sample_tests, out.secret_verdicts, out.secret_details, out.verdict, False)
    return out


def parse_feedback(value: Any, where: str, base: FeedbackRules | None = None) -> FeedbackRules:
    """An assignment's (or a problem's) ``feedback:`` mapping; a problem's keys replace the assignment's."""
    base = base or FeedbackRules()
    data: Mapping[str, Any] = mapping(value, where, KEYS)
    levels = [level.value for level in Level]

    def level(key: str, default: Level) -> Level:
        return Level(choice(data[key], f"{where}.{key}", levels)) if key in data else default

    switch = base.switch
    if "switch" in data:
        switch = Switch(choice(data["switch"], f"{where}.switch", [s.value for s in Switch]))
    score = base.score_published_only
    if "score" in data:
        score = choice(data["score"], f"{where}.score", ("shown", "published")) == "published"
    return FeedbackRules(level("before", base.before), level("after", base.after), switch, score)
