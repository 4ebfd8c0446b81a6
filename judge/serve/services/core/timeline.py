"""The contest's phases (started, frozen, ended, thawed) as time passes, and the events they cause.

``tick()`` is called before every request and once a second by the server's clock thread: when the state
object changes (the contest starts, the board freezes, the contest ends, the board thaws) it publishes
the new state, and lets the server publish what the change reveals (problems at the start; the frozen
judgements at the thaw). The thaw is recorded in the database (``thawed_at``), so the REST views and the
event feed agree on it. The freeze comes from contest.yaml, unless an admin froze the board earlier
(``freeze_now``, recorded as ``freeze_time``): the ``Phase`` holds the one in force.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from judge.serve.model import language_factors
from judge.serve.model.apijson import contest_json
from judge.serve.model.contest import ContestInfo
from judge.serve.model.live_settings import META_KEY as LIVE_SETTINGS
from judge.serve.model.live_settings import LiveSettings
from judge.serve.model.phase import Phase
from judge.serve.model.schedule import Schedule, ScheduleChange, ScheduleError, apply, removed_refusal
from judge.serve.model.times import Clock
from judge.serve.services.core.events import EventBus, dump, publish_if_changed
from judge.serve.storage import Reader, Storage, Writer

# (writer, now, thawed_from): publish what a phase change reveals, inside the transaction; ``thawed_from``
# is the freeze time when the board thawed just now (the results of submissions since then are revealed).
OnChange = Callable[[Writer, float, float | None], None]


def _float(r: Reader, key: str) -> float | None:
    value = r.get_meta(key)
    return None if not value else float(value)  # "": unset again (un-finalize)


def stored_phase(info: ContestInfo, r: Reader) -> Phase:
    """The phase as contest.yaml and the admins' changes (kept in ``meta``) make it: the times, and the
    languages' time factors (model/language_factors.py), which the ``ContestInfo`` in force carries."""
    info = Schedule.loads(r.get_meta("schedule")).applied(info)
    info = language_factors.applied(info, language_factors.loads(r.get_meta(language_factors.META_KEY)))
    info = LiveSettings.loads(r.get_meta(LIVE_SETTINGS)).applied(info)  # issue 47: verification, languages
    frozen = _float(r, "freeze_time")
    thaw = _float(r, "thaw_time")
    return Phase(
        info,
        freeze_s=frozen if frozen is not None else info.freeze_s,
        thaw_s=thaw if thaw is not None else info.thaw_s,
        thawed_at=_float(r, "thawed_at"),
        finalized_at=_float(r, "finalized_at"),
    )


