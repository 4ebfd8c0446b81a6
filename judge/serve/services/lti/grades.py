"""Assignment and Grade Services 2.0 (issue 48): each student's score after the penalty, as the course's
gradebook computes it (lifecycle/gradebook.py, the page's and `judge course grades`' numbers), sent to the LMS
for every assignment the LMS launched (its line item) once the instructor has published its grades, and again
after each later change (a rejudge, an override, a late submission): ``sync_grades`` compares the gradebook
with the score last sent (lti_scores) and sends what differs. The site runs it every lti.yaml
``grade_sync`` seconds in a thread of its own (never on the event loop), and an admin from /site/lti.

Each score is tried up to ``ATTEMPTS`` times (a 401 gets a new token first); the outcome, sent or failed and
why, is stored (the instructor sees failures on /site/lti) and one line is audited per score sent or failed.
A failed score is tried again at the next sync. No secret (token, assertion) is ever logged or stored."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from judge.serve.model.lti import SCOPE_LINEITEM, SCOPE_SCORE, LtiLink, LtiScore, LtiUser, Platform
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.context import Served
from judge.serve.services.lifecycle.gradebook import course_gradebook
from judge.serve.services.lti.client import LtiHttpError
from judge.serve.services.lti.launch import LTI_VIEWER
from judge.serve.services.lti.tool import LtiTool
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Storage

ATTEMPTS = 3
BACKOFF_S = (1.0, 4.0)  # the waits between attempts
LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE = "application/vnd.ims.lis.v1.score+json"


@dataclass(frozen=True)
class SyncReport:
    sent: int = 0
    failed: int = 0
    unchanged: int = 0


def _iso(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _scores_url(lineitem: str) -> str:
    base, q, query = lineitem.partition("?")
    return f"{base.rstrip('/')}/scores" + (f"?{query}" if q else "")


class _Sender:
    def __init__(self, tool: LtiTool, platform: Platform, now: float, sleep: Callable[[float], None]) -> None:
        self.tool, self.platform, self.now, self.sleep = tool, platform, now, sleep

    def call(self, method: str, url: str, accept: str, body: object | None = None, content: str = "") -> object:
        """One AGS request with a bearer token, retried; the JSON answer (None if empty). Raises LtiHttpError."""
        error = "no attempt"
        for attempt in range(ATTEMPTS):
            if attempt:
                self.sleep(BACKOFF_S[min(attempt - 1, len(BACKOFF_S) - 1)])
            try:
                token = self.tool.access_token(self.platform, (SCOPE_LINEITEM, SCOPE_SCORE), self.now)
                headers = {"Authorization": f"Bearer {token}", "Accept": accept}
                data = None
                if body is not None:
                    headers["Content-Type"] = content
                    data = json.dumps(body).encode()
                reply = self.tool.http.request(method, url, headers, data)
            except LtiHttpError as exc:
                error = str(exc)
                continue
            if reply.ok:
                return reply.json() if reply.body.strip() else None
            error = f"{method} {url.split('?')[0]} answered {reply.status}"
            if reply.status == 401:
                self.tool.forget_token(self.platform)
            elif 400 <= reply.status < 500 and reply.status not in (408, 429):
                break  # the LMS will not change its mind
        raise LtiHttpError(error)


def _lineitem(sender: _Sender, link: LtiLink, label: str, max_score: float) -> str:
    """The line item of the link's assignment: the launch's, else the one of resource id = the contest in the
    link's container, else one made there."""
    if link.lineitem_url:
        return link.lineitem_url
    if not link.lineitems_url:
        raise LtiHttpError("the LMS offered no line items (AGS) for this assignment")
    sep = "&" if "?" in link.lineitems_url else "?"
    found = sender.call("GET", f"{link.lineitems_url}{sep}resource_id={link.contest_id}", LINEITEMS)
    for item in found if isinstance(found, list) else []:
        if isinstance(item, dict) and item.get("resourceId") == link.contest_id and isinstance(item.get("id"), str):
            return str(item["id"])
    made = sender.call(
        "POST",
        link.lineitems_url,
        LINEITEM,
        {"scoreMaximum": max_score, "label": label, "resourceId": link.contest_id},
        LINEITEM,
    )
    if not isinstance(made, dict) or not isinstance(made.get("id"), str):
        raise LtiHttpError("the LMS made a line item without an id")
    return str(made["id"])


