"""A course's rules at the submit (issue 45, docs/course.md): a student's window (before it opens and after it
closes a submission is refused, 403, saying when) and the assignment's rate limit (a token bucket per team and
problem, course/ratelimit.py: with no token left, a 429 with ``Retry-After`` and the time the next comes back,
and nothing stored). The bucket is a fold over the times of the team's stored submissions of the problem: nothing
new is stored. What the submit page tells a student before they submit (``submit_status``) is the same.

The submit service (submissions.py) asks ``check_window`` before anything is stored and ``check_rate`` inside the
transaction that stores the submission (two submissions at once cannot both take the last token). An admin's
submission for a team (dated, a test) is neither: the contest's own rules apply to it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from judge.course import ratelimit
from judge.course.notes import late_words
from judge.course.ratelimit import RateLimit
from judge.course.window import Phase, credit_at, lasts_until_s
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.services.core.context import Served
from judge.serve.storage import Reader


def _in(seconds: float) -> str:
    """``in 25 min``, ``in 2 h 5 min``, ``in 3 d 4 h``: how long until a moment (rounded up to a minute)."""
    minutes = max(1, math.ceil(seconds / 60 - 1e-9))
    d, rest = divmod(minutes, 1440)
    h, m = divmod(rest, 60)
    parts = [f"{d} d" if d else "", f"{h} h" if h else "", f"{m} min" if m and not d else ""]
    return "in " + " ".join(p for p in parts if p)


def check_window(server: Served, team_id: str, now: float) -> None:
    """A team's submission now is refused (403) before its window opens and after it closes (unless the
    assignment takes late submissions as practice then)."""
    view = server.course.view(server.contest)
    if view is None:
        return
    window = view.window(team_id)
    phase = credit_at(window, now).phase
    if phase is Phase.EARLY:
        assert window.open_s is not None
        raise Refused(
            403, f"the assignment opens at {format_time(window.open_s)} ({_in(window.open_s - now)}): not yet"
        )
    if phase is Phase.CLOSED:
        raise Refused(403, f"the assignment closed at {format_time(window.close_s)}: no more submissions")


def _times(r: Reader, team_id: str, problem_id: str) -> list[float]:
    return [s.time_s for s in r.submissions(team_id=team_id, problem_id=problem_id)]


def _limit(server: Served, problem_id: str) -> RateLimit | None:
    state = server.course.state
    return None if state is None else state.assignment.rate_limit_for(problem_id)


def check_rate(r: Reader, server: Served, team_id: str, problem_id: str, now: float) -> None:
    """No token left in the team's bucket for the problem: a 429 with ``Retry-After`` (seconds) and the time the
    next comes back. Inside the transaction that would store the submission."""
    limit = _limit(server, problem_id)
    if limit is None:
        return
    bucket = ratelimit.replay(limit, _times(r, team_id, problem_id))
    if ratelimit.take(limit, bucket, now) is not None:
        return
    back = ratelimit.status(limit, bucket, now).next_back_s
    assert back is not None  # an empty bucket is refilling
    wait = max(1, math.ceil(back - now - 1e-9))
    raise Refused(
        429,
        f"no submissions left for {problem_id} ({limit.submissions} at once, one back every "
        f"{_span(limit.every_s)}): the next comes back at {format_time(back)} ({_in(back - now)})",
        {"Retry-After": str(wait)},
    )


def _span(seconds: float) -> str:
    """``30 min``, ``1 h``, ``1 d 12 h``, ``45 s``: a rate limit's refill time."""
    return late_words(round(seconds / 60)) if seconds % 60 == 0 else f"{seconds:g} s"


@dataclass(frozen=True)
class ProblemLimit:
    """A problem's rate limit as the submit page says it: how many are left now, when the next comes back and
    when the bucket is full again (None: full)."""

    problem_id: str
    submissions: int  # at once
    every: str  # "30 min"
    left: int
    next_back_s: float | None
    full_s: float | None


@dataclass(frozen=True)
class SubmitStatus:
    """What the submit page tells a student of the assignment now: the phase of their window and its credit
    (``percent``, until ``until_s``: "80 % until Tue 23:59"), the window's times, their override, the limits."""

    phase: str  # early | on-time | late | closed | practice (course/window.Phase)
    percent: float
    until_s: float | None  # when this credit ends (the opening, before it); None: after the close
    open_s: float | None
    due_s: float
    close_s: float
    override: str  # "" | what the override says ("extension 2d", "section B: due ...")
    limits: tuple[ProblemLimit, ...]


def submit_status(server: Served, team_id: str, now: float) -> SubmitStatus | None:
    """The assignment's status for ``team_id`` now (None: the contest is no assignment)."""
    view = server.course.view(server.contest)
    if view is None:
        return None
    resolved = view.resolved(team_id)
    window = resolved.window
    credit = credit_at(window, now)
    override = ""
    if resolved.override is not None:
        label = resolved.override.label
        override = label if resolved.source == "student" else f"{resolved.source}: {label}"
    limits = []
    with server.storage.read() as r:
        for p in server.contest.problems:
            limit = view.assignment.rate_limit_for(p.id)
            if limit is None:
                continue
            st = ratelimit.status(limit, ratelimit.replay(limit, _times(r, team_id, p.id)), now)
            every = _span(limit.every_s)
            limits.append(ProblemLimit(p.id, limit.submissions, every, st.left, st.next_back_s, st.full_s))
    return SubmitStatus(
        credit.phase.value,
        credit.percent,
        lasts_until_s(window, now),
        window.open_s,
        window.due_s,
        window.close_s,
        override,
        tuple(limits),
    )
