"""The event log behind the event feed: every change to an object the API shows is one event, written in
the same transaction as the change; its audience comes from visibility.py. Reading the feed for a viewer
filters the log with ``visibility.sees_event``, and numbers what it keeps: a line's ``token`` is its place in
that viewer's stream (the event's id in the log would count the events the viewer may not see).
"""

from __future__ import annotations

import asyncio
import bisect
import json
import math
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from judge.serve.model.records import Audience, EventRecord, NewEvent
from judge.serve.storage import Reader, Storage, Writer
from judge.serve.visibility import EVERYBODY, EVERYONE, Reach, Sight, reach, sees_audience, sees_event

WAKE_BATCH = 50  # a release wakes this many waiting feeds per turn of the event loop (EventBus)
RECHECK_S = 5.0  # the copy in memory is read anew at least this often while feeds or boards are asked for:
# a change committed by another process (or without a notify) is found this way
FIRSTS_KEPT = 256  # EventLog.first_after: per event type, the first event of each of the last this many reads


def dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def publish(
    w: Writer,
    kind: str,
    obj_id: str | None,
    data: Mapping[str, Any] | None,
    *,
    now: float,
    audience: Audience = EVERYONE,
) -> int:
    return w.add_event(NewEvent(kind, obj_id, dump(data), audience, now))


def publish_if_changed(
    w: Writer,
    kind: str,
    obj_id: str | None,
    data: Mapping[str, Any] | None,
    *,
    now: float,
    audience: Audience = EVERYONE,
) -> bool:
    """Publish unless the last event for this object says the same to the same audience."""
    last = w.last_event(kind, obj_id)
    fresh = replace(audience, frozen=False)
    if last is not None and (last.data, last.audience) == (dump(data), fresh):
        return False
    publish(w, kind, obj_id, data, now=now, audience=fresh)
    return True


def sync_collection(
    w: Writer,
    kind: str,
    objects: Iterable[Mapping[str, Any]],
    *,
    now: float,
    audience: Callable[[Mapping[str, Any]], Audience] = lambda o: EVERYONE,
) -> None:
    """Publish what changed in a configuration collection since the last start, and deletions."""
    seen = set()
    for obj in objects:
        publish_if_changed(w, kind, str(obj["id"]), obj, now=now, audience=audience(obj))
        seen.add(str(obj["id"]))
    for obj_id in w.event_objects(kind):
        if obj_id not in seen:
            last = w.last_event(kind, obj_id)
            assert last is not None
            publish_if_changed(w, kind, obj_id, None, now=now, audience=last.audience)


@dataclass(frozen=True)
class Cursor:
    """Where a viewer's feed stands: after the event ``event_id`` of the log, which was the ``token``-th
    event of the viewer's stream (its token). 0, 0: the beginning."""

    event_id: int = 0
    token: int = 0


def line(event: EventRecord, token: int) -> str:
    """One line of the NDJSON feed."""
    return f'{event.feed_head}{token}"}}\n'


class EventSource(Protocol):
    """Where a feed reads the log: storage (``Reader``), or its copy in memory (``EventLog``)."""

    def events(self, after: int, limit: int) -> list[EventRecord]: ...


def lines_after(r: EventSource, cursor: Cursor, sight: Sight, limit: int = 1000) -> tuple[list[str], Cursor, bool]:
    """The feed lines after ``cursor`` that the viewer may see, the cursor after them, and whether there may
    be more to read at once (``limit`` events were read). A line's token is its place in the viewer's own
    stream (1, 2, ...): what the viewer may not see is not counted (F1 of issue 27)."""
    events = r.events(cursor.event_id, limit)
    out, token = [], cursor.token
    for e in events:
        if sees_event(sight, e):
            token += 1
            out.append(line(e, token))
    return out, Cursor(events[-1].id if events else cursor.event_id, token), len(events) == limit


@dataclass(frozen=True)
class Stretch:
    """The events after ``after`` read at once (at most ``limit``: ``full`` when that many), grouped by
    whom of those not staff they reach (visibility.reach): made once for all the open feeds that read the
    same stretch (issue 32: 500 feeds, and a judgement publishes an event per test, for its team only),
    instead of asking each event for each feed."""

    last: int  # the last event's id (``after`` when there is none)
    full: bool
    everyone: tuple[EventRecord, ...]
    only: Mapping[str, tuple[EventRecord, ...]]  # the events some teams only see, per team
    but: tuple[tuple[EventRecord, Reach], ...]  # the events everyone but some teams see

    def seen_by(self, team_id: str | None) -> list[EventRecord]:
        """The events the team (None: the public) sees, in the log's order."""
        own = self.only.get(team_id, ()) if team_id is not None else ()
        rest = [e for e, r in self.but if r.includes(team_id)]
        if not own and not rest:
            return list(self.everyone)
        return sorted((*self.everyone, *own, *rest), key=lambda e: e.id)


