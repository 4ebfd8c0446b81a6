"""The course's people in a site's files (docs/course.md, the site layout of docs/serve.md): ``teams.json``,
``groups.json`` and ``accounts.yaml`` at the site's top. Reading them into a ``Roster`` and writing a roster
import's changes back are exact inverses (tests/test_course_roster.py).

How a course is written in them (CCS contest package files, with two keys of ours that `judge serve` ignores):

- a student is a team (``id``: the student's id, ``name``, ``label``: the id) in the group ``students`` and in
  their section's group, and one account of type ``team`` (``username``: the id, a password hash, ``name``,
  and ``email``, ours: accounts.yaml is owner-only, teams.json is shown to everyone);
- a section is a group with ``type: section`` (its id: roster.section_id of its name);
- a withdrawn student's team is in the hidden group ``withdrawn`` only, and has no account.

Other teams, groups and accounts (staff, group-work teams) are left as they are, in their order; unknown keys
of a student's entries are kept. Files are written owner-only (0600) and whole (a temporary file renamed).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from judge.course.roster import Roster, Student, section_id
from judge.course.rosterdiff import RosterPlan
from judge.course.values import CourseError

STUDENTS_GROUP = "students"
WITHDRAWN_GROUP = "withdrawn"
SECTION_TYPE = "section"
ACCOUNTS_HEADER = "# The site's accounts: passwords are argon2 hashes (the clear ones were given out once).\n"


@dataclass(frozen=True)
class People:
    """The three files' entries, as read (lists of mappings), and where they are."""

    teams: tuple[Mapping[str, Any], ...]
    groups: tuple[Mapping[str, Any], ...]
    accounts: tuple[Mapping[str, Any], ...]
    teams_path: Path
    groups_path: Path
    accounts_path: Path


def _find(root: Path, stem: str, exts: Sequence[str]) -> Path:
    return next((root / f"{stem}{e}" for e in exts if (root / f"{stem}{e}").is_file()), root / f"{stem}{exts[0]}")


def _load(path: Path) -> tuple[Mapping[str, Any], ...]:
    if not path.is_file():
        return ()
    try:
        raw = path.read_text(encoding="utf-8")
        data = json.loads(raw) if path.suffix == ".json" else yaml.safe_load(raw)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise CourseError(f"{path}: not readable ({type(exc).__name__})") from None
    if data is None:
        return ()
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise CourseError(f"{path}: expected a list of objects")
    return tuple(data)


def read_people(root: Path) -> People:
    teams_path = _find(root, "teams", (".json", ".yaml"))
    groups_path = _find(root, "groups", (".json", ".yaml"))
    accounts_path = _find(root, "accounts", (".yaml", ".json"))
    return People(_load(teams_path), _load(groups_path), _load(accounts_path), teams_path, groups_path, accounts_path)


def _group_ids(team: Mapping[str, Any]) -> list[str]:
    raw = team.get("group_ids") or []
    return [str(g) for g in raw] if isinstance(raw, list) else []


def _sections(people: People) -> dict[str, str]:
    """Section group id -> the section's name."""
    return {str(g["id"]): str(g.get("name", g["id"])) for g in people.groups if g.get("type") == SECTION_TYPE}


def _student(
    team: Mapping[str, Any], sections: Mapping[str, str], accounts: Mapping[str, Mapping[str, Any]]
) -> Student:
    tid = str(team["id"])
    section = next((sections[g] for g in _group_ids(team) if g in sections), "")
    account = accounts.get(tid, {})
    return Student(tid, str(team.get("name") or tid), str(account.get("email") or ""), section)


def roster_from(people: People) -> Roster:
    """The students and the withdrawn of a site's files."""
    sections = _sections(people)
    accounts = {str(a["team_id"]): a for a in people.accounts if a.get("type") == "team" and a.get("team_id")}
    students, withdrawn = [], []
    for team in people.teams:
        if "id" not in team:
            continue
        groups = _group_ids(team)
        if STUDENTS_GROUP in groups:
            students.append(_student(team, sections, accounts))
        elif WITHDRAWN_GROUP in groups:
            withdrawn.append(_student(team, sections, {}))
    try:
        return Roster(tuple(students), tuple(withdrawn))
    except ValueError:
        raise CourseError(f"{people.teams_path}: a team id twice") from None


def read_roster(root: Path) -> Roster:
    return roster_from(read_people(root))


def _groups(people: People, wanted_sections: set[str], withdrawn: bool) -> list[dict[str, Any]]:
    groups = [dict(g) for g in people.groups]
    known = {str(g.get("id")): g for g in groups}
    ids_of: dict[str, str] = {}
    for name in sorted(wanted_sections):
        sid = section_id(name)
        if sid in ids_of and ids_of[sid] != name:
            raise CourseError(f"the sections {ids_of[sid]!r} and {name!r} would have the same id {sid!r}: rename one")
        ids_of[sid] = name
        if sid in (STUDENTS_GROUP, WITHDRAWN_GROUP):
            raise CourseError(f"a section cannot be called {name!r} (the group {sid!r} is the course's own)")
        existing = known.get(sid)
        if existing is not None and existing.get("type") != SECTION_TYPE:
            raise CourseError(f"{people.groups_path}: the group {sid!r} exists and is not a section (type: section)")
        if existing is None:
            groups.append({"id": sid, "name": name, "type": SECTION_TYPE})
        else:
            existing["name"] = name
    if STUDENTS_GROUP not in known:
        groups.append({"id": STUDENTS_GROUP, "name": "Students"})
    if withdrawn and WITHDRAWN_GROUP not in known:
        groups.append({"id": WITHDRAWN_GROUP, "name": "Withdrawn", "hidden": True})
    return groups


