"""``GET contests/<id>/event-feed``: NDJSON, every event the viewer may see from the beginning (or after
``since_token``), then the new ones as they are published; a newline every 120 s keeps the connection
open. Each line carries its ``token`` (its place in this viewer's stream); a client that reconnects with
``?since_token=<token>`` gets every event after it. A token this viewer was not given is a 400, as the spec
says; ``since_id`` (the name
older drafts and `check-api.sh` use) is read the same way. ``?stream=false`` (as DOMjudge) sends the
events so far and ends. A finished contest's feed ends after its last event (``end_of_updates``).

A feed opened with an account's credentials ends when that account's access changes (its password changed
or reset, the account disabled, removed, or given another role or team: ``Authenticator.access_of``; or its
team no longer takes part in the contest: issue 44), before it sends anything published afterwards: the
credentials it was opened with no longer hold, so a client that reconnects with them gets the 401
(docs/security.md, "Logins and sessions").

While the database cannot be reached (PostgreSQL failing over to its standby: StorageUnavailable, a
``Refused``), an open feed stays open and quiet, and reads again every RECHECK_S: it goes on where it was
once the database is back (docs/deploy.md, "When the primary dies").

When the server stops (``Server.begin_stop``: SIGTERM, Ctrl-C), every open feed sends what was published and
ends, as a response does (one catching up: after its batch; one waiting out an outage: at once); its client
reconnects with its last token.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from judge.serve.http.api.context import Ctx
from judge.serve.model.errors import Refused
from judge.serve.services.board import feed
from judge.serve.services.core.events import RECHECK_S, Cursor

KEEPALIVE_S = 120.0
BATCH = 500


async def event_feed(ctx: Ctx) -> StreamingResponse:
    ctx.contest()
    server = ctx.server
    token = ctx.query.get("since_token", ctx.query.get("since_id"))
    viewer = ctx.viewer
    account = viewer.account_id
    granted = None if account is None else server.auth.access_of(account)
    after = await run_in_threadpool(feed.start_after, server, viewer, token)
    stream = ctx.query.get("stream", "true").lower() not in ("false", "0", "no")

    def read(cursor: Cursor) -> tuple[list[str], Cursor, bool]:
        return feed.next_lines(server, viewer, cursor, BATCH)

    def revoked() -> bool:
        """The account's access changed since the feed started (a change is in force before the events
        published after it are read: people.py reloads the logins before it wakes the feeds)."""
        if account is None:
            return False
        team = viewer.team_id  # a team that no longer takes part in the contest (issue 44: its groups changed)
        return server.auth.access_of(account) != granted or (team is not None and server.contest.team(team) is None)

    async def lines() -> AsyncIterator[str]:
        nonlocal after
        last_sent = last_read = time.monotonic()
        seen = -1
        while True:
            if revoked():
                return
            generation = server.bus.generation
            if generation != seen or time.monotonic() - last_read >= RECHECK_S:
                try:
                    if generation == seen and feed.stale(server, RECHECK_S):
                        await run_in_threadpool(feed.recheck, server, RECHECK_S)
                    # the log's copy in memory is filtered here, on the loop: no thread trip per stream and change
                    memory = feed.in_memory(server, after)
                    out, after, more = read(after) if memory else await run_in_threadpool(read, after)
                except Refused:  # the database is unreachable (a failover): the feed waits, open, and reads again
                    if server.stopping.is_set():
                        return  # unless the server stops: its client resumes elsewhere with its last token
                    last_read = time.monotonic()
                    await server.bus.changed(server.bus.generation)  # the next change or tick, not at once
                    continue
                seen = generation
                last_read = time.monotonic()
                if revoked():
                    return  # what was read may hold an event published after the change: not sent
                if more:
                    seen = -1  # more to read right away
                if out:
                    yield "".join(out)
                    last_sent = last_read
                if (out or more) and not server.stopping.is_set():
                    continue  # stopping: a feed catching up ends at a batch, its client resumes with the token
            if not stream or server.stopping.is_set() or server.timeline.phase.end_of_updates_s is not None:
                return  # the feed ends with end_of_updates (the last event of a finalized contest)
            if time.monotonic() - last_sent >= KEEPALIVE_S:
                yield "\n"
                last_sent = time.monotonic()
            await server.bus.changed(seen)  # or at the bus's tick (RECHECK_S): the checks above again

    return StreamingResponse(lines(), media_type="application/x-ndjson", headers={"Cache-Control": "no-store"})
