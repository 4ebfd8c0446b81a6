"""What every service receives of the contest it serves: ``Served``, a Protocol of the parts that every
domain reads (the contest as it is now, its languages, storage, clock, phases and event bus, the log, and
what a viewer may see). Each domain's ``context.py`` adds the parts of its own (the board's cache, the
people's logins and sessions, the judging queue and pool, the print queue, the statements); the wiring
(serve/site/server.py's ``Server``) has them all, and is imported by no service.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from judge.languages.table import Language
from judge.serve.model.contest import Contest
from judge.serve.model.times import Clock
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.coursework import Coursework
from judge.serve.services.core.events import EventBus
from judge.serve.services.core.standing import Standing
from judge.serve.services.core.timeline import Timeline
from judge.serve.storage import Storage
from judge.serve.visibility import Sight


class Served(Protocol):
    @property
    def contest(self) -> Contest:
        """The contest as it is now: the package with the admins' changes (times, teams, accounts, versions)."""
        ...

    @property
    def languages(self) -> Mapping[str, Language]: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def timeline(self) -> Timeline:
        """The contest's phases (core/timeline.py)."""
        ...

    @property
    def bus(self) -> EventBus:
        """The event log and the open feeds' wake-ups (core/events.py)."""
        ...

    @property
    def log(self) -> Callable[[str], None]: ...

    @property
    def standing(self) -> Standing:
        """What the site's admins set of the contest (archived: read-only; core/standing.py)."""
        ...

    @property
    def course(self) -> Coursework:
        """A course's assignment in force (issue 45; ``state`` None: the contest is no assignment)."""
        ...

    def sight(self, viewer: Viewer, now: float) -> Sight:
        """What ``viewer`` may see now (visibility.py)."""
        ...
