"""Verification (issue 47), the jury's page ``/admin/verification``: whether the contest requires it (an
admin turns it on or off there), and the queue of judgements awaiting it, oldest first, each with its verdict
and a button that verifies it (the submission's review, as on its page). Asks
services/judging/verification.py and moderation.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http.ids import number_id
from judge.serve.http.pages import notices
from judge.serve.http.pages.rows import verdict_class
from judge.serve.http.pages.web import Page, PageSpec, Redirect, contest_time
from judge.serve.services.judging import moderation, verification


def verification_page(page: Page) -> Response:
    page.need_staff()
    info = page.server.contest.info
    rows: list[dict[str, Any]] = []
    for w in verification.queue(page.server, page.viewer):
        team = page.server.contest.team(w.submission.team_id)
        cp = page.server.contest.problem(w.submission.problem_id)
        rows.append(
            {
                "submission_id": w.submission.id,
                "team": (team.display_name or team.name) if team else w.submission.team_id,
                "problem": cp.label if cp else w.submission.problem_id,
                "verdict": w.judgement.verdict,
                "css": verdict_class(w.judgement.verdict),
                "ordinal": w.judgement.ordinal,
                "current": w.judgement.current,
                "judged": contest_time(w.judgement.end_s, info.start_s),
            }
        )
    return page.render(
        "serve/admin_verification.html",
        rows=rows,
        required=info.verification_required,
        message=notices.shown(page.query.get("message")),
    )


def change(page: Page) -> Response:
    """Require verification, or no more (admins)."""
    page.need_staff()
    required = page.form.get("required") == "1"
    if not required:
        page.confirm("verification-off", back=page.url("/admin/verification"))
    released = verification.set_required(page.server, page.viewer, required, page.now)
    template = notices.VERIFICATION_ON if required else notices.VERIFICATION_OFF
    message = notices.notice(template, n=released)
    raise Redirect(page.url("/admin/verification?" + urlencode({"message": message})))


def verify(page: Page) -> Response:
    """Verify the submission's current judgement (its review, with a comment if given)."""
    page.need_staff()
    what = page.params["id"]
    asked = moderation.Review(True, page.form.get("comment", ""))
    moderation.review(page.server, page.viewer, number_id(what), asked, page.now)
    message = notices.notice(notices.REVIEWED, id=what)
    raise Redirect(page.url("/admin/verification?" + urlencode({"message": message})))


VERIFICATION_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/verification", verification_page),
    PageSpec("POST", "/admin/verification", change),
    PageSpec("POST", "/admin/verification/{id}", verify),
)