def _placed(team: dict[str, Any], student: Student, sections: Mapping[str, str], group: str) -> dict[str, Any]:
    """``team`` (an existing entry, or new) as ``student``'s, in ``group`` and their section."""
    keep = [g for g in _group_ids(team) if g not in sections and g not in (STUDENTS_GROUP, WITHDRAWN_GROUP)]
    mine = [group] + ([section_id(student.section)] if student.section and group == STUDENTS_GROUP else [])
    team.update({"id": student.id, "name": student.name or student.id, "group_ids": mine + keep})
    team.setdefault("label", student.id)
    return team


def _account(existing: Mapping[str, Any] | None, student: Student, password_hash: str | None) -> dict[str, Any]:
    account = dict(existing or {"id": student.id, "username": student.id, "type": "team", "team_id": student.id})
    if password_hash is not None:
        account["password"] = password_hash
    account["name"] = student.name or student.id
    if student.email:
        account["email"] = student.email
    else:
        account.pop("email", None)
    return account


def _check_free(people: People, plan: RosterPlan, withdrawn: set[str]) -> None:
    """An added student's id must not be another team's or another account's (only a withdrawn student's)."""
    team_ids = {str(t.get("id")) for t in people.teams}
    taken = {str(a.get(k)) for a in people.accounts for k in ("id", "username")}
    for s in plan.added:
        if s.id in team_ids and s.id not in withdrawn:
            raise CourseError(f"{people.teams_path}: the team {s.id!r} exists and is not a student's: rename one")
        if s.id in taken:
            raise CourseError(f"{people.accounts_path}: an account {s.id!r} exists already (not a student's)")


def applied_people(people: People, plan: RosterPlan, password_hash: Callable[[Student], str]) -> People:
    """The files' entries with ``plan`` applied; ``password_hash(student)``: the stored hash of an added
    student's new password."""
    current = roster_from(people)
    withdrawn_ids = {s.id for s in current.withdrawn}
    _check_free(people, plan, withdrawn_ids)
    after = {c.after.id: c.after for c in plan.changed} | {s.id: s for s in plan.added}
    removed = {s.id: s for s in plan.removed}
    wanted = {s.section for s in (*current.students, *plan.added) if s.id not in removed and s.id not in after}
    wanted |= {s.section for s in after.values()}
    groups = _groups(people, {w for w in wanted if w}, bool(withdrawn_ids - set(after)) or bool(removed))
    sections = {str(g["id"]): str(g.get("name", g["id"])) for g in groups if g.get("type") == SECTION_TYPE}
    teams: list[dict[str, Any]] = []
    for entry in people.teams:
        team, tid = dict(entry), str(entry.get("id"))
        if tid in after:
            team = _placed(team, after.pop(tid), sections, STUDENTS_GROUP)
        elif tid in removed:
            team = _placed(team, removed[tid], sections, WITHDRAWN_GROUP)
        teams.append(team)
    teams += [_placed({}, s, sections, STUDENTS_GROUP) for s in plan.added if s.id in after]
    changed = {c.after.id: c.after for c in plan.changed}
    added = {s.id: s for s in plan.added}
    accounts: list[dict[str, Any]] = []
    for entry in people.accounts:
        owner = str(entry.get("team_id")) if entry.get("type") == "team" else None
        if owner in removed:
            continue
        accounts.append(_account(entry, changed[owner], None) if owner in changed else dict(entry))
    accounts += [_account(None, s, password_hash(s)) for s in added.values()]
    return People(
        tuple(teams), tuple(groups), tuple(accounts), people.teams_path, people.groups_path, people.accounts_path
    )


def _dump(path: Path, entries: Sequence[Mapping[str, Any]], header: str = "") -> str:
    if path.suffix == ".json":
        return json.dumps(list(entries), indent=2, ensure_ascii=False) + "\n"
    return header + yaml.safe_dump([dict(e) for e in entries], sort_keys=False, allow_unicode=True)


def write_private(path: Path, text: str, *, exclusive: bool = False) -> None:
    """``text`` into ``path``, owner-only (0600) from its creation; whole: a temporary file renamed over it.
    ``exclusive``: refuse an existing file (a file of passwords is written once)."""
    if exclusive:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(text)
    tmp.replace(path)


def write_people(people: People) -> list[Path]:
    """Write the three files (owner-only). Returns them."""
    write_private(people.teams_path, _dump(people.teams_path, people.teams))
    write_private(people.groups_path, _dump(people.groups_path, people.groups))
    write_private(people.accounts_path, _dump(people.accounts_path, people.accounts, ACCOUNTS_HEADER))
    return [people.teams_path, people.groups_path, people.accounts_path]
