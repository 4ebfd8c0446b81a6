"""An assignment's window for one student: when it opens, when it is due, the late-credit steps, when it
closes, and what a submission made at a given time earns. Pure.

A submission made at ``t`` is, in order: *early* before ``open`` (refused); *on time* up to and including
``due`` (100 %); *late* in the first step whose end is at or after ``t`` (that step's credit); after the close
(the last step's end, or ``due`` without steps) *closed* (refused) or *practice* (accepted and judged, never
counted). Deadlines are inclusive: a submission at 23:59:00 for a 23:59:00 due time is on time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum


class AfterClose(Enum):
    """What a submission after the close is: refused, or judged for practice (it never counts)."""

    CLOSED = "closed"
    PRACTICE = "practice"


class Phase(Enum):
    EARLY = "early"  # before the window opens: refused
    ON_TIME = "on-time"
    LATE = "late"
    CLOSED = "closed"  # after the close: refused
    PRACTICE = "practice"  # after the close: judged, never counted

    @property
    def accepted(self) -> bool:
        """Whether a submission made now is taken (stored and judged)."""
        return self in (Phase.ON_TIME, Phase.LATE, Phase.PRACTICE)

    @property
    def counts(self) -> bool:
        """Whether a submission made now can count toward the grade."""
        return self in (Phase.ON_TIME, Phase.LATE)


@dataclass(frozen=True)
class LateStep:
    """Late submissions made after the previous step's end (or the due time) and up to ``until_s`` earn
    ``percent`` of their score."""

    until_s: float
    percent: float


@dataclass(frozen=True)
class Window:
    """One student's window (the assignment's, or an override's; assignment.window_for)."""

    open_s: float | None  # None: open from the start
    due_s: float
    late: tuple[LateStep, ...] = ()  # increasing ends, all after due_s
    after: AfterClose = AfterClose.CLOSED

    def __post_init__(self) -> None:
        ends = [self.due_s, *(s.until_s for s in self.late)]
        if any(b <= a for a, b in zip(ends, ends[1:], strict=False)):
            raise ValueError("a window's late steps must end one after the other, after the due time")
        if self.open_s is not None and self.open_s > self.due_s:
            raise ValueError("a window cannot open after it is due")

    @property
    def close_s(self) -> float:
        """The last moment a submission counts: the last late step's end, else the due time."""
        return self.late[-1].until_s if self.late else self.due_s


@dataclass(frozen=True)
class Credit:
    """What a submission made at one moment earns: its phase and the percentage of its score that counts."""

    phase: Phase
    percent: float  # 100 on time; the step's when late; 0 otherwise
    step: int | None = None  # the late step's index (0: the first after the due time)


def credit_at(window: Window, t: float) -> Credit:
    """What a submission made at ``t`` (seconds since the epoch) earns under ``window``."""
    if window.open_s is not None and t < window.open_s:
        return Credit(Phase.EARLY, 0.0)
    if t <= window.due_s:
        return Credit(Phase.ON_TIME, 100.0)
    for i, step in enumerate(window.late):
        if t <= step.until_s:
            return Credit(Phase.LATE, step.percent, i)
    if window.after is AfterClose.PRACTICE:
        return Credit(Phase.PRACTICE, 0.0)
    return Credit(Phase.CLOSED, 0.0)


def minutes_late(window: Window, t: float) -> int:
    """Whole minutes after the due time, rounded up (one second late is one minute); 0 on time."""
    return 0 if t <= window.due_s else math.ceil((t - window.due_s) / 60.0 - 1e-9)


def lasts_until_s(window: Window, t: float) -> float | None:
    """Until when the credit of a submission made at ``t`` stays what it is (the page's "80 % until Tuesday
    23:59"): the open before it, the due time on time, the step's end when late; None after the close."""
    credit = credit_at(window, t)
    if credit.phase is Phase.EARLY:
        return window.open_s
    if credit.phase is Phase.ON_TIME:
        return window.due_s
    if credit.step is not None:
        return window.late[credit.step].until_s
    return None
