"""Submissions: submit (the spec's team-submit, and admin-submit; the API and the submit page alike),
rejudge (our extension: a submission or a whole problem, judges and admins), and reading them back (the
lists, one submission's files) as visibility.py allows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from judge.serve.model.apijson import submission_json
from judge.serve.model.errors import Refused
from judge.serve.model.records import JudgementRecord, NewSubmission, SubmissionRecord
from judge.serve.model.times import TimeError, format_time, parse_time
from judge.serve.model.upload import SubmissionRequest, check_upload
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.core.events import publish
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.course_submit import check_rate, check_window
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Reader, Writer
from judge.serve.visibility import (
    FileAccess,
    Sight,
    course_judgement,
    file_access,
    sees_judgement,
    sees_submission,
    shown_judgements,
    submission_audience,
)

# --------------------------------------------------------------------------------------------- submit


def _submitter(server: ServedJudging, viewer: Viewer, request: SubmissionRequest, now: float) -> tuple[str, float]:
    """(team, time) of the submission: a team's own, now and only while the contest runs; an admin's for
    any team, at any time it gives."""
    if viewer.role is Role.ADMIN:
        if request.team_id is None:
            raise Refused(400, "`team_id` is required when an admin submits")
        if server.contest.team(request.team_id) is None:
            raise Refused(400, f"unknown team {request.team_id!r}")
        try:
            time_s = now if request.time is None else parse_time(request.time, "time")
        except TimeError as exc:
            raise Refused(400, str(exc)) from None
        if time_s > now and server.timeline.phase.in_contest(time_s):
            # its result would be published for everyone before a freeze could hide it
            raise Refused(
                400, f"`time` {format_time(time_s)} is later than now: a contest submission cannot be dated ahead"
            )
        return request.team_id, time_s
    assert viewer.team_id is not None
    if request.team_id is not None and request.team_id != viewer.team_id:
        raise Refused(403, f"you are team {viewer.team_id}: you cannot submit for team {request.team_id}")
    access.while_running(server.timeline.phase, now, "submissions")
    return viewer.team_id, now


def _rate_limit(w: Reader, server: ServedJudging, team_id: str, now: float) -> None:
    info = server.contest.info
    count, earliest = w.recent_submissions(team_id, now - info.rate_seconds)
    if count >= info.rate_submissions and earliest is not None:
        wait = max(1, int(earliest + info.rate_seconds - now + 0.999))
        raise Refused(
            429,
            f"too many submissions: at most {info.rate_submissions} per {info.rate_seconds:g} s; try again in {wait} s",
            {"Retry-After": str(wait)},
        )


def submit(
    server: ServedJudging, viewer: Viewer, read_request: Callable[[], SubmissionRequest], now: float
) -> SubmissionRecord:
    """Check everything, then store the submission, its job and its event in one transaction.
    ``read_request`` is called once the viewer may submit (a body is not even parsed before)."""
    access.authenticated(viewer, "submit")
    if viewer.role not in (Role.TEAM, Role.ADMIN):
        raise Refused(403, "only team and admin accounts may submit")
    server.standing.refuse_if_archived("submissions")
    request = read_request()
    team_id, time_s = _submitter(server, viewer, request, now)
    if viewer.role is not Role.ADMIN:
        check_window(server, team_id, now)  # a course's assignment (issue 45): the student's window
    if server.timeline.phase.in_contest(time_s):
        access.refuse_if_final(
            server.timeline.phase
        )  # an admin's submission dated into a finalized contest would change its results
    lang = server.languages.get(request.language_id)
    if lang is not None and viewer.role is not Role.ADMIN and not server.contest.info.allows_language(lang.id):
        # issue 47: contest.yaml's allow_submit, or an admin's change (the jury may still submit in it)
        raise Refused(400, f"{lang.name} takes no submissions in this contest now: choose another language")
    checked = check_upload(request, server.contest, server.languages)
    new = NewSubmission(
        team_id,
        viewer.account_id,
        request.problem_id,
        request.language_id,
        checked.entry_point,
        time_s,
        checked.files_zip,
    )
    with server.storage.write() as w:
        if viewer.role is not Role.ADMIN:
            _rate_limit(w, server, team_id, now)
            check_rate(w, server, team_id, request.problem_id, now)  # a course's token bucket (issue 45)
        sub = w.add_submission(new)
        w.enqueue(sub.id, "submit", now)
        obj = submission_json(sub, server.contest.info)
        audience = submission_audience(server.timeline.phase, sub, server.course.view(server.contest))
        publish(w, "submissions", str(sub.id), obj, now=now, audience=audience)
    server.bus.notify()
    server.pool.wake()
    return sub


# --------------------------------------------------------------------------------------------- rejudge


def _queue(w: Writer, subs: list[SubmissionRecord], now: float) -> list[int]:
    queued = []
    for s in subs:
        if not w.has_open_job(s.id):
            w.enqueue(s.id, "rejudge", now)
            queued.append(s.id)
    return queued


def rejudge_submission(
    server: ServedJudging, viewer: Viewer, submission_id: int | None, now: float, *, what: str
) -> list[int]:
    """Judge the submission again (unless it is being judged). Returns the ids queued. ``what``: the id as
    asked (for the message)."""
    access.staff(viewer, "rejudge")
    access.refuse_if_final(server.timeline.phase)
    with server.storage.write() as w:
        subs = w.submissions(ids=[submission_id]) if submission_id is not None else []
        if not subs:
            raise Refused(404, f"no submission {what!r}")
        queued = _queue(w, subs, now)
        audit(w, viewer, now, "submission.rejudge", {"id": str(subs[0].id), "queued": bool(queued)})
    server.pool.wake()
    return queued


def rejudge_problem(server: ServedJudging, viewer: Viewer, problem_id: str, now: float) -> list[int]:
    """Judge every submission of the problem again. Returns the ids queued."""
    access.staff(viewer, "rejudge")
    if server.contest.problem(problem_id) is None:
        raise Refused(404, f"no problem {problem_id!r}")
    access.refuse_if_final(server.timeline.phase)
    with server.storage.write() as w:
        queued = _queue(w, w.submissions(problem_id=problem_id), now)
        audit(w, viewer, now, "problem.rejudge", {"id": problem_id, "rejudged": queued})
    server.pool.wake()
    return queued


# --------------------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class SubmissionView:
    """A submission as a viewer may see it, with its current judgement when the viewer may see that
    (None: pending, or hidden by the freeze: ``hidden``)."""

    submission: SubmissionRecord
    judgement: JudgementRecord | None
    hidden: bool


def submissions(server: ServedJudging, sight: Sight, ids: list[int] | None = None) -> list[SubmissionRecord]:
    """The submissions the viewer may see (``ids``: only those), in id order."""
    with server.storage.read() as r:
        return [s for s in r.submissions(ids=ids) if sees_submission(sight, s)]


def submission_views(
    server: ServedJudging, sight: Sight, *, team_id: str | None = None, ids: list[int] | None = None
) -> list[SubmissionView]:
    """Visible submissions with their current judgements (narrowed to a team or ids), in id order."""
    waits = not sight.staff and sight.phase.info.verification_required  # all judgements: shown_judgements
    with server.storage.read() as r:
        subs = [s for s in r.submissions(ids=ids, team_id=team_id) if sees_submission(sight, s)]
        found = r.judgements(submission_ids=[s.id for s in subs], current=None if waits else True)
    by_sub: dict[int, list[JudgementRecord]] = {}
    for j in found:
        by_sub.setdefault(j.submission_id, []).append(j)
    views = []
    for s in subs:
        shown = sees_judgement(sight, s)
        # issue 47: a judgement that awaits verification is shown as the viewer was told of it
        now_shown = next((j for j in shown_judgements(sight, by_sub.get(s.id, [])) if j.current), None)
        current = now_shown if shown else None
        views.append(SubmissionView(s, None if current is None else course_judgement(sight, s, current), not shown))
    return views


def submission_files(server: ServedJudging, sight: Sight, submission_id: int | None, *, what: str) -> bytes:
    """A submission's stored zip, for its team and staff (``what``: the id as asked, for the message)."""
    with server.storage.read() as r:
        found = r.submissions(ids=[submission_id]) if submission_id is not None else []
        decision = file_access(sight, found[0] if found else None)
        if decision is FileAccess.NOT_FOUND:
            raise Refused(404, f"no submission {what!r}")
        if decision is FileAccess.LOGIN:
            access.authenticated(sight.viewer, "download submission files")
        if decision is FileAccess.FORBIDDEN:
            raise Refused(403, "a team may download only its own submissions")
        data = r.submission_files(found[0].id)
    assert data is not None
    return data