def stretch_of(events: Sequence[EventRecord], after: int, limit: int) -> Stretch:
    everyone: list[EventRecord] = []
    only: dict[str, list[EventRecord]] = defaultdict(list)
    but: list[tuple[EventRecord, Reach]] = []
    for e in events:
        r = reach(e.audience)
        if r is EVERYBODY:
            everyone.append(e)
        elif r.but:
            but.append((e, r))
        else:
            for team_id in r.teams:
                only[team_id].append(e)
    last = events[-1].id if events else after
    return Stretch(last, len(events) == limit, tuple(everyone), {t: tuple(v) for t, v in only.items()}, tuple(but))


def lines_in(stretch: Stretch, cursor: Cursor, team_id: str | None) -> tuple[list[str], Cursor, bool]:
    """``lines_after`` for a viewer who is not staff (a team, or the public: None), from a stretch."""
    seen = stretch.seen_by(team_id)
    out = [line(e, cursor.token + i) for i, e in enumerate(seen, 1)]
    return out, Cursor(stretch.last, cursor.token + len(seen)), stretch.full


def all_lines(r: Reader, sight: Sight) -> list[str]:
    """Every feed line the viewer may see, from the beginning."""
    out: list[str] = []
    cursor, more = Cursor(), True
    while more:
        batch, cursor, more = lines_after(r, cursor, sight)
        out.extend(batch)
    return out


def locate(r: Reader, sight: Sight, token: int, batch: int = 5000) -> Cursor | None:
    """The cursor just after the viewer's ``token``-th event; None when the viewer's stream is shorter (a
    token it cannot have received). Reads the audiences only, never the events' data."""
    cursor = Cursor()
    decided: dict[Audience, bool] = {}  # few distinct audiences: each decided once
    while cursor.token < token:
        heads = r.event_audiences(cursor.event_id, batch)
        if not heads:
            return None
        seen = cursor.token
        for event_id, audience in heads:
            sees = decided.get(audience)
            if sees is None:
                sees = decided[audience] = sees_audience(sight, audience)
            if sees:
                seen += 1
                if seen == token:
                    return Cursor(event_id, token)
        cursor = Cursor(heads[-1][0], seen)
    return cursor


