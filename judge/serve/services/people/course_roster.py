"""A course's roster imported from its page (issue 45, docs/course.md): the same import as `judge course roster
import` (course/rostercsv.py reads the file, course/rosterdiff.py makes the preview, course/sitefiles.py writes
the site's ``teams.json``, ``groups.json`` and ``accounts.yaml``), then the people in force reloaded from them
live (the stored changes of the people page laid over them again: live_roster.py), audited in the site's log.

Nothing is applied without a confirmation of the very preview shown: the page sends back the file and the
preview's digest, and ``apply_roster`` refuses (409) a file whose preview is no longer that one (the roster
changed since). The new students' passwords are made here, stored as argon2 hashes, and given back once (the
page's CSV for a mail merge). A withdrawn student's account goes: with it their login (their sessions end)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judge.course.rostercsv import RosterFile, parse_roster_csv
from judge.course.rosterdiff import NewLogin, RosterPlan, new_logins, preview
from judge.course.sitefiles import applied_people, read_people, roster_from, write_people
from judge.course.values import CourseError
from judge.serve.model.contest import ContestError, load_people
from judge.serve.model.errors import Refused
from judge.serve.model.roster import Roster
from judge.serve.model.viewer import Viewer
from judge.serve.services.people import access
from judge.serve.services.people.context import ServedPeople
from judge.serve.services.people.roster import change_people
from judge.serve.storage import Writer

ROSTER_LIMIT = 2 * 1024 * 1024  # bytes: a roster of thousands of students is far smaller


@dataclass(frozen=True)
class RosterPreview:
    file: RosterFile
    plan: RosterPlan
    digest: str  # what the confirmation sends back: the preview applied is this one

    @property
    def counts(self) -> dict[str, int]:
        return {"added": len(self.plan.added), "changed": len(self.plan.changed), "removed": len(self.plan.removed)}


def _digest(plan: RosterPlan) -> str:
    return hashlib.sha256("\n".join(plan.lines()).encode()).hexdigest()[:32]


def preview_roster(root: Path, data: bytes, name: str, columns: Mapping[str, str]) -> RosterPreview:
    """What importing the roster CSV ``data`` into the site ``root`` would do (a 400 with one line when the
    file cannot be read as a roster)."""
    if len(data) > ROSTER_LIMIT:
        raise Refused(400, f"{name}: larger than {ROSTER_LIMIT // 1024} KiB: is this a roster?")
    try:
        found = parse_roster_csv(data, name, dict(columns))
        plan = preview(roster_from(read_people(root)), found.students, found.fields)
    except CourseError as exc:
        raise Refused(400, str(exc)) from None
    return RosterPreview(found, plan, _digest(plan))


def make_password() -> str:
    return secrets.token_urlsafe(9)


def apply_roster(
    server: ServedPeople,
    viewer: Viewer,
    root: Path,
    upload: tuple[str, bytes],
    columns: Mapping[str, str],
    digest: str,
    now: float,
) -> tuple[NewLogin, ...]:
    """Apply the preview of ``upload`` (its name and bytes) whose digest the instructor confirmed: the site's
    people files rewritten (owner-only), the people in force reloaded from them, every contest's feed told,
    audited. Returns the new students' logins (their passwords: once)."""
    access.admin(viewer, "import the roster")
    shown = preview_roster(root, upload[1], upload[0], columns)
    if shown.digest != digest:
        raise Refused(409, "the roster changed since the preview: look at the new preview and confirm it")
    plan = shown.plan
    logins = new_logins(plan, make_password)
    passwords = {lg.student.id: lg.password for lg in logins}
    hasher = server.people.auth.hasher
    try:
        written = applied_people(read_people(root), plan, lambda s: hasher.hash(passwords[s.id]))
        write_people(written)
        package = load_people(root)
    except (CourseError, ContestError) as exc:
        raise Refused(400, str(exc)) from None
    removed = {s.id for s in plan.removed}

    def store(w: Writer, roster: Roster) -> dict[str, Any]:
        # an account the people page changed is kept in the database over the files: a withdrawn student's
        # is disabled there too, or it would stay in force
        for a in w.live_accounts():
            if a.team_id in removed and not a.disabled:
                w.put_live_account(replace(a, disabled=True, time_s=now))
        return {"action": "roster.import", "file": upload[0], **shown.counts}

    server.people.package = package
    change_people(server, viewer, now, store)
    return logins
