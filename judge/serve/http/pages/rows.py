"""Rows of the submissions lists that the team's and the organizers' pages share: a submission with its
current judgement as the viewer may see it (visibility.shown_verdict)."""

from __future__ import annotations

from typing import Any

from judge.serve.http.pages.web import Page
from judge.serve.model.times import format_reltime
from judge.serve.services.judging.submissions import SubmissionView
from judge.serve.visibility import shown_verdict


def verdict_class(verdict: str | None) -> str:
    return "none" if verdict is None else verdict.lower()


def submission_row(page: Page, v: SubmissionView) -> dict[str, Any]:
    """One row of a submissions list: its current judgement as the viewer may see it (staff: our own
    verdict, PV not WA)."""
    server, s, j = page.server, v.submission, v.judgement
    info = server.contest.info
    verdict = shown_verdict(page.sight, j) if j is not None else None
    cp = server.contest.problem(s.problem_id)
    team = server.contest.team(s.team_id)
    return {
        "id": str(s.id),
        "contest_time": format_reltime(info.contest_time_s(s.time_s)).split(".")[0],
        "problem": cp.label if cp else s.problem_id,
        "problem_id": s.problem_id,
        "problem_name": cp.name if cp else s.problem_id,
        "team_id": s.team_id,
        "team": (team.display_name or team.name) if team else s.team_id,
        "language": s.language_id,
        "verdict": verdict,
        # no verdict yet: being judged (a judge took it), or pending (queued: held, paused, or waiting its turn)
        "judging": j is not None and not j.done,
        "css": verdict_class(verdict),
        "score": round(j.score, 6) if j is not None and j.done and j.score is not None else None,
        "max_score": None if cp is None else cp.problem.secret.max_score,
        # no result to show while the board is frozen: pending, or hidden by the freeze
        "hidden": j is None and not page.viewer.staff and page.sight.phase.frozen_from(page.now) is not None,
        "ignored": s.ignored,  # only staff see an ignored submission (issue 30)
        # judged, its verdict withheld by a course's feedback rules (issue 45): until when (course_pages.py)
        "withheld": None,
    }


def newest_first(page: Page, views: list[SubmissionView], limit: int | None = None) -> list[dict[str, Any]]:
    return [submission_row(page, v) for v in reversed(views[-limit:] if limit else views)]