def sync_grades(
    tool: LtiTool,
    storage: Storage,
    contests: Mapping[str, Served],
    now: float,
    sleep: Callable[[float], None] = time.sleep,
) -> SyncReport:
    """Send every score that differs from the one last sent, for the published assignments the LMS launched."""
    with storage.read() as r:
        links, users, stored = r.lti_links(), r.lti_users(), r.lti_scores()
    last = {(s.issuer, s.client_id, s.contest_id, s.sub): s for s in stored}
    sent = failed = unchanged = 0
    books: dict[int, object] = {}
    for link in links:
        server = contests.get(link.contest_id)
        platform = tool.config.platform(link.issuer, link.client_id)
        state = None if server is None else server.course.state
        if server is None or platform is None or state is None or state.published_s is None:
            continue
        key = id(server.course.contests)
        if key not in books:
            books[key] = course_gradebook(server, LTI_VIEWER)[1]
        book = books[key]
        graded = next((a for a in book.assignments if a.id == link.contest_id), None)  # type: ignore[attr-defined]
        if graded is None:
            continue
        subs = {u.account_id: u.sub for u in users if u.issuer == link.issuer}
        sender = _Sender(tool, platform, now, sleep)
        lineitem = ""
        for i, student in enumerate(book.students):  # type: ignore[attr-defined]
            sub = subs.get(student.id)
            if sub is None:
                continue
            score, top = graded.grades[i].score, graded.max_score
            before = last.get((link.issuer, link.client_id, link.contest_id, sub))
            if before is not None and before.status == "sent" and (before.score, before.max_score) == (score, top):
                unchanged += 1
                continue
            body = {
                "userId": sub,
                "scoreGiven": score,
                "scoreMaximum": top,
                "activityProgress": "Completed",
                "gradingProgress": "FullyGraded",
                "timestamp": _iso(now),
            }
            attempts = (before.attempts if before is not None and before.status == "failed" else 0) + 1
            try:
                if not lineitem:
                    lineitem = _lineitem(sender, link, graded.name, top)
                    if lineitem != link.lineitem_url:
                        with storage.write() as w:
                            w.put_lti_link(replace(link, lineitem_url=lineitem))
                sender.call("POST", _scores_url(lineitem), "application/json", body, SCORE)
                outcome = LtiScore(link.issuer, link.client_id, link.contest_id, sub, score, top, "sent", 0, "", now)
                sent += 1
            except LtiHttpError as exc:
                message = str(exc)
                outcome = LtiScore(
                    link.issuer, link.client_id, link.contest_id, sub, score, top, "failed", attempts, message, now
                )
                failed += 1
                tool.log(f"lti: {link.contest_id}: the score of {student.id} was not sent: {message}")
            with storage.write() as w:
                w.put_lti_score(outcome)
                detail = {"contest": link.contest_id, "student": student.id, "score": score, "status": outcome.status}
                if outcome.message:
                    detail["message"] = outcome.message
                audit(w, LTI_VIEWER, now, "lti.score", detail)
    return SyncReport(sent, failed, unchanged)


@dataclass(frozen=True)
class LmsStatus:
    users: list[LtiUser]
    links: list[LtiLink]
    scores: list[LtiScore]


def lms_status(storage: Storage, viewer: Viewer) -> LmsStatus:
    """What /site/lti shows (admins): the LMS users mapped, the assignments launched, the scores sent or failed."""
    access.admin(viewer, "see the LTI settings")
    with storage.read() as r:
        return LmsStatus(r.lti_users(), r.lti_links(), r.lti_scores())


class GradeSync:
    """The thread that runs a sync every ``every_s`` seconds (and at once when woken), until stopped."""

    def __init__(self, run: Callable[[], object], every_s: float, log: Callable[[str], None]) -> None:
        import threading

        self._run, self._every_s, self._log = run, every_s, log
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="lti-grade-sync", daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._every_s)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self._run()
            except Exception as exc:  # noqa: BLE001 (a sync that fails is tried again next time; the server goes on)
                self._log(f"lti: the grade sync failed: {type(exc).__name__}: {str(exc)[:200]}")

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