class Timeline:
    def __init__(self, info: ContestInfo, storage: Storage, clock: Clock, bus: EventBus) -> None:
        self.info = info
        self._storage = storage
        self._clock = clock
        self._bus = bus
        self._on_change: OnChange = lambda w, now, thawed_from: None
        self._lock = threading.Lock()
        with storage.read() as r:
            self._phase = stored_phase(info, r)
        self._last = ""

    def on_change(self, callback: OnChange) -> None:
        """What to publish when the phase changes (the server's wiring sets it once)."""
        self._on_change = callback

    def now(self) -> float:
        return self._clock.now()

    def reload(self) -> bool:
        """Read the phase again (another process on the database may have changed it: issue 51, ``--shared``,
        called when it commits); whether it changed. The next ``tick`` publishes what the change makes."""
        with self._lock:
            with self._storage.read() as r:
                phase = stored_phase(self.info, r)
            if phase == self._phase:
                return False
            self._phase = phase
            self._last = ""
            return True

    @property
    def phase(self) -> Phase:
        """The phase in force (replaced, never changed: safe to keep for one request)."""
        return self._phase

    def contest_json(self) -> dict[str, Any]:
        """The Contest API's contest object as it is now (the thaw and the freeze in force)."""
        return contest_json(self._phase)

    def state_json(self, now: float) -> dict[str, Any]:
        return self._phase.state_json(now)

    def settled(self) -> bool:
        """Whether ``tick`` has nothing to do now (no state change to publish, no thaw due): a request may
        then be answered without it (on the event loop: tick writes when it has something to do)."""
        now = self._clock.now()
        return self._key(self._phase, now) == self._last

    @staticmethod
    def _key(phase: Phase, now: float) -> str:
        return dump(phase.state_json(now)) + str(phase.thaw_due(now))

    def tick(self) -> None:
        now = self._clock.now()
        if self._key(self._phase, now) == self._last:
            return
        with self._lock:
            before = self._phase
            thaw_due = before.thaw_due(now)
            after = replace(before, thawed_at=before.thaw_s) if thaw_due else before
            with self._storage.write() as w:
                thawed = _float(w, "thawed_at") if thaw_due else None
                if thawed is not None:  # another process on the database thawed it (issue 51, --shared): not twice
                    after, thaw_due = replace(before, thawed_at=thawed), False
                if thaw_due:
                    w.set_meta("thawed_at", repr(after.thawed_at))
                self._phase = after
                state = after.state_json(now)
                try:
                    if state["end_of_updates"] is None:
                        publish_if_changed(w, "state", None, state, now=now)
                    self._on_change(w, now, before.freeze_s if thaw_due else None)
                    if state["end_of_updates"] is not None:  # the spec: the feed's last event
                        publish_if_changed(w, "state", None, state, now=now)
                except BaseException:
                    self._phase = before
                    raise
            self._last = dump(after.state_json(now)) + "False"
        self._bus.notify()

    def freeze_now(self) -> float:
        """Freeze the board now (an admin's button). Returns the freeze time; raises ValueError (one
        line, ``Phase.freeze_refusal``) when it cannot be frozen.

        The freeze starts after every submission already made: one made at this very instant (the same
        clock reading) was judged and published for everyone already, and a freeze cannot take that back
        (tests/test_serve_visibility.py)."""
        with self._lock:
            now = self._clock.now()
            refusal = self._phase.freeze_refusal(now)
            if refusal is not None:
                raise ValueError(refusal)
            with self._storage.write() as w:
                made_now = w.latest_submission_s(now) == now
                freeze = math.nextafter(now, math.inf) if made_now else now
                w.set_meta("freeze_time", repr(freeze))
            self._phase = replace(self._phase, freeze_s=freeze)
            self._last = ""
        self.tick()
        return freeze

    def reschedule(self, change: ScheduleChange) -> Phase:
        """Move the start, pause the countdown, change the duration or the freeze (an admin's PATCH), as
        an override of contest.yaml kept in ``meta``. Raises model/schedule.ScheduleError. A board frozen
        already stays frozen from the same moment (the freeze time is kept) whatever the new end."""
        with self._lock:
            now = self._clock.now()
            before = self._phase
            with self._storage.write() as w:
                schedule = apply(before, Schedule.loads(w.get_meta("schedule")), change, now)
                w.set_meta("schedule", schedule.dumps())
                if before.freeze_s is not None and now >= before.freeze_s:
                    w.set_meta("freeze_time", repr(before.freeze_s))
                self._phase = stored_phase(self.info, w)
            self._last = ""
        self.tick()
        return self._phase

    def set_time_factor(self, language_id: str, factor: float, publish: Callable[[Writer, float], None]) -> None:
        """A language's time factor from now on (an admin's PATCH), an override of contest.yaml kept in ``meta``;
        ``publish`` (the language's event, the audit line) runs in the same transaction, with the new phase."""
        with self._lock:
            now = self._clock.now()
            before = self._phase
            with self._storage.write() as w:
                factors = language_factors.loads(w.get_meta(language_factors.META_KEY))
                factors[language_id] = factor
                w.set_meta(language_factors.META_KEY, language_factors.dumps(factors))
                self._phase = stored_phase(self.info, w)
                try:
                    publish(w, now)
                except BaseException:
                    self._phase = before
                    raise
        self._bus.notify()

    def set_live(
        self, change: Callable[[LiveSettings], LiveSettings], publish: Callable[[Writer, float], None]
    ) -> None:
        """An admin's change of the settings kept in ``meta`` over contest.yaml (model/live_settings.py: issue
        47's verification and languages); ``publish`` runs in the same transaction, with the new phase."""
        with self._lock:
            now = self._clock.now()
            before = self._phase
            with self._storage.write() as w:
                w.set_meta(LIVE_SETTINGS, change(LiveSettings.loads(w.get_meta(LIVE_SETTINGS))).dumps())
                self._phase = stored_phase(self.info, w)
                try:
                    publish(w, now)
                except BaseException:
                    self._phase = before
                    raise
        self._bus.notify()

    def set_removed(self, removed: tuple[tuple[float, float], ...], publish: OnChange) -> Phase:
        """Set the removed intervals (an admin's; the state's ``removed_intervals``), an override of the
        schedule kept in ``meta``: the contest's end and (unless the board is frozen already: it stays
        frozen from the same moment) its freeze move with them. ``publish`` adds, in the same transaction,
        what the change brings; its third argument is the earliest time whose contest time changed. Raises
        model/schedule.ScheduleError (403, ``removed_refusal``)."""
        with self._lock:
            now = self._clock.now()
            before = self._phase
            refusal = removed_refusal(before, removed, now)
            if refusal is not None:
                raise ScheduleError(403, refusal)
            changed = set(before.info.removed) ^ set(removed)
            with self._storage.write() as w:
                schedule = replace(Schedule.loads(w.get_meta("schedule")), removed=removed)
                w.set_meta("schedule", schedule.dumps())
                if before.freeze_s is not None and now >= before.freeze_s:
                    w.set_meta("freeze_time", repr(before.freeze_s))
                self._phase = stored_phase(self.info, w)
                try:
                    publish(w, now, min(begin for begin, _ in changed) if changed else None)
                except BaseException:
                    self._phase = before
                    raise
            self._last = ""
        self.tick()
        return self._phase

    def set_thaw(self, thaw_s: float, publish: OnChange) -> None:
        """Schedule the thaw (an admin's PATCH); ``tick`` carries it out when the time comes (now, if it is
        due). ``publish`` adds, in the same transaction, what the change brings (the contest object with its
        ``scoreboard_thaw_time``, the audit line), before the thaw's own events (the state, last)."""
        with self._lock:
            before = self._phase
            with self._storage.write() as w:
                w.set_meta("thaw_time", repr(thaw_s))
                self._phase = replace(before, thaw_s=thaw_s)
                try:
                    publish(w, self._clock.now(), None)
                except BaseException:
                    self._phase = before
                    raise
            self._last = ""
        self.tick()

    def finalize(self, unjudged: Callable[[Reader], int], publish: OnChange) -> float:
        """Finalize the results now (an admin's action). The board stays as it is (frozen until the thaw: the
        ICPC's order, the resolver's ceremony in between); ``publish`` adds, in the same transaction, what the
        finalize brings (the audit line; the final awards when the board is thawed already), then the state
        with ``finalized`` (and ``end_of_updates`` when the board is not frozen). ``unjudged`` counts what is
        still to judge. Raises ValueError (one line, ``Phase.finalize_refusal``)."""
        with self._lock:
            now = self._clock.now()
            before = self._phase
            with self._storage.write() as w:
                refusal = before.finalize_refusal(now, unjudged(w))
                if refusal is not None:
                    raise ValueError(refusal)
                after = replace(before, finalized_at=now)
                w.set_meta("finalized_at", repr(now))
                self._phase = after
                try:
                    publish(w, now, None)
                    publish_if_changed(w, "state", None, after.state_json(now), now=now)
                except BaseException:
                    self._phase = before
                    raise
            self._last = ""
        self._bus.notify()
        return now

    def unfinalize(self, publish: OnChange) -> None:
        """Take the finalize back (an admin's action, before a rejudge): ``finalized`` and
        ``end_of_updates`` are null again; ``publish`` adds the audit line. Raises ValueError when the
        contest is not finalized."""
        with self._lock:
            if self._phase.finalized_at is None:
                raise ValueError("the contest is not finalized")
            with self._storage.write() as w:
                w.set_meta("finalized_at", "")
                publish(w, self._clock.now(), None)
            self._phase = replace(self._phase, finalized_at=None)
            self._last = ""
        self.tick()
