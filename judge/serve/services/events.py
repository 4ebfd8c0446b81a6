"""The event log behind the event feed: every change to an object the API shows is one event, written in
the same transaction as the change; its audience comes from visibility.py. Reading the feed for a viewer
filters the log with ``visibility.sees_event``. The event's id is the feed's ``token``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from judge.serve.model.records import Audience, EventRecord, NewEvent
from judge.serve.storage import Reader, Writer
from judge.serve.visibility import EVERYONE, Sight, sees_event


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


def line(event: EventRecord) -> str:
    """One line of the NDJSON feed."""
    return (
        f'{{"type":{json.dumps(event.type)},"id":{json.dumps(event.obj_id)},"data":{event.data},'
        f'"token":"{event.id}"}}\n'
    )


def lines_after(r: Reader, after: int, sight: Sight, limit: int = 1000) -> tuple[list[str], int, bool]:
    """The feed lines after token ``after`` that the viewer may see, the last token read, and whether
    there may be more to read at once (``limit`` events were read)."""
    events = r.events(after, limit)
    out = [line(e) for e in events if sees_event(sight, e)]
    return out, (events[-1].id if events else after), len(events) == limit


def all_lines(r: Reader, sight: Sight) -> list[str]:
    """Every feed line the viewer may see, from the beginning."""
    out: list[str] = []
    after, more = 0, True
    while more:
        batch, after, more = lines_after(r, after, sight)
        out.extend(batch)
    return out


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
