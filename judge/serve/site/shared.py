"""A contest's part in sharing its database with other `judge serve` processes (issue 51, ``--shared``;
docs/design.md): this process's lease terms for the judging queue's claims, and what another process's
commit on the database makes this one do (heard through LISTEN/NOTIFY: storage/postgres.py's ``on_change``)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from judge.serve.model.times import Clock
from judge.serve.services.judging.queue import LeaseTerms
from judge.serve.services.judging.versions import VersionTools, reload_versions

if TYPE_CHECKING:
    from judge.serve.site.server import ServeOptions, Server


def lease_terms(options: ServeOptions, clock: Clock) -> LeaseTerms | None:
    """Several processes on one database (issue 51, --shared): claims are leases in it, under this process's own
    token (its pid, for the people reading the table, and a random part), on the server's clock (the wall clock;
    a test's own)."""
    if not options.engine.shared:
        return None
    return LeaseTerms(f"{os.getpid()}-{secrets.token_hex(6)}", options.lease_s, clock.now)


def heard(server: Server, tools: VersionTools) -> Callable[[], None]:
    """What another process's commit on the same database makes this one do (issue 51, --shared: LISTEN/NOTIFY):
    the phase read again (an admin's freeze, times, settings), the package versions made current there, the
    event log reads what was committed, the feeds wake, the boards (keyed on the log's newest events) are made
    anew."""

    def heard() -> None:
        server.timeline.reload()
        with server.storage.read() as r:
            for line in reload_versions(r, server.package, server.versions, tools):
                server.log(line)
        server.bus.notify()

    return heard
