"""A contest served as a course's assignment (issue 45, docs/course.md): its rules in force, held whole and
replaced on each change (the instructor publishes the grades, sets overrides), read by every domain through
``Served.course`` and by visibility.py through ``Sight.course``. A contest that is no assignment has none.

What changes while serving is kept in the contest database's ``meta``, over contest.yaml (which stays the
instructor's input, as the schedule's changes do): ``course_published`` (when the grades were published),
``course_switched`` (until when the event feed has what the feedback rules show: services/judging/
course_feedback.py publishes again what a switch time passing shows)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from judge.course.assignment import Assignment
from judge.serve.model.contest import Contest
from judge.serve.model.course import CourseView, ServedAssignment
from judge.serve.storage import Reader

PUBLISHED_KEY = "course_published"
SWITCHED_KEY = "course_switched"


@dataclass(frozen=True)
class CourseState:
    served: ServedAssignment  # contest.yaml's
    assignment: Assignment  # in force
    published_s: float | None = None
    switched_s: float | None = None  # the feed has the feedback as it is at this time (None: not recorded yet)


def _float(text: str | None) -> float | None:
    return float(text) if text else None


def stored_state(served: ServedAssignment, r: Reader) -> CourseState:
    """The rules in force: contest.yaml's with what was changed while serving (``meta``)."""
    published = _float(r.get_meta(PUBLISHED_KEY))
    return CourseState(served, served.assignment, published, _float(r.get_meta(SWITCHED_KEY)))


class Coursework:
    """The course's rules in force (None: the contest is no assignment); replaced, never changed."""

    def __init__(self) -> None:
        self._state: CourseState | None = None
        self.lock = threading.Lock()  # one change at a time

    @property
    def state(self) -> CourseState | None:
        return self._state

    def set(self, state: CourseState | None) -> None:
        self._state = state

    def view(self, contest: Contest) -> CourseView | None:
        """The rules with the contest whose teams they apply to (``Sight.course``)."""
        state = self._state
        return None if state is None else CourseView(state.assignment, contest, state.published_s)
