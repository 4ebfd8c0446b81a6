"""Names and Role Provisioning Services 2.0 (issue 48): the LMS course's members read (every page of the
membership container, with a token), and the learners turned into a roster CSV (``ID, Name, Email, Role``)
that goes through the very preview and confirmation of a roster CSV upload (people/course_roster.py): the
instructor sees who is added, changed and withdrawn, and nothing changes until they confirm. A member's id is
the one their launches give them (model/lti.student_id: their mapped account, SIS id, the roster's email, or
``lti-<sub>``); the file has no section column, so sections are kept as they are."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from judge.course.sitefiles import read_people, roster_from
from judge.course.values import CourseError
from judge.serve.model.errors import Refused
from judge.serve.model.lti import SCOPE_NRPS, Kind, role_kind, student_id
from judge.serve.services.lti.client import LtiHttpError
from judge.serve.services.lti.tool import LtiTool
from judge.serve.storage import Storage

MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 50
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


def members_csv(tool: LtiTool, storage: Storage, root: Path, now: float) -> tuple[str, bytes]:
    """(a file name, the roster CSV of the LMS course's active learners), from the newest launch that offered
    NRPS. Raises Refused (409: no launch offered it; 502: the LMS could not be read)."""
    with storage.read() as r:
        links = [k for k in r.lti_links() if k.memberships_url]
        users = r.lti_users()
    link = links[0] if links else None
    platform = None if link is None else tool.config.platform(link.issuer, link.client_id)
    if link is None or platform is None:
        raise Refused(409, "no launch from the LMS offered its roster (NRPS) yet: launch an assignment from it first")
    try:
        token = tool.access_token(platform, (SCOPE_NRPS,), now)
        url: str | None = link.memberships_url
        members: list[dict[str, object]] = []
        for _ in range(MAX_PAGES):
            if url is None:
                break
            reply = tool.http.request("GET", url, {"Authorization": f"Bearer {token}", "Accept": MEMBERSHIPS})
            if not reply.ok:
                raise LtiHttpError(f"the LMS's roster answered {reply.status}")
            page = reply.json()
            found = page.get("members") if isinstance(page, dict) else None
            members += [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []
            nxt = _NEXT.search(reply.headers.get("link", ""))
            url = nxt.group(1) if nxt else None
    except LtiHttpError as exc:
        raise Refused(502, f"the LMS's roster could not be read: {exc}") from None
    try:
        roster = roster_from(read_people(root))
    except CourseError as exc:
        raise Refused(409, str(exc)) from None
    mapped = {u.sub: u.account_id for u in users if u.issuer == platform.issuer}
    taken = set(mapped.values())
    by_email = {s.email.lower(): s.id for s in roster.students if s.email}
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\r\n")
    rows.writerow(["ID", "Name", "Email", "Role"])
    seen: set[str] = set()
    for m in members:
        roles = m.get("roles")
        status = m.get("status", "Active")
        sub = m.get("user_id")
        learner = role_kind(roles if isinstance(roles, list) else []) == Kind.STUDENT
        if not isinstance(sub, str) or status != "Active" or not learner:
            continue
        email = str(m.get("email", "") or "")
        sid = mapped.get(sub) or student_id(
            platform.issuer, sub, str(m.get("lis_person_sourcedid", "") or ""), email, by_email, taken
        )
        if sid in seen:
            continue
        seen.add(sid)
        parts = (str(m.get(k, "") or "") for k in ("given_name", "family_name"))
        name = str(m.get("name", "") or " ".join(parts).strip())
        rows.writerow([sid, name or sid, email, "Learner"])
    return f"lms-roster-{int(now)}.csv", out.getvalue().encode("utf-8")
