"""What the people's services receive: every service's parts (core/context.py), the package as loaded, the
roster in force, the logins and the sessions found, and the site's people (site_people.py: where they are
stored and changed, for every contest of a site)."""

from __future__ import annotations

from typing import Protocol

from judge.serve.model.contest import Contest
from judge.serve.model.roster import Roster
from judge.serve.services.core.context import Served
from judge.serve.services.people.accounts import Authenticator
from judge.serve.services.people.live_roster import LiveRoster
from judge.serve.services.people.session_cache import SessionCache
from judge.serve.services.people.site_people import SitePeople


class ServedPeople(Served, Protocol):
    @property
    def package(self) -> Contest:
        """The contest as loaded from disk (``contest`` is it with the admins' changes)."""
        ...

    @property
    def auth(self) -> Authenticator: ...

    @property
    def roster(self) -> LiveRoster: ...

    @property
    def session_cache(self) -> SessionCache: ...

    @property
    def people(self) -> SitePeople:
        """The site's people (a single contest's own): their storage, roster in force, logins, sessions."""
        ...

    def contest_with(self, roster: Roster) -> Contest:
        """The contest as it is with ``roster``'s teams and accounts."""
        ...
