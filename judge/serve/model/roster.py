"""Teams and accounts while the contest runs (issue 30): the contest package's, with an admin's changes
(records.LiveAccount, and teams stored whole) laid over them, and the strict reading of a team or an
account an admin sends (the API's JSON body, or the page's form as the same dict). Pure: no storage.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from judge.serve.model.contest import ACCOUNT_TYPES, AccountSpec, Contest, Team, valid_id
from judge.serve.model.records import LiveAccount

PASSWORD_BYTES = 12  # a generated password: 16 characters of base64url, 96 bits


class RosterError(ValueError):
    """A team or an account that cannot be (one line; a 400, or 409 for a clash)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Roster:
    """The teams and accounts in force, and the disabled accounts' ids."""

    teams: tuple[Team, ...]
    accounts: tuple[AccountSpec, ...]
    disabled: frozenset[str] = frozenset()

    def account(self, account_id: str) -> AccountSpec | None:
        return next((a for a in self.accounts if a.id == account_id), None)


def merged(package: Contest, teams: Sequence[Team], accounts: Sequence[LiveAccount]) -> Roster:
    """The package's teams and accounts with the stored changes over them (a change replaces the package's
    entry of its id; a new id is added, in the order it was added). A changed password is the stored
    argon2 hash (sync_accounts keeps a hash as it is)."""
    by_id = {t.id: t for t in package.teams}
    for t in teams:
        by_id[t.id] = t
    specs = {a.id: a for a in package.accounts}
    for a in accounts:
        before = specs.get(a.id)
        password = a.password_hash if a.password_hash is not None else (before.password if before else "")
        specs[a.id] = AccountSpec(a.id, a.username, password, a.type, a.team_id, a.name)
    disabled = frozenset(a.id for a in accounts if a.disabled)
    return Roster(tuple(by_id.values()), tuple(specs.values()), disabled)


def _text(body: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        if required:
            raise RosterError(f"`{key}` is required")
        return None
    if not isinstance(value, str):
        raise RosterError(f"`{key}` must be a string")
    if len(value) > 200 or not value.strip():
        raise RosterError(f"`{key}` must be 1 to 200 characters")
    return value.strip()


def _an_id(body: Mapping[str, Any], key: str = "id") -> str:
    value = _text(body, key, required=True)
    assert value is not None
    if not valid_id(value):
        raise RosterError(f"`{key}` {value!r} is not a valid ID (letters, digits, _ . -; at most 36)")
    return value


TEAM_KEYS = {"id", "name", "label", "display_name", "organization_id", "group_ids", "icpc_id", "hidden"}


def team_from(body: Any, contest: Contest) -> Team:
    """A team as the API's team object writes it (teams.json's entries), plus ``hidden``."""
    if not isinstance(body, dict):
        raise RosterError("the body must be a JSON object: a team as teams.json writes it")
    unknown = sorted(set(body) - TEAM_KEYS)
    if unknown:
        raise RosterError(f"unknown team properties: {', '.join(unknown)}")
    tid = _an_id(body)
    org = _text(body, "organization_id")
    if org is not None and all(o["id"] != org for o in contest.organizations):
        raise RosterError(f"no organization {org!r}")
    groups = body.get("group_ids") or []
    known = {g["id"] for g in contest.groups}
    if not isinstance(groups, list) or any(not isinstance(g, str) or g not in known for g in groups):
        raise RosterError(f"`group_ids` must list ids of the contest's groups ({', '.join(sorted(known)) or 'none'})")
    hidden = body.get("hidden", False)
    if not isinstance(hidden, bool):
        raise RosterError("`hidden` must be true or false")
    name = _text(body, "name") or tid
    return Team(
        id=tid,
        name=name,
        label=_text(body, "label") or tid,
        display_name=_text(body, "display_name"),
        organization_id=org,
        group_ids=tuple(groups),
        icpc_id=_text(body, "icpc_id"),
        hidden=hidden,
    )


ACCOUNT_KEYS = {"id", "username", "password", "type", "team_id", "name"}


def account_from(body: Any, roster: Roster) -> tuple[AccountSpec, str | None]:
    """An account as accounts.yaml writes it; its password may be left out (then a new one is generated,
    shown once, for a new account; an existing account keeps its own). Returns the account and the plain
    password to set (None: keep)."""
    if not isinstance(body, dict):
        raise RosterError("the body must be a JSON object: an account as accounts.yaml writes it")
    unknown = sorted(set(body) - ACCOUNT_KEYS)
    if unknown:
        raise RosterError(f"unknown account properties: {', '.join(unknown)}")
    aid = _an_id(body)
    username = _text(body, "username") or aid
    kind = _text(body, "type", required=True)
    if kind not in ACCOUNT_TYPES:
        raise RosterError(f"`type` must be one of {', '.join(ACCOUNT_TYPES)}")
    team_id = _text(body, "team_id")
    if kind == "team" and all(t.id != team_id for t in roster.teams):
        raise RosterError(f"a team account needs the team_id of a team of the contest, got {team_id!r}")
    if kind != "team" and team_id is not None:
        raise RosterError("only team accounts have a team_id")
    clash = next((a for a in roster.accounts if a.username == username and a.id != aid), None)
    if clash is not None:
        raise RosterError(f"the username {username!r} is taken by account {clash.id!r}", 409)
    password = body.get("password")
    if password is not None and (not isinstance(password, str) or not 8 <= len(password) <= 200):
        raise RosterError("`password` must be 8 to 200 characters")
    before = roster.account(aid)
    if password is None and before is None:
        password = new_password()
    spec = AccountSpec(aid, username, before.password if before else "", kind, team_id, _text(body, "name"))
    return spec, password


def new_password() -> str:
    return secrets.token_urlsafe(PASSWORD_BYTES)


def with_password_hash(a: AccountSpec, digest: str | None) -> AccountSpec:
    return a if digest is None else replace(a, password=digest)
