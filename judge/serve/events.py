"""The event log behind the event feed: every change to an object the API shows is one row, written in
the same transaction as the change. The row's id is the feed's ``token``.

Who sees an event: ``scope`` public (everyone), owner (the team ``team_id`` and staff) or admin (staff);
a public event marked ``frozen`` (a judgement of a submission made during the freeze) is shown only to
its team and to staff; when the board is thawed those judgements are published again, unfrozen.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from judge.serve.auth import Viewer

PUBLIC, OWNER, ADMIN = "public", "owner", "admin"


def dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def publish(
    conn: sqlite3.Connection,
    kind: str,
    obj_id: str | None,
    data: Mapping[str, Any] | None,
    *,
    now: float,
    scope: str = PUBLIC,
    team_id: str | None = None,
    frozen: bool = False,
) -> int:
    cur = conn.execute(
        "INSERT INTO events (type, obj_id, data, scope, team_id, frozen, time_s) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (kind, obj_id, dump(data), scope, team_id, int(frozen), now),
    )
    return int(cur.lastrowid or 0)


def publish_if_changed(
    conn: sqlite3.Connection,
    kind: str,
    obj_id: str | None,
    data: Mapping[str, Any] | None,
    *,
    now: float,
    scope: str = PUBLIC,
    team_id: str | None = None,
) -> bool:
    """Publish unless the last event for this object says the same to the same audience."""
    last = conn.execute(
        "SELECT data, scope, team_id, frozen FROM events WHERE type = ? AND obj_id IS ? ORDER BY id DESC LIMIT 1",
        (kind, obj_id),
    ).fetchone()
    if last is not None and (last["data"], last["scope"], last["team_id"], last["frozen"]) == (
        dump(data),
        scope,
        team_id,
        0,
    ):
        return False
    publish(conn, kind, obj_id, data, now=now, scope=scope, team_id=team_id)
    return True


def sync_collection(
    conn: sqlite3.Connection,
    kind: str,
    objects: Iterable[Mapping[str, Any]],
    *,
    now: float,
    audience: Callable[[Mapping[str, Any]], tuple[str, str | None]] = lambda o: (PUBLIC, None),
) -> None:
    """Publish what changed in a configuration collection since the last start, and deletions."""
    seen = set()
    for obj in objects:
        scope, team = audience(obj)
        publish_if_changed(conn, kind, str(obj["id"]), obj, now=now, scope=scope, team_id=team)
        seen.add(str(obj["id"]))
    for row in conn.execute("SELECT DISTINCT obj_id FROM events WHERE type = ?", (kind,)).fetchall():
        if row["obj_id"] not in seen:
            last = conn.execute(
                "SELECT scope, team_id FROM events WHERE type = ? AND obj_id = ? ORDER BY id DESC LIMIT 1",
                (kind, row["obj_id"]),
            ).fetchone()
            publish_if_changed(conn, kind, row["obj_id"], None, now=now, scope=last["scope"], team_id=last["team_id"])


def visible(viewer: Viewer) -> tuple[str, tuple[Any, ...]]:
    """The SQL condition (and its parameters) for the events ``viewer`` may see."""
    if viewer.staff:
        return "1", ()
    return (
        "((scope = 'public' AND (frozen = 0 OR team_id = ?)) OR (scope = 'owner' AND team_id = ?))",
        (viewer.team_id, viewer.team_id),
    )


def latest(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT max(id) FROM events").fetchone()
    return int(row[0] or 0)


def lines_after(conn: sqlite3.Connection, after: int, viewer: Viewer, limit: int = 1000) -> tuple[list[str], int]:
    """NDJSON lines of the events after token ``after`` that ``viewer`` may see, and the last id read."""
    cond, params = visible(viewer)
    rows = conn.execute(
        f"SELECT id, type, obj_id, data FROM events WHERE id > ? AND {cond} ORDER BY id LIMIT ?",  # noqa: S608
        (after, *params, limit),
    ).fetchall()
    out = [
        f'{{"type":{json.dumps(r["type"])},"id":{json.dumps(r["obj_id"])},"data":{r["data"]},"token":"{r["id"]}"}}\n'
        for r in rows
    ]
    return out, (int(rows[-1]["id"]) if rows else after)


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
