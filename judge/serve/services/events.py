"""The event log behind the event feed: every change to an object the API shows is one event, written in
the same transaction as the change; its audience comes from visibility.py. Reading the feed for a viewer
filters the log with ``visibility.sees_event``, and numbers what it keeps: a line's ``token`` is its place in
that viewer's stream (the event's id in the log would count the events the viewer may not see).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from judge.serve.model.records import Audience, EventRecord, NewEvent
from judge.serve.storage import Reader, Writer
from judge.serve.visibility import EVERYONE, Sight, sees_audience, sees_event


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
    return (
        f'{{"type":{json.dumps(event.type)},"id":{json.dumps(event.obj_id)},"data":{event.data},"token":"{token}"}}\n'
    )


def lines_after(r: Reader, cursor: Cursor, sight: Sight, limit: int = 1000) -> tuple[list[str], Cursor, bool]:
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


class EventBus:
    """Tells waiting streams that something was published: a generation counter, bumped after a commit."""

    def __init__(self) -> None:
        self._generation = 0
        self._lock = threading.Lock()

    @property
    def generation(self) -> int:
        return self._generation

    def notify(self) -> None:
        with self._lock:
            self._generation += 1
