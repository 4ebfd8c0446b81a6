"""Teams and accounts while the contest runs (issue 30), admins only: add or edit a team (hide it: still
judged, off the public and teams' board) or an account, reset a password (the new one is shown once),
disable an account (it cannot log in, its sessions end, so nothing more is submitted from it) and enable it
again. Each change is stored as an override of the contest package (storage's live_teams and
live_accounts: the package on disk stays the organizer's input, and a restart keeps the change), written to
the audit log, and published on the event feed (the spec's teams and accounts objects), in one transaction.
In a site (issue 44) the people are the site's: a change is stored in the site database (its audit log)
and applies to every contest the team takes part in, each publishing it on its own feed (site_people.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from judge.serve.model.apijson import account_json, team_json
from judge.serve.model.contest import AccountSpec
from judge.serve.model.errors import Refused
from judge.serve.model.records import LiveAccount
from judge.serve.model.roster import (
    Roster,
    RosterError,
    account_from,
    new_password,
    object_from,
    parse_import,
    team_from,
)
from judge.serve.model.viewer import Viewer
from judge.serve.services.people import access, sessions
from judge.serve.services.people.accounts import is_hash, sync_accounts
from judge.serve.services.people.audit import audit
from judge.serve.services.people.context import ServedPeople
from judge.serve.services.people.live_roster import stored_roster
from judge.serve.services.people.site_people import GENERATION
from judge.serve.storage import Writer

AccountAnswer = tuple[dict[str, Any], str | None]  # the account object, and its new password (shown once)


def _change(
    server: ServedPeople, viewer: Viewer, now: float, store: Callable[[Writer, Roster], dict[str, Any]]
) -> None:
    """Store a change of the site's people (``store`` writes its rows and returns the audit line's action
    and detail), then in the same transaction: the accounts table as the merged roster makes it, the sessions
    of every account whose password changed or that is disabled ended (and, in a single contest folder, the
    feed's teams and accounts); then the roster and login table in force, and every contest's feed
    (site_people.py: a site's contests publish it in their own databases)."""
    people = server.people
    with people.lock:
        before = people.current()
        with people.storage.write() as w:
            entry = store(w, before)
            audit(w, viewer, now, entry.pop("action"), entry)
            after = stored_roster(people.package, w)
            ended = sync_accounts(w, after.accounts, people.auth.hasher)
            ended_sessions = {*ended, *(after.disabled - before.disabled)}
            for account_id in ended_sessions:
                sessions.end_all(w, account_id)
            people.publish_within(w, after, now)
            stored = w.accounts()
            # the other processes on the database (issue 51, --shared) read the people again (SitePeople.reload)
            people.generation = secrets.token_hex(8)
            w.set_meta(GENERATION, people.generation)
        people.session_cache.forget_accounts(ended_sessions)  # after the commit (SessionCache)
        people.roster.set(after)
        people.auth.reload(stored, after.disabled)
        people.publish_after(after, now)


def change_people(
    server: ServedPeople, viewer: Viewer, now: float, store: Callable[[Writer, Roster], dict[str, Any]]
) -> None:
    """A change of the people made by another module (a course's roster import, issue 45: course_roster.py),
    stored, audited and put in force as the changes here are (``_change``)."""
    _change(server, viewer, now, store)


def _refused(exc: RosterError) -> Refused:
    return Refused(exc.status, exc.message)


def put_team(server: ServedPeople, viewer: Viewer, team_id: str, body: Any, now: float) -> dict[str, Any]:
    """Add a team, or change one (a package team too). Returns the team object."""
    access.admin(viewer, "add or change teams")
    try:
        team = team_from(body, server.people.current())
    except RosterError as exc:
        raise _refused(exc) from None
    if team.id != team_id:
        raise Refused(409, f"the body's id {team.id!r} is not the URL's ({team_id!r})")

    def store(w: Writer, roster: Roster) -> dict[str, Any]:
        w.put_live_team(team, now)
        known = any(t.id == team.id for t in roster.teams)
        return {"action": "team.change" if known else "team.add", **team_json(team)}

    _change(server, viewer, now, store)
    return team_json(team)


def put_object(
    server: ServedPeople, viewer: Viewer, kind: str, object_id: str, body: Any, now: float
) -> dict[str, Any]:
    """Add or change a group or an organization (``kind``). Returns the object."""
    access.admin(viewer, f"add or change {kind}")
    try:
        obj = object_from(body, kind)
    except RosterError as exc:
        raise _refused(exc) from None
    if obj["id"] != object_id:
        raise Refused(409, f"the body's id {obj['id']!r} is not the URL's ({object_id!r})")

    def store(w: Writer, roster: Roster) -> dict[str, Any]:
        w.put_live_object(kind, obj, now)
        known = any(str(o["id"]) == obj["id"] for o in getattr(roster, kind))
        return {"action": f"{kind[:-1]}.{'change' if known else 'add'}", **obj}

    _change(server, viewer, now, store)
    return obj


def set_hidden(server: ServedPeople, viewer: Viewer, team_id: str, hidden: bool, now: float) -> dict[str, Any]:
    access.admin(viewer, "hide teams")
    team = next((t for t in server.people.current().teams if t.id == team_id), None)
    if team is None:
        raise Refused(404, f"no team {team_id!r}")
    body = {**team_json(team), "hidden": hidden}
    return put_team(server, viewer, team_id, body, now)


def _live(a: AccountSpec, digest: str | None, disabled: bool, now: float) -> LiveAccount:
    return LiveAccount(a.id, a.username, a.type, a.team_id, a.name, digest, disabled, now)


def put_account(
    server: ServedPeople, viewer: Viewer, account_id: str, body: Any, now: float
) -> tuple[dict[str, Any], str | None]:
    """Add an account, or change one. Returns the account object and the password when one was set or
    generated (shown once: only its argon2 hash is kept)."""
    access.admin(viewer, "add or change accounts")
    roster = server.people.current()
    try:
        spec, password = account_from(body, roster)
    except RosterError as exc:
        raise _refused(exc) from None
    if spec.id != account_id:
        raise Refused(409, f"the body's id {spec.id!r} is not the URL's ({account_id!r})")
    digest = None if password is None else server.people.auth.hasher.hash(password)

    def store(w: Writer, roster: Roster) -> dict[str, Any]:
        known = roster.account(spec.id) is not None
        w.put_live_account(_live(spec, digest, spec.id in roster.disabled, now))
        action = "account.change" if known else "account.add"
        return {"action": action, **account_json(spec), "password_changed": password is not None}

    _change(server, viewer, now, store)
    return account_json(spec), password


def _existing(server: ServedPeople, account_id: str) -> tuple[Roster, AccountSpec]:
    roster = server.people.current()
    found = roster.account(account_id)
    if found is None:
        raise Refused(404, f"no account {account_id!r}")
    return roster, found


def reset_password(server: ServedPeople, viewer: Viewer, account_id: str, now: float) -> str:
    """A new random password for the account (its sessions end); returned once, never stored in clear."""
    access.admin(viewer, "reset passwords")
    roster, found = _existing(server, account_id)
    password = new_password()
    digest = server.people.auth.hasher.hash(password)

    def store(w: Writer, roster: Roster) -> dict[str, Any]:
        w.put_live_account(_live(found, digest, found.id in roster.disabled, now))
        return {"action": "account.reset_password", "id": found.id, "username": found.username}

    _change(server, viewer, now, store)
    return password


def set_disabled(server: ServedPeople, viewer: Viewer, account_id: str, disabled: bool, now: float) -> dict[str, Any]:
    """Disable an account (it cannot log in, its sessions end) or enable it again."""
    access.admin(viewer, "disable accounts")
    _, found = _existing(server, account_id)
    if disabled and found.id == viewer.account_id:
        raise Refused(409, "you cannot disable your own account")

    def store(w: Writer, roster: Roster) -> dict[str, Any]:
        stored = next((a for a in w.live_accounts() if a.id == found.id), None)
        digest = None if stored is None else stored.password_hash
        w.put_live_account(_live(found, digest, disabled, now))
        return {"action": "account.disable" if disabled else "account.enable", "id": found.id}

    _change(server, viewer, now, store)
    return {**account_json(found), "disabled": disabled}


def import_entries(server: ServedPeople, viewer: Viewer, upload: tuple[str, str], now: float) -> list[tuple[str, str]]:
    """Add or replace every team or account of an uploaded file (``upload``: its name and text; the formats of
    model/roster.parse_import), all or nothing. Returns (username, password) of the accounts that got a
    generated password (shown once)."""
    access.admin(viewer, "import teams or accounts")
    roster = server.people.current()
    try:
        kind, entries = parse_import(upload[0], upload[1], roster.teams)
        if kind == "teams":
            teams = [team_from(e, roster) for e in entries]
            accounts: list[tuple[AccountSpec, str | None]] = []
        else:
            teams, accounts = [], _accounts_of(entries, roster)
    except RosterError as exc:
        raise _refused(exc) from None
    hashed = [(a, _digest(server, p)) for a, p in accounts]

    def store(w: Writer, roster: Roster) -> dict[str, Any]:
        for t in teams:
            w.put_live_team(t, now)
        for a, digest in hashed:
            w.put_live_account(_live(a, digest, a.id in roster.disabled, now))
        return {"action": f"{kind}.import", "file": upload[0], "count": len(teams) + len(hashed)}

    _change(server, viewer, now, store)
    generated = [e.get("password") is None for e in entries] if kind == "accounts" else []
    return [(a.username, p) for (a, p), new in zip(accounts, generated, strict=True) if new and p is not None]


def _accounts_of(entries: list[dict[str, Any]], roster: Roster) -> list[tuple[AccountSpec, str | None]]:
    out: list[tuple[AccountSpec, str | None]] = []
    for i, e in enumerate(entries, start=1):
        try:
            spec, password = account_from(e, roster)
        except RosterError as exc:
            raise RosterError(f"entry {i}: {exc.message}", exc.status) from None
        roster = replace(roster, accounts=(*(a for a in roster.accounts if a.id != spec.id), spec))
        out.append((spec, password))
    return out


def _digest(server: ServedPeople, password: str | None) -> str | None:
    if password is None:
        return None
    return password if is_hash(password) else server.people.auth.hasher.hash(password)