class EventLog:
    """The newest events of the log (at most ``keep``), in memory, for every feed to filter: the log is read
    from storage once per change (``refresh``, which the bus calls after each commit), not once per client
    (issue 32: 500 open feeds). Older events, and any request when the copy is not known to be complete,
    are read from storage. Thread-safe; the records are frozen."""

    def __init__(self, storage: Storage, keep: int = 50_000, batch: int = 5_000) -> None:
        self._storage = storage
        self._keep, self._batch = keep, batch
        self._lock = threading.Lock()
        self._ids: list[int] = []
        self._events: list[EventRecord] = []
        self._floor: int | None = None  # the events after this id are all in memory (None: not read yet)
        self._newest: dict[str, int] = {}  # per event type, the newest event read (kept when it is dropped)
        # a copy of it, replaced whole after each refresh: read without the lock, which a refresh holds
        # through its storage read (the board on the event loop reads it: services/board/board.made)
        self._newest_read: dict[str, int] = {}
        # per type, (id, time) of the first event of it in each batch read (the last FIRSTS_KEPT), and whether
        # older ones were dropped: EventLog.first_after; replaced whole, read without the lock as _newest_read
        self._firsts: dict[str, tuple[tuple[tuple[int, float], ...], bool]] = {}
        self._stretches: OrderedDict[tuple[int, int, int], Stretch] = OrderedDict()  # the last few made
        self.refreshed_at = 0.0  # time.monotonic() of the last refresh

    def refresh(self) -> None:
        """Read what was committed since the last refresh."""
        with self._lock:
            with self._storage.read() as r:
                if self._floor is None:
                    self._floor = max(0, r.latest_event() - self._keep)
                last = self._ids[-1] if self._ids else self._floor
                while batch := r.events(last, self._batch):
                    self._ids += [e.id for e in batch]
                    self._events += batch
                    self._newest.update((e.type, e.id) for e in batch)
                    self._firsts = _firsts(self._firsts, batch)  # before _newest_read: a reader of both
                    self._newest_read = dict(self._newest)
                    last = batch[-1].id
            if len(self._ids) > self._keep:
                drop = len(self._ids) - self._keep
                self._floor = self._ids[drop - 1]
                del self._ids[:drop], self._events[:drop]
            self.refreshed_at = time.monotonic()

    def refresh_if_older(self, age_s: float) -> None:
        """Refresh unless it was done within ``age_s`` (the feeds' periodic check: once for all of them)."""
        if time.monotonic() - self.refreshed_at >= age_s:
            with self._lock:
                if time.monotonic() - self.refreshed_at < age_s:
                    return
            self.refresh()

    def fresh(self, age_s: float) -> bool:
        """Whether it was read within ``age_s`` (``refresh_if_older`` would read nothing)."""
        return time.monotonic() - self.refreshed_at < age_s

    def in_memory(self, after: int) -> bool:
        """Whether the events after ``after`` are read from memory (no storage: fine on the event loop)."""
        with self._lock:
            return self._floor is not None and after >= self._floor

    @property
    def last_id(self) -> int:
        """The newest event read (0: none)."""
        with self._lock:
            return self._ids[-1] if self._ids else (self._floor or 0)

    def newest(self, kinds: Sequence[str]) -> tuple[int, ...]:
        """Per kind, the newest event of it read (0: none since the log was first read): a new event of any
        of them changes this, so it keys what is made of them (the scoreboard: services/board/board.py) with no
        storage read per request."""
        newest = self._newest_read  # no lock: a refresh replaces it whole (never waits on a storage read)
        return tuple(newest.get(k, 0) for k in kinds)

    def first_after(self, kinds: Sequence[str], after: Sequence[int]) -> float | None:
        """The time of the oldest event of ``kinds`` newer than ``after`` (per kind, an id ``newest`` gave),
        or None when there is none or it is not known (no longer kept). Lock-free, as ``newest``: a change
        to the board (services/board/board.py) is behind the newest since then (docs/serve.md, --board-interval).
        The event's time is its publisher's clock reading, before its commit: never later than the feed got it."""
        firsts = self._firsts
        found: float | None = None
        for kind, known in zip(kinds, after, strict=True):
            kept, dropped = firsts.get(kind, ((), False))
            i = bisect.bisect_right(kept, (known, math.inf))
            if i == len(kept):
                continue  # nothing newer of this kind
            if i == 0 and dropped:
                return None  # the first newer one may be older than what is kept
            found = kept[i][1] if found is None else min(found, kept[i][1])
        return found

    def stretch(self, after: int, limit: int) -> Stretch | None:
        """The events after ``after`` (at most ``limit``) grouped by whom they reach, made once for every
        feed that asks for the same ones; None when they are not all in memory."""
        with self._lock:
            if self._floor is None or after < self._floor:
                return None
            key = (after, limit, self._ids[-1] if self._ids else self._floor)
            made = self._stretches.get(key)
            if made is None:
                i = bisect.bisect_right(self._ids, after)
                made = self._stretches[key] = stretch_of(self._events[i : i + limit], after, limit)
                if len(self._stretches) > 32:
                    self._stretches.popitem(last=False)
            return made

    def events(self, after: int, limit: int) -> list[EventRecord]:
        with self._lock:
            if self._floor is not None and after >= self._floor:
                i = bisect.bisect_right(self._ids, after)
                return self._events[i : i + limit]
        with self._storage.read() as r:
            return r.events(after, limit)


def _firsts(
    firsts: dict[str, tuple[tuple[tuple[int, float], ...], bool]], batch: Sequence[EventRecord]
) -> dict[str, tuple[tuple[tuple[int, float], ...], bool]]:
    """``firsts`` with the first event of each type in ``batch`` added (EventLog.first_after): a type's
    newest event is always a batch's last of it (``newest`` changes per batch), so the next one is the first
    of a later batch."""
    out = dict(firsts)
    seen: set[str] = set()
    for e in batch:
        if e.type not in seen:
            seen.add(e.type)
            kept, dropped = out.get(e.type, ((), False))
            kept = (*kept, (e.id, e.time_s))
            out[e.type] = (kept[-FIRSTS_KEPT:], dropped or len(kept) > FIRSTS_KEPT)
    return out


