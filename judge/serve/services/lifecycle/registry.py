"""A site's contests as its admins set them (issue 44): hidden (staff only, from then on), archived
(read-only: no submissions, no clarifications), a judging priority over contest.yaml's. Each change is
stored in the site database's registry (``site_contests``) and written to the site's audit log, in one
transaction; the wiring (serve/site/site.py) puts it in force."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from judge.serve.model.errors import Refused
from judge.serve.model.records import AuditRecord, SiteContestRecord
from judge.serve.model.viewer import Viewer
from judge.serve.services.people import access
from judge.serve.services.people.audit import AUDIT_LIMIT, audit
from judge.serve.storage import Storage

PRIORITY_RANGE = (-1000, 1000)
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
        audit(w, viewer, now, "site.contest", {"contest_id": before.id, **changes})
    return after


def site_audit(storage: Storage, viewer: Viewer) -> list[AuditRecord]:
    """The site's audit log (the people's changes, the contests hidden, archived, prioritized), newest first."""
    access.admin(viewer, "see the site's audit log")
    with storage.read() as r:
        return r.audit(AUDIT_LIMIT)
