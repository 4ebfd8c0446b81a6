"""The event feed for one viewer: where a (re)connecting client starts, and the next lines it may see.

A token is the place of an event in the viewer's own stream (services/core/events.py), so ``since_token`` is
judged against the tokens this viewer could have received, and nothing else: a larger one is a 400 whether
or not events the viewer may not see exist (F1 of issue 27).
"""

from __future__ import annotations

import time

from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.context import Served
from judge.serve.services.core.events import Cursor, lines_after, lines_in, locate


def start_after(server: Served, viewer: Viewer, token: str | None) -> Cursor:
    """Where the viewer's feed starts: the beginning, or after a token it was given (else a 400)."""
    if token is None or token == "0":
        return Cursor()
    cursor = None
    if token.isdigit() and len(token) <= 18:
        sight = server.sight(viewer, server.clock.now())
        with server.storage.read() as r:
            cursor = locate(r, sight, int(token))
    if cursor is None:
        raise Refused(400, f"unknown since_token {token[:40]!r} (use a token from this server's event feed)")
    return cursor


def next_lines(server: Served, viewer: Viewer, cursor: Cursor, limit: int) -> tuple[list[str], Cursor, bool]:
    """The viewer's lines after ``cursor``, the cursor after them, and whether more may be waiting: from the
    log's copy in memory when it holds them (``in_memory``: no storage is read), else from storage."""
    sight = server.sight(viewer, server.clock.now())
    log = server.bus.log
    if log is not None:
        stretch = None if sight.staff else log.stretch(cursor.event_id, limit)
        if stretch is not None:  # grouped once for all the feeds that read it
            return lines_in(stretch, cursor, viewer.team_id)
        return lines_after(log, cursor, sight, limit)
    with server.storage.read() as r:
        return lines_after(r, cursor, sight, limit)


def in_memory(server: Served, cursor: Cursor) -> bool:
    """Whether ``next_lines`` after ``cursor`` reads memory only (the handler may then call it on the event
    loop, not in a worker thread)."""
    log = server.bus.log
    return log is not None and log.in_memory(cursor.event_id)


def stale(server: Served, age_s: float) -> bool:
    """Whether the log's copy was last read from storage more than ``age_s`` ago (cheap: no storage)."""
    log = server.bus.log
    return log is not None and time.monotonic() - log.refreshed_at >= age_s


def recheck(server: Served, age_s: float) -> None:
    """Read the log anew unless it was within ``age_s`` (a change that was not notified is found this way)."""
    if server.bus.log is not None:
        server.bus.log.refresh_if_older(age_s)
