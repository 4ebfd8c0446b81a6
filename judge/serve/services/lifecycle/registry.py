"""A site's contests as its admins set them (issue 44): hidden (staff only, from then on), archived
(read-only: no submissions, no clarifications), a judging priority over contest.yaml's. Each change is
stored in the site database's registry (``site_contests``) and written to the site's audit log, in one
transaction; the wiring (serve/site/site.py) puts it in force."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from judge.serve.model.contest import valid_id
from judge.serve.model.errors import Refused
from judge.serve.model.records import AuditRecord, SiteContestRecord
from judge.serve.model.times import TimeError, parse_reltime, parse_time
from judge.serve.model.viewer import Viewer
from judge.serve.services.people import access
from judge.serve.services.people.audit import AUDIT_LIMIT, audit
from judge.serve.storage import Storage

PRIORITY_RANGE = (-1000, 1000)
# meta of the site database: a new value with every change of the registry (a contest added, hidden, archived,
# re-prioritized), in that change's transaction; the other processes on the database (issue 51, --shared) read
# the registry again when it moved (serve/site/site.py: ``Site.reload``)
GENERATION = "site_generation"
KEEP: Any = object()  # a field the change leaves as it is


@dataclass(frozen=True)
class ContestChange:
    """What an admin changes of a contest: each field KEEP (as it is) or its new value (``judging_priority``
    None: contest.yaml's again)."""

    hidden: Any = KEEP
    archived: Any = KEEP
    judging_priority: Any = KEEP


def parse_priority(text: str) -> int | None:
    """A judging priority from a form: an integer in PRIORITY_RANGE, or "" for contest.yaml's (None)."""
    text = text.strip()
    if text == "":
        return None
    try:
        value = int(text)
    except ValueError:
        raise Refused(400, f"judging priority {text!r}: give an integer (higher is judged first), or nothing") from None
    low, high = PRIORITY_RANGE
    if not low <= value <= high:
        raise Refused(400, f"judging priority {value}: between {low} and {high}")
    return value


def change_contest(
    storage: Storage, viewer: Viewer, before: SiteContestRecord, what: ContestChange, now: float
) -> SiteContestRecord:
    """Store an admin's change of a contest of the site (``storage``: the site database), audited."""
    access.admin(viewer, "hide, archive or prioritize contests")
    changes = {k: v for k, v in vars(what).items() if v is not KEEP}
    for key in ("hidden", "archived"):
        if key in changes and not isinstance(changes[key], bool):
            raise Refused(400, f"{key}: true or false")
    priority = changes.get("judging_priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        raise Refused(400, "judging_priority: an integer, or null for contest.yaml's")
    after = replace(before, **changes, time_s=now)
    with storage.write() as w:
        w.put_site_contest(after)
        w.set_meta(GENERATION, secrets.token_hex(8))
        audit(w, viewer, now, "site.contest", {"contest_id": before.id, **changes})
    return after


def site_audit(storage: Storage, viewer: Viewer) -> list[AuditRecord]:
    """The site's audit log (the people's changes, the contests hidden, archived, prioritized), newest first."""
    access.admin(viewer, "see the site's audit log")
    with storage.read() as r:
        return r.audit(AUDIT_LIMIT)


# ------------------------------------------------------------------------------------------------ a new contest


@dataclass(frozen=True)
class NewContest:
    """A contest an admin makes from the site's problems and teams (the ``/site/contests/new`` form)."""

    id: str
    name: str
    start: str  # a TIME with its zone ("" : not scheduled)
    duration: str  # h:mm:ss
    freeze: str  # h:mm:ss before the end ("0:00:00": never frozen)
    problems: tuple[str, ...]
    teams: tuple[str, ...] = ()  # the teams taking part (none: all of them)
    judging_priority: int = 0


def write_new_contest(contests_dir: Path, available: Collection[str], new: NewContest) -> Path:
    """Write CONTESTS_DIR/<id>/ (contest.yaml, problems.yaml; owner-only) for ``new``, a pass-fail contest,
    after checking what a form can get wrong (each a 400 with one line). The caller loads and adds it, and
    removes the folder (``remove_contest_folder``) when that fails."""
    if not valid_id(new.id):
        raise Refused(400, f"contest id {new.id!r}: letters, digits, '_', '.', '-' (at most 36)")
    folder = contests_dir / new.id
    if folder.exists():
        raise Refused(409, f"{new.id!r}: the site has a contest (or a folder) of that id already")
    if not new.name.strip():
        raise Refused(400, "give the contest a name")
    missing = [p for p in new.problems if p not in available]
    if not new.problems or missing:
        raise Refused(400, f"choose the contest's problems among the site's ({', '.join(sorted(available))})")
    try:
        if new.start.strip():
            parse_time(new.start.strip(), "start")
        duration = parse_reltime(new.duration, "duration")
        freeze = parse_reltime(new.freeze or "0:00:00", "freeze")
    except TimeError as exc:
        raise Refused(400, f"{exc} (a start like 2030-01-01T10:00:00Z, lengths like 5:00:00)") from None
    if duration <= 0 or not 0 <= freeze <= duration:
        raise Refused(400, "the duration must be longer than 0, the freeze between 0 and the duration")
    data: dict[str, Any] = {
        "id": new.id,
        "name": new.name.strip(),
        "start_time": new.start.strip() or None,
        "duration": new.duration.strip(),
        "scoreboard_freeze_duration": new.freeze.strip() or "0:00:00",
        "scoreboard_type": "pass-fail",
        "teams": list(new.teams) if new.teams else "all",
        "judging_priority": new.judging_priority,
    }
    labels = [chr(ord("A") + i) if i < 26 else f"P{i + 1}" for i in range(len(new.problems))]
    entries = [{"id": p, "label": label} for p, label in zip(new.problems, labels, strict=True)]
    contests_dir.mkdir(mode=0o700, exist_ok=True)
    folder.mkdir(mode=0o700)
    header = "# made on the site's page /site/contests/new (issue 44)\n"
    (folder / "contest.yaml").write_text(header + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    (folder / "problems.yaml").write_text(yaml.safe_dump(entries, sort_keys=False), encoding="utf-8")
    os.chmod(folder, 0o700)
    return folder


def remove_contest_folder(folder: Path) -> None:
    """Take back a folder ``write_new_contest`` wrote that could not be added (nothing else was in it)."""
    shutil.rmtree(folder, ignore_errors=True)


def register_contest(
    storage: Storage, viewer: Viewer, contest_id: str, now: float, how: Mapping[str, Any] | None = None
) -> SiteContestRecord:
    """An admin added a contest to the running site: its registry entry, audited (``how``: the audit line's
    details, e.g. the upload's size)."""
    access.admin(viewer, "add contests")
    record = SiteContestRecord(contest_id, time_s=now)
    with storage.write() as w:
        w.put_site_contest(record)
        w.set_meta(GENERATION, secrets.token_hex(8))
        audit(w, viewer, now, "site.contest_added", {"contest_id": contest_id, **(how or {})})
    return record
