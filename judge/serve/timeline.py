"""The contest's phases (started, frozen, ended, thawed) as time passes, and the events they cause.

``tick()`` is called before every request and once a second by the server's clock thread: when the state
object changes (the contest starts, the board freezes, the contest ends, the board thaws) it publishes
the new state, and lets the server publish what the change reveals (problems at the start; the frozen
judgements at the thaw). The thaw is recorded in the database (``thawed_at``), so the REST views and the
event feed agree on it. The freeze comes from contest.yaml, unless an admin froze the board earlier
(``freeze_now``, recorded as ``freeze_time``): ``freeze_s`` is the one in force.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from judge.serve.contest import ContestInfo
from judge.serve.db import Database, set_meta
from judge.serve.events import EventBus, dump, publish_if_changed
from judge.serve.records import contest_json
from judge.serve.times import Clock, format_time

# (conn, now, thawed_from): publish what a phase change reveals, inside the transaction; ``thawed_from`` is
# the freeze time when the board thawed just now (the results of submissions since then are revealed).
OnChange = Callable[[sqlite3.Connection, float, float | None], None]


class Timeline:
    def __init__(self, info: ContestInfo, db: Database, clock: Clock, bus: EventBus, on_change: OnChange) -> None:
        self.info = info
        self._db = db
        self._clock = clock
        self._bus = bus
        self._on_change = on_change
        self._lock = threading.Lock()
        thaw = db.get_meta("thaw_time")
        thawed = db.get_meta("thawed_at")
        frozen = db.get_meta("freeze_time")
        self._freeze_s = float(frozen) if frozen is not None else info.freeze_s
        self._thaw_s = float(thaw) if thaw is not None else info.thaw_s
        self._thawed_at = float(thawed) if thawed is not None else None
        self._last = ""

    def now(self) -> float:
        return self._clock.now()

    @property
    def thaw_s(self) -> float | None:
        """When the board thaws (or thawed); None: not set."""
        return self._thaw_s

    @property
    def thawed_at(self) -> float | None:
        return self._thawed_at

    @property
    def freeze_s(self) -> float | None:
        """When the board freezes (or froze); None: never."""
        return self._freeze_s

    def freeze_duration_s(self) -> float:
        """The contest's scoreboard_freeze_duration, as it is now (after an early freeze: longer)."""
        end = self.info.end_s
        if self._freeze_s is None or end is None:
            return self.info.freeze_duration_s
        return end - self._freeze_s

    def contest_json(self) -> dict[str, Any]:
        """The Contest API's contest object as it is now (the thaw and the freeze in force)."""
        return contest_json(self.info, self._thaw_s, self.freeze_duration_s())

    def started(self, now: float) -> bool:
        return self.info.start_s is not None and now >= self.info.start_s

    def running(self, now: float) -> bool:
        end = self.info.end_s
        return self.started(now) and end is not None and now < end

    def board_frozen(self, now: float) -> bool:
        """Whether public and teams see the frozen board now."""
        freeze = self._freeze_s
        return freeze is not None and now >= freeze and self._thawed_at is None

    def frozen_from(self, now: float) -> float | None:
        """The freeze time while public and teams see the frozen board; None when they see it live."""
        return self._freeze_s if self.board_frozen(now) else None

    def hidden_by_freeze(self, submission_time_s: float, now: float) -> bool:
        """A submission whose result public and other teams do not see yet."""
        freeze = self._freeze_s
        return freeze is not None and submission_time_s >= freeze and self.board_frozen(now)

    def state_json(self, now: float) -> dict[str, Any]:
        info = self.info
        freeze, end = self._freeze_s, info.end_s

        def at(t: float | None) -> str | None:
            return format_time(t) if t is not None and now >= t else None

        frozen = at(freeze)
        return {
            "started": at(info.start_s),
            "frozen": frozen,
            "ended": at(end),
            "thawed": format_time(self._thawed_at) if self._thawed_at is not None and frozen else None,
            "finalized": None,
            "end_of_updates": None,
        }

    def _thaw_due(self, now: float) -> bool:
        return (
            self._freeze_s is not None
            and self._thawed_at is None
            and self._thaw_s is not None
            and now >= self._thaw_s
            and now >= self._freeze_s
        )

    def tick(self) -> None:
        now = self._clock.now()
        thaw_due = self._thaw_due(now)
        key = dump(self.state_json(now)) + str(thaw_due)
        if key == self._last:
            return
        with self._lock:
            thaw_due = self._thaw_due(now)
            thawed_at = self._thaw_s if thaw_due else self._thawed_at
            with self._db.write() as conn:
                if thaw_due:
                    assert thawed_at is not None
                    set_meta(conn, "thawed_at", repr(thawed_at))
                    self._thawed_at = thawed_at
                try:
                    publish_if_changed(conn, "state", None, self.state_json(now), now=now)
                    self._on_change(conn, now, self._freeze_s if thaw_due else None)
                except BaseException:
                    if thaw_due:
                        self._thawed_at = None
                    raise
            self._last = dump(self.state_json(now)) + "False"
        self._bus.notify()

    def freeze_refusal(self, now: float) -> str | None:
        """Why the board cannot be frozen now (one line), or None: the contest is running and the board
        is neither frozen nor thawed yet."""
        if not self.running(now):
            return "the contest is not running: there is nothing to freeze"
        if self._thawed_at is not None:
            return f"the scoreboard was thawed at {format_time(self._thawed_at)}"
        if self._freeze_s is not None and now >= self._freeze_s:
            return f"the scoreboard is frozen since {format_time(self._freeze_s)}"
        return None

    def freeze_now(self) -> float:
        """Freeze the board now (an admin's button). Returns the freeze time; raises ValueError (one
        line, ``freeze_refusal``) when it cannot be frozen."""
        with self._lock:
            now = self._clock.now()
            refusal = self.freeze_refusal(now)
            if refusal is not None:
                raise ValueError(refusal)
            with self._db.write() as conn:
                set_meta(conn, "freeze_time", repr(now))
            self._freeze_s = now
            self._last = ""
        self.tick()
        return now

    def set_thaw(self, thaw_s: float) -> None:
        """Schedule the thaw (an admin's PATCH); ``tick`` carries it out when the time comes."""
        with self._lock:
            with self._db.write() as conn:
                set_meta(conn, "thaw_time", repr(thaw_s))
            self._thaw_s = thaw_s
            self._last = ""
        self.tick()
