"""Moving the contest in time while the server runs: the spec's "Modifying contests" (``PATCH`` of
``start_time``, ``null`` to pause the countdown, with ``countdown_pause_time``), and our extension of the
same ``PATCH``: ``duration`` and ``scoreboard_freeze_duration``.

Pure: a ``ScheduleChange`` read strictly from the body, the one-line reason it is refused at a phase and
a moment (``schedule_refusal``), and the ``ContestInfo`` it makes (``apply``). The change is stored as an
override of contest.yaml (``Schedule``, kept in the database's ``meta``: services/core/timeline.py); the package
on disk stays the organizer's input.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from judge.serve.model.contest import LAST_TIME_S, LONGEST_S, ContestInfo
from judge.serve.model.phase import Phase
from judge.serve.model.times import TimeError, format_reltime, format_time, parse_reltime, parse_time

# The spec: the start cannot be changed within 30 seconds of it, nor be moved to less than 30 seconds away.
START_MARGIN_S = 30.0
SCHEDULE_KEYS = ("start_time", "countdown_pause_time", "duration", "scoreboard_freeze_duration")
_UNSET: Any = object()


class ScheduleError(ValueError):
    """A change of the schedule that cannot be made (one line); ``status`` is the HTTP status it answers."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Schedule:
    """The times an admin set, overriding contest.yaml's (None: contest.yaml's); stored as JSON."""

    start_set: bool = False  # whether start_s overrides contest.yaml's (it may override it with None)
    start_s: float | None = None
    countdown_pause_s: float | None = None
    duration_s: float | None = None
    freeze_duration_s: float | None = None
    removed: tuple[tuple[float, float], ...] | None = None  # the removed intervals (None: none set)

    def dumps(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    @staticmethod
    def loads(text: str | None) -> Schedule:
        if not text:
            return Schedule()
        data = json.loads(text)
        if data.get("removed") is not None:
            data["removed"] = tuple((float(a), float(b)) for a, b in data["removed"])
        return Schedule(**{k: data.get(k) for k in Schedule.__dataclass_fields__ if k in data})

    def applied(self, info: ContestInfo) -> ContestInfo:
        """contest.yaml's times with these overrides."""
        if self == Schedule():
            return info
        return replace(
            info,
            start_s=self.start_s if self.start_set else info.start_s,
            countdown_pause_s=self.countdown_pause_s if self.start_set else info.countdown_pause_s,
            duration_s=info.duration_s if self.duration_s is None else self.duration_s,
            freeze_duration_s=info.freeze_duration_s if self.freeze_duration_s is None else self.freeze_duration_s,
            removed=info.removed if self.removed is None else self.removed,
        )


@dataclass(frozen=True)
class ScheduleChange:
    """What a PATCH asks for; ``_UNSET`` fields are left as they are."""

    start_s: Any = _UNSET  # float | None
    countdown_pause_s: Any = _UNSET  # float | None
    duration_s: Any = _UNSET  # float
    freeze_duration_s: Any = _UNSET  # float

    @property
    def moves_start(self) -> bool:
        return self.start_s is not _UNSET or self.countdown_pause_s is not _UNSET


def _reltime(body: dict[str, Any], key: str) -> float:
    try:
        value = parse_reltime(body[key], key)
    except TimeError as exc:
        raise ScheduleError(400, str(exc)) from None
    if value < 0:
        raise ScheduleError(400, f"`{key}` must not be negative")
    if value > LONGEST_S:
        raise ScheduleError(400, f"`{key}` must be at most {format_reltime(LONGEST_S)} (a year)")
    return value


def parse_change(body: dict[str, Any]) -> ScheduleChange:
    """The schedule's keys of a PATCH body. Raises ScheduleError (400)."""
    start: Any = _UNSET
    if "start_time" in body:
        try:
            start = None if body["start_time"] is None else parse_time(body["start_time"], "start_time")
        except TimeError as exc:
            raise ScheduleError(400, str(exc)) from None
    pause: Any = _UNSET
    if body.get("countdown_pause_time") is not None:
        if start is not None:
            raise ScheduleError(400, "`countdown_pause_time` goes with `start_time: null` (the countdown is paused)")
        pause = _reltime(body, "countdown_pause_time")
    duration = _reltime(body, "duration") if "duration" in body else _UNSET
    if duration is not _UNSET and duration <= 0:
        raise ScheduleError(400, "`duration` must be positive")
    freeze = _reltime(body, "scoreboard_freeze_duration") if "scoreboard_freeze_duration" in body else _UNSET
    return ScheduleChange(start, pause, duration, freeze)


def _start_refusal(phase: Phase, change: ScheduleChange, now: float) -> str | None:
    start = phase.info.start_s
    if phase.started(now):
        return f"the contest started at {format_time(start or now)}: its start time can no longer change"
    if start is not None and start - now < START_MARGIN_S:
        return f"the contest starts in less than {START_MARGIN_S:.0f} seconds: its start time can no longer change"
    new = change.start_s
    if new is not _UNSET and new is not None and new - now < START_MARGIN_S:
        return f"the new start time must be at least {START_MARGIN_S:.0f} seconds from now ({format_time(now)})"
    return None


def _length_refusal(phase: Phase, info: ContestInfo, now: float, freeze_changes: bool) -> str | None:
    """Why the new duration or freeze (already in ``info``) cannot be, or None."""
    old_end = phase.end_s
    if old_end is not None and now >= old_end:
        return f"the contest ended at {format_time(old_end)}: its duration and freeze can no longer change"
    if info.freeze_duration_s > info.duration_s:
        return "`scoreboard_freeze_duration` must not be longer than the contest's duration"
    end = info.end_s
    if end is not None and end <= now:
        return f"the new end ({format_time(end)}) would be in the past (now: {format_time(now)})"
    if not freeze_changes:
        return None
    if phase.freeze_s is not None and now >= phase.freeze_s:
        return f"the scoreboard is frozen since {format_time(phase.freeze_s)}: its freeze can no longer change"
    freeze = info.freeze_s
    if freeze is not None and freeze <= now:
        return f"the new freeze ({format_time(freeze)}) would be in the past: freeze the board now instead"
    return None


def apply(phase: Phase, schedule: Schedule, change: ScheduleChange, now: float) -> Schedule:
    """The overrides after ``change`` (``schedule``: those in force). Raises ScheduleError (403: refused
    at this moment; 400: not a schedule)."""
    if change.moves_start:
        refusal = _start_refusal(phase, change, now)
        if refusal is not None:
            raise ScheduleError(403, refusal)
        start = phase.info.start_s if change.start_s is _UNSET else change.start_s
        pause = None
        if start is None:  # paused: as given, else what was left
            left = None if phase.info.start_s is None else phase.info.start_s - now
            pause = change.countdown_pause_s if change.countdown_pause_s is not _UNSET else left
            pause = phase.info.countdown_pause_s if pause is None else pause
        schedule = replace(schedule, start_set=True, start_s=start, countdown_pause_s=pause)
    if change.duration_s is not _UNSET:
        schedule = replace(schedule, duration_s=change.duration_s)
    if change.freeze_duration_s is not _UNSET:
        schedule = replace(schedule, freeze_duration_s=change.freeze_duration_s)
    end = schedule.applied(phase.info).end_s
    if end is not None and end >= LAST_TIME_S:
        raise ScheduleError(400, "the contest would end after the year 9999")
    lengths = change.duration_s is not _UNSET or change.freeze_duration_s is not _UNSET
    if lengths:
        refusal = _length_refusal(
            phase, schedule.applied(phase.info), now, freeze_changes=change.freeze_duration_s is not _UNSET
        )
        if refusal is not None:
            raise ScheduleError(403, refusal)
    return schedule


# ------------------------------------------------------------------------------------------ removed intervals


def parse_removed(body: Any, info: ContestInfo) -> tuple[tuple[float, float], ...]:
    """The removed intervals an admin's PUT gives (the state's ``removed_intervals``: ``start`` and ``end``
    TIMEs; ``contest_time``, if given, must be the one the server computes), sorted. Raises ScheduleError
    (400)."""
    if not isinstance(body, list):
        raise ScheduleError(400, 'the body must be a JSON array like [{"start": TIME, "end": TIME}]')
    read = sorted(_interval(item, n) for n, item in enumerate(body, 1))
    for (_, end, _), (begin, _, _) in zip(read, read[1:], strict=False):
        if begin < end:
            raise ScheduleError(400, f"intervals must not overlap ({format_time(begin)} is inside another)")
    removed = tuple((begin, end) for begin, end, _ in read)
    after = replace(info, removed=removed)
    for begin, _, given in read:
        want = after.contest_time_s(begin)
        if given is not None and abs(given - want) >= 0.001:
            raise ScheduleError(
                400, f"the interval at {format_time(begin)} begins at contest time {format_reltime(want)}"
            )
    return removed


def _interval(item: Any, n: int) -> tuple[float, float, float | None]:
    where = f"interval {n}"
    if not isinstance(item, dict):
        raise ScheduleError(400, f'{where}: expected an object like {{"start": TIME, "end": TIME}}')
    unknown = sorted(set(item) - {"start", "end", "contest_time"})
    if unknown:
        raise ScheduleError(400, f"{where}: unknown property {unknown[0]!r} (start, end, contest_time)")
    if item.get("end") is None:
        raise ScheduleError(400, f"{where}: `end` is required: an interval is removed once it is over")
    try:
        begin = parse_time(item.get("start"), f"{where}: start")
        end = parse_time(item["end"], f"{where}: end")
        given = None if item.get("contest_time") is None else parse_reltime(item["contest_time"], "contest_time")
    except TimeError as exc:
        raise ScheduleError(400, str(exc)) from None
    if end <= begin:
        raise ScheduleError(400, f"{where}: its end must be after its start")
    return begin, end, given


def removed_refusal(phase: Phase, removed: tuple[tuple[float, float], ...], now: float) -> str | None:
    """Why the contest's removed intervals cannot become ``removed`` now (one line; 403), or None. They
    change the contest's time while it runs: only then, each over (its end not after now) and within the
    contest so far; the end they make must not be in the past, nor a freeze to come."""
    info, start, end = phase.info, phase.info.start_s, phase.end_s
    if start is None or now < start:
        return "the contest has not started: there is no contest time to remove"
    if end is not None and now >= end:
        return f"the contest ended at {format_time(end)}: its removed intervals can no longer change"
    for begin, stop in removed:
        if begin < start:
            return f"the interval at {format_time(begin)} begins before the contest ({format_time(start)})"
        if stop > now:
            return f"the interval ending at {format_time(stop)} is not over yet (now: {format_time(now)})"
    after = replace(info, removed=removed)
    new_end = after.end_s
    if new_end is not None and new_end <= now:
        return f"the new end ({format_time(new_end)}) would be in the past (now: {format_time(now)})"
    frozen = phase.freeze_s is not None and now >= phase.freeze_s
    freeze = after.freeze_s
    if not frozen and freeze is not None and freeze <= now:
        return f"the freeze would move into the past ({format_time(freeze)}): freeze the board now instead"
    return None
