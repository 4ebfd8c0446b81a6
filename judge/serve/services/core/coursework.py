"""A contest served as a course's assignment (issue 45, docs/course.md): its rules in force, held whole and
replaced on each change (the instructor publishes the grades, sets overrides), read by every domain through
``Served.course`` and by visibility.py through ``Sight.course``. A contest that is no assignment has none.

What changes while serving is kept in the contest database's ``meta``, over contest.yaml (which stays the
instructor's input, as the schedule's changes do): ``course_published`` (when the grades were published),
``course_overrides`` (the overrides set on the roster page: course/overrides.py),
``course_switched`` (until when the event feed has what the feedback rules show: services/judging/
course_feedback.py publishes again what a switch time passing shows)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from judge.course.assignment import Assignment, parse_assignment
from judge.course.overrides import loads, with_overrides
from judge.course.values import CourseError
from judge.serve.model.contest import Contest
from judge.serve.model.contest_values import ContestError
from judge.serve.model.course import CourseView, ServedAssignment
from judge.serve.storage import Reader, Storage

PUBLISHED_KEY = "course_published"
SWITCHED_KEY = "course_switched"
OVERRIDES_KEY = "course_overrides"


@dataclass(frozen=True)
class CourseState:
    served: ServedAssignment  # contest.yaml's
    assignment: Assignment  # in force
    published_s: float | None = None
    switched_s: float | None = None  # the feed has the feedback as it is at this time (None: not recorded yet)
    extra: tuple[Mapping[str, Any], ...] = ()  # the overrides set while serving (course/overrides.py)


def _float(text: str | None) -> float | None:
    return float(text) if text else None


def in_force(served: ServedAssignment, extra: Sequence[Mapping[str, Any]]) -> Assignment:
    """contest.yaml's assignment with the overrides set while serving laid over it. Raises CourseError."""
    if not extra:
        return served.assignment
    return parse_assignment(with_overrides(served.raw, extra), f"{served.where} (with the roster page's overrides)")


def stored_state(served: ServedAssignment, r: Reader) -> CourseState:
    """The rules in force: contest.yaml's with what was changed while serving (``meta``). Raises ContestError
    when the stored overrides no longer fit contest.yaml (one line)."""
    published = _float(r.get_meta(PUBLISHED_KEY))
    try:
        extra = loads(r.get_meta(OVERRIDES_KEY), f"{served.where}: the overrides set while serving")
        assignment = in_force(served, extra)
    except CourseError as exc:
        raise ContestError(str(exc)) from None
    return CourseState(served, assignment, published, _float(r.get_meta(SWITCHED_KEY)), tuple(extra))


class CourseContest(Protocol):
    """A contest of the course, as its gradebook reads it (a ``Server``)."""

    @property
    def contest(self) -> Contest: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def course(self) -> Coursework: ...


class Coursework:
    """The course's rules in force (None: the contest is no assignment); replaced, never changed. The wiring
    also tells it where the course is: ``root``, the site's folder (its people's files: the roster), and
    ``contests``, the site's contests in its order (the course's gradebook has every assignment)."""

    def __init__(self) -> None:
        self._state: CourseState | None = None
        self.lock = threading.Lock()  # one change at a time
        self.root: Path | None = None
        self.contests: Callable[[], Sequence[CourseContest]] = lambda: ()

    @property
    def state(self) -> CourseState | None:
        return self._state

    def set(self, state: CourseState | None) -> None:
        self._state = state

    def view(self, contest: Contest) -> CourseView | None:
        """The rules with the contest whose teams they apply to (``Sight.course``)."""
        state = self._state
        return None if state is None else CourseView(state.assignment, contest, state.published_s)
