"""The site's people (issue 44): shared by every contest of a site, kept in the site's database.

A site's accounts, teams, groups and organizations (the site folder's files, with the admins' changes laid
over them: live_roster.py), the logins (``Authenticator``) and the pages' sessions are the site's: one login
works in every contest. ``SitePeople`` holds them and the contests that show them: each contest's roster is
the site's taken part by its ``teams:`` (model/roster.taking_part), published on its own event feed. A
change is stored once, in the site database (roster.py), and then each contest publishes it in its own
event log (idempotent: ``sync_collection`` publishes what changed; redone at every start). A single
contest folder is a site of one whose database is both: its contest publishes in the change's own
transaction, as before sites.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from judge.serve.model.contest import Contest, People
from judge.serve.model.roster import Roster, taking_part
from judge.serve.services.core.events import EventBus
from judge.serve.services.people.accounts import Authenticator
from judge.serve.services.people.live_roster import LiveRoster, publish_people, stored_roster
from judge.serve.services.people.session_cache import SessionCache
from judge.serve.storage import Storage, Writer

GENERATION = "people_generation"  # meta: changed by every change of the people (roster.py), read by ``reload``


class ContestPeople(Protocol):
    """A contest's side of the people: its storage and event bus, the package as loaded, its roster in force."""

    @property
    def storage(self) -> Storage: ...

    @property
    def bus(self) -> EventBus: ...

    @property
    def package(self) -> Contest: ...

    @property
    def roster(self) -> LiveRoster: ...

    def contest_with(self, roster: Roster) -> Contest: ...


@dataclass
class SitePeople:
    """Where the people are stored (the site database; a single contest's own), as their files hold them, the
    roster in force, the logins and the sessions found; ``contests`` gives the contests that show them."""

    storage: Storage
    package: People
    auth: Authenticator
    roster: LiveRoster = field(default_factory=LiveRoster)
    session_cache: SessionCache = field(default_factory=SessionCache)
    contests: Callable[[], Sequence[ContestPeople]] = lambda: ()
    lock: threading.Lock = field(default_factory=threading.Lock)  # one change at a time
    generation: str | None = None  # ``GENERATION`` in the database when the roster in force was read (reload)

    def reload(self) -> bool:
        """Read the roster and the accounts again when another process on the database changed them (issue 51,
        ``--shared``: called when it commits); one ``meta`` read when they did not change. Whether they did."""
        with self.lock:
            with self.storage.read() as r:
                generation = r.get_meta(GENERATION)
                if generation == self.generation:
                    return False
                after = stored_roster(self.package, r)
                stored = r.accounts()
            self.generation = generation
            self.roster.set(after)
            self.auth.reload(stored, after.disabled)
            for c in self.contests():
                c.roster.set(taking_part(after, c.package.info))
        return True

    def current(self) -> Roster:
        roster = self.roster.current
        assert roster is not None
        return roster

    def publish_within(self, w: Writer, after: Roster, now: float) -> None:
        """In a change's own transaction (``w``, the people's database): the contests whose event log is in
        that database (a single contest's) publish it there."""
        for c in self.contests():
            if c.storage is self.storage:
                publish_people(w, c.contest_with(taking_part(after, c.package.info)), now)

    def publish_after(self, after: Roster, now: float) -> None:
        """After the change's commit: every contest takes its roster, and those of other databases publish it
        in their own (each its own transaction); their feeds are woken."""
        for c in self.contests():
            mine = taking_part(after, c.package.info)
            if c.storage is not self.storage:
                with c.storage.write() as w:
                    publish_people(w, c.contest_with(mine), now)
            c.roster.set(mine)
            c.bus.notify()