class EventBus:
    """Tells waiting streams that something was published: a generation counter, bumped after a commit (and
    after ``log``, the copy in memory, has read what was committed). Streams on an event loop wait for it
    with ``changed`` (woken once per change, not polling: 500 open feeds, issue 32).

    ``wake_interval_s`` (0: none): the streams of one event loop are released at most once per interval, so
    that in a rush (a submission, its claim and its judgement are three changes each, 25 a second at 500
    teams) 500 feeds do not each wake, read and write 25 times a second: each wakes at most once per
    interval and sends what was published meanwhile in one write. A change after a quiet interval is
    released at once; the delay a change can get is the interval.

    A release wakes the waiting streams ``WAKE_BATCH`` at a time, one batch per turn of the loop: between two
    batches the loop reads the sockets and serves requests (500 feeds writing at once held it for some 65 ms,
    which every request arriving meanwhile waited out)."""

    def __init__(self, log: EventLog | None = None, wake_interval_s: float = 0.0) -> None:
        self._generation = 0
        self._lock = threading.Lock()
        self.log = log
        self._wake_interval_s = wake_interval_s
        # per event loop that has waiting streams: their futures, done at the next release
        self._waiting: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        self._waiting_lock = threading.Lock()  # not ``_lock``: a loop never waits for a refresh's storage read
        # per event loop, on that loop only: the generation its streams were last released at, when, and
        # whether a release is scheduled
        self._released: dict[asyncio.AbstractEventLoop, int] = {}
        self._released_at: dict[asyncio.AbstractEventLoop, float] = {}
        self._scheduled: set[asyncio.AbstractEventLoop] = set()
        self._ticking: set[asyncio.AbstractEventLoop] = set()  # the loops whose next tick is scheduled

    async def changed(self, seen: int, timeout_s: float | None = None) -> None:
        """Return when a generation after ``seen`` was released to this loop's streams (or ``wake`` was
        called), or after ``timeout_s``; None: or at the loop's next tick, every RECHECK_S for all the
        streams waiting on it (a timer per wait, 500 feeds waking a few times a second, costs the loop more
        than the waits). On an event loop."""
        loop = asyncio.get_running_loop()
        if self._released.setdefault(loop, self._generation) > seen:
            return
        woken: asyncio.Future[None] = loop.create_future()
        with self._waiting_lock:
            self._waiting.setdefault(loop, []).append(woken)
        if timeout_s is None:
            if loop not in self._ticking:
                self._ticking.add(loop)
                loop.call_later(RECHECK_S, self._tick, loop)
            await woken
            return
        try:
            async with asyncio.timeout(timeout_s):  # no task of its own per wait (wait_for makes one)
                await woken  # cancelled at the timeout: a release passes it by
        except TimeoutError:
            pass

    def wake(self) -> None:
        """Release every waiting stream (from any thread): it looks at the bus and the server's state again."""
        with self._waiting_lock:
            loops = list(self._waiting)
        for loop in loops:
            try:
                loop.call_soon_threadsafe(self._release_soon, loop)
            except RuntimeError:  # that loop is closed
                with self._waiting_lock:
                    self._waiting.pop(loop, None)

    def _release_soon(self, loop: asyncio.AbstractEventLoop) -> None:  # on ``loop``
        """Now, or at the end of the interval since the last release (once, whatever is published till then)."""
        due = self._released_at.get(loop, float("-inf")) + self._wake_interval_s
        if loop.time() >= due:
            self._release(loop)
        elif loop not in self._scheduled:
            self._scheduled.add(loop)
            loop.call_at(due, self._release, loop)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:  # on ``loop``
        self._ticking.discard(loop)
        self._wake_all(loop)

    def _release(self, loop: asyncio.AbstractEventLoop) -> None:  # on ``loop``
        self._scheduled.discard(loop)
        self._released[loop] = self._generation
        self._released_at[loop] = loop.time()
        self._wake_all(loop)

    def _wake_all(self, loop: asyncio.AbstractEventLoop) -> None:  # on ``loop``
        with self._waiting_lock:
            waiting = self._waiting.pop(loop, [])
        self._wake_batch(loop, waiting, 0)

    def _wake_batch(self, loop: asyncio.AbstractEventLoop, waiting: list[asyncio.Future[None]], start: int) -> None:
        """Wake ``waiting[start:]``, WAKE_BATCH now (they run at the loop's next turn) and the rest after."""
        end = start + WAKE_BATCH
        for woken in waiting[start:end]:
            if not woken.done():
                woken.set_result(None)
        if end < len(waiting):
            loop.call_soon(self._wake_batch, loop, waiting, end)

    @property
    def generation(self) -> int:
        return self._generation

    def notify(self) -> None:
        with self._lock:
            if self.log is not None:
                self.log.refresh()
            self._generation += 1
        self.wake()
