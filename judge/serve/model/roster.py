"""Teams and accounts while the contest runs (issue 30): the contest package's, with an admin's changes
(records.LiveAccount, and teams stored whole) laid over them, and the strict reading of a team or an
account an admin sends (the API's JSON body, or the page's form as the same dict). Pure: no storage.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import yaml

from judge.serve.model.contest import (
    ACCOUNT_TYPES,
    GROUP_KEYS,
    ORGANIZATION_KEYS,
    AccountSpec,
    ContestInfo,
    People,
    Team,
    valid_id,
)
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
    groups: tuple[Mapping[str, Any], ...] = ()
    organizations: tuple[Mapping[str, Any], ...] = ()

    def account(self, account_id: str) -> AccountSpec | None:
        return next((a for a in self.accounts if a.id == account_id), None)


@dataclass(frozen=True)
class Changes:
    """What an admin changed of the package's people, as stored."""

    teams: Sequence[Team] = ()
    accounts: Sequence[LiveAccount] = ()
    groups: Sequence[Mapping[str, Any]] = ()
    organizations: Sequence[Mapping[str, Any]] = ()


def _over(package: Sequence[Mapping[str, Any]], changed: Sequence[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    by_id = {str(o["id"]): o for o in package}
    for o in changed:
        by_id[str(o["id"])] = o
    return tuple(by_id.values())


def merged(package: People, changes: Changes) -> Roster:
    """The package's teams and accounts with the stored changes over them (a change replaces the package's
    entry of its id; a new id is added, in the order it was added). A changed password is the stored
    argon2 hash (sync_accounts keeps a hash as it is)."""
    teams, accounts = changes.teams, changes.accounts
    by_id = {t.id: t for t in package.teams}
    for t in teams:
        by_id[t.id] = t
    specs = {a.id: a for a in package.accounts}
    for a in accounts:
        before = specs.get(a.id)
        password = a.password_hash if a.password_hash is not None else (before.password if before else "")
        specs[a.id] = AccountSpec(a.id, a.username, password, a.type, a.team_id, a.name)
    disabled = frozenset(a.id for a in accounts if a.disabled)
    groups = _over(package.groups, changes.groups)
    organizations = _over(package.organizations, changes.organizations)
    return Roster(tuple(by_id.values()), tuple(specs.values()), disabled, groups, organizations)


def taking_part(roster: Roster, info: ContestInfo) -> Roster:
    """The people of a contest (issue 44): the site's teams that take part (contest.yaml's ``teams:``), the
    accounts of those teams and every staff account, the groups and organizations those teams are in (and
    the groups ``teams:`` names, and the main scoreboard's group). ``teams: all``: ``roster`` itself."""
    choice = info.teams
    if choice.everyone:
        return roster
    teams = tuple(t for t in roster.teams if choice.takes_part(t.id, t.group_ids))
    ids = {t.id for t in teams}
    accounts = tuple(a for a in roster.accounts if a.type != "team" or a.team_id in ids)
    used = {g for t in teams for g in t.group_ids} | set(choice.group_ids or ())
    if info.main_scoreboard_group_id is not None:
        used.add(info.main_scoreboard_group_id)
    groups = tuple(g for g in roster.groups if str(g["id"]) in used)
    orgs = {t.organization_id for t in teams}
    organizations = tuple(o for o in roster.organizations if str(o["id"]) in orgs)
    return Roster(teams, accounts, roster.disabled, groups, organizations)


def object_from(body: Any, kind: str) -> dict[str, Any]:
    """A group or an organization (``kind``) as groups.json or organizations.json writes it: the spec's
    properties only, ``id`` and ``name`` required, the rest strings."""
    keys = GROUP_KEYS if kind == "groups" else ORGANIZATION_KEYS
    if not isinstance(body, dict):
        raise RosterError(f"the body must be a JSON object: an entry of {kind}.json")
    unknown = sorted(set(body) - set(keys))
    if unknown:
        raise RosterError(f"unknown properties: {', '.join(unknown)} (known: {', '.join(keys)})")
    obj: dict[str, Any] = {"id": _an_id(body)}
    for key in keys[1:]:
        value = _text(body, key, required=key == "name")
        if value is not None:
            obj[key] = value
    return obj


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


class Grouped(Protocol):
    """What a team's references are checked against: a roster's (or a contest's) groups and organizations."""

    @property
    def groups(self) -> tuple[Mapping[str, Any], ...]: ...

    @property
    def organizations(self) -> tuple[Mapping[str, Any], ...]: ...


def team_from(body: Any, contest: Grouped) -> Team:
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


IMPORT_LIMIT = 5000  # entries in one upload
IMPORT_DEPTH = 32  # how deep an uploaded file may nest (as the API's JSON bodies: model/jsonbody.py)


def _tsv_rows(text: str, kind: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.strip()]
    head = lines[0].split("\t") if lines else []
    if not head or head[0].strip() != kind:
        raise RosterError(f"a DOMjudge {kind}.tsv starts with the line `{kind}<TAB>1`")
    return [[c.strip() for c in line.split("\t")] for line in lines[1:]]


def _tsv_teams(text: str) -> list[dict[str, Any]]:
    """DOMjudge's teams.tsv: team id, external id, category (our group) id, name, institution, ..."""
    out = []
    for i, cols in enumerate(_tsv_rows(text, "teams"), start=2):
        if len(cols) < 4:
            raise RosterError(f"teams.tsv line {i}: expected at least 4 columns (id, external id, category, name)")
        entry: dict[str, Any] = {"id": cols[0], "name": cols[3], "group_ids": [cols[2]] if cols[2] else []}
        if cols[1]:
            entry["icpc_id"] = cols[1]
        out.append(entry)
    return out


_TEAM_USER = re.compile(r"team0*([0-9]+)")


def _tsv_accounts(text: str, teams: Sequence[Team]) -> list[dict[str, Any]]:
    """DOMjudge's accounts.tsv: type (team, judge or jury, admin), full name, username, password; a team
    account's team is the one whose id is the username's number (``team007``: team ``7``), or its username."""
    ids = {t.id for t in teams}
    out = []
    for i, cols in enumerate(_tsv_rows(text, "accounts"), start=2):
        if len(cols) < 4:
            raise RosterError(f"accounts.tsv line {i}: expected 4 columns (type, name, username, password)")
        kind = {"jury": "judge"}.get(cols[0], cols[0])
        entry: dict[str, Any] = {"id": cols[2], "username": cols[2], "type": kind, "password": cols[3]}
        if cols[1]:
            entry["name"] = cols[1]
        if kind == "team":
            m = _TEAM_USER.fullmatch(cols[2])
            entry["team_id"] = m.group(1) if m and m.group(1) in ids else cols[2]
        out.append(entry)
    return out


def parse_import(name: str, text: str, teams: Sequence[Team]) -> tuple[str, list[dict[str, Any]]]:
    """An uploaded file as ("teams" | "accounts", its entries): teams.json (or .yaml) and accounts.yaml (or
    .json) of the contest package format, or DOMjudge's teams.tsv and accounts.tsv (told by their first
    line). Raises RosterError."""
    stem = name.rsplit("/", 1)[-1].lower()
    if stem.endswith(".tsv"):
        first = text.lstrip().split("\t", 1)[0]
        if first == "teams":
            return "teams", _tsv_teams(text)
        if first == "accounts":
            return "accounts", _tsv_accounts(text, teams)
        raise RosterError(f"{name}: a TSV file must be DOMjudge's teams.tsv or accounts.tsv")
    kind = "teams" if stem.startswith("teams") else "accounts" if stem.startswith("accounts") else None
    if kind is None:
        raise RosterError(f"{name}: upload teams.json, accounts.yaml, teams.tsv or accounts.tsv")
    try:
        data = yaml.safe_load(text)  # JSON is YAML
    except yaml.YAMLError:
        raise RosterError(f"{name}: not valid JSON or YAML") from None
    except RecursionError:  # the parser recurses per level (issue 43: a 500 with a traceback)
        raise RosterError(f"{name}: nested more than {IMPORT_DEPTH} deep") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise RosterError(f"{name}: expected a list of objects")
    if len(data) > IMPORT_LIMIT:
        raise RosterError(f"{name}: more than {IMPORT_LIMIT} entries")
    if _deeper_than(data, IMPORT_DEPTH):
        raise RosterError(f"{name}: nested more than {IMPORT_DEPTH} deep")
    for i, e in enumerate(data, start=1):
        odd = [k for k in e if not isinstance(k, str)]
        if odd:
            raise RosterError(f"{name}: entry {i}: a key that is not a string ({str(odd[0])[:40]!r})")
    return kind, [{k: _id_text(k, v) for k, v in e.items()} for e in data]


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether ``data`` (lists and mappings) nests deeper than ``limit``, each one counted once (YAML's
    aliases share them: a structure that holds itself, or one that multiplies by aliases, costs its size)."""
    level, seen = [data], {id(data)}
    for _ in range(limit + 1):
        below = []
        for x in level:
            for c in x.values() if isinstance(x, dict) else x:
                if isinstance(c, (list, dict)) and id(c) not in seen:
                    seen.add(id(c))
                    below.append(c)
        if not below:
            return False
        level = below
    return True


def _id_text(key: str, value: Any) -> Any:
    """Ids written as numbers (``id: 7``) read as the spec's strings."""
    numeric = isinstance(value, int) and not isinstance(value, bool)
    return str(value) if numeric and key in ("id", "team_id", "icpc_id") else value
