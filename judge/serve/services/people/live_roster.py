"""The roster in force while the contest runs (issue 30): the package's teams, accounts, groups and
organizations with the admins' stored changes laid over it (model/roster.py merges them), held whole and
replaced on each change (roster.py), and published on the event feed."""

from __future__ import annotations

import threading

from judge.serve.model.apijson import account_json, team_json
from judge.serve.model.contest import Contest, People
from judge.serve.model.roster import Changes, Roster, merged
from judge.serve.services.core.events import sync_collection
from judge.serve.storage import Reader, Writer
from judge.serve.visibility import account_audience, group_audience


class LiveRoster:
    """The roster in force (replaced, never changed: safe to keep for one request); None until the server
    has read it."""

    def __init__(self) -> None:
        self._roster: Roster | None = None
        self.lock = threading.Lock()  # one change at a time

    @property
    def current(self) -> Roster | None:
        return self._roster

    def set(self, roster: Roster) -> None:
        self._roster = roster


def stored_roster(package: People, r: Reader) -> Roster:
    groups, organizations = r.live_objects("groups"), r.live_objects("organizations")
    return merged(package, Changes(r.live_teams(), r.live_accounts(), groups, organizations))


def publish_people(w: Writer, contest: Contest, now: float) -> None:
    """The groups, organizations, teams and accounts collections on the event feed (a team's account: that
    team and staff)."""
    hidden = contest.hidden_groups  # staff only (DOMjudge's hidden groups)
    groups = [dict(g) for g in contest.groups]
    sync_collection(w, "groups", groups, now=now, audience=lambda o: group_audience(o["id"] in hidden))
    sync_collection(w, "organizations", [dict(o) for o in contest.organizations], now=now)
    sync_collection(w, "teams", [team_json(t) for t in contest.teams], now=now)
    teams = {a.id: a.team_id for a in contest.accounts}
    accounts = [account_json(a) for a in contest.accounts]
    sync_collection(w, "accounts", accounts, now=now, audience=lambda o: account_audience(teams[o["id"]]))
