"""Leaving a submission out (issue 30), staff: an ignored submission stays in the jury's lists, marked, but
counts nowhere: the board (storage's ``counted`` skips it, so a first to solve moves to the next team), the
awards, results.json, and the public and teams' views (visibility.sees_submission). On the event feed those
who saw the submission, its judgements and runs get a delete for each (staff keep them); un-ignoring
publishes them again, to the audiences visibility.py gives them then. Audited."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from judge.serve.model.apijson import judgement_json, run_id, run_json, submission_json
from judge.serve.model.errors import Refused
from judge.serve.model.records import Audience, ReviewRecord, SubmissionRecord
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.context import Served
from judge.serve.services.core.events import dump, publish
from judge.serve.services.judging import verification
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Writer
from judge.serve.visibility import judgement_versions, run_audience, submission_audience

Published = tuple[str, str, dict[str, Any], Audience]  # type, id, object, audience


def republish_changed(w: Writer, server: Served, since_s: float, now: float) -> None:
    """Publish again the submissions, judgements and runs made or begun since ``since_s`` whose object
    changed (their contest times: a removed interval, services/lifecycle/control.py), each to the audience it has now
    (a judgement hidden by the freeze stays hidden)."""
    started = {j.submission_id for j in w.judgements() if j.start_s >= since_s}
    for sub in w.submissions():
        if sub.time_s < since_s and sub.id not in started:
            continue
        for kind, obj_id, obj, audience in _objects(w, server, sub, now):
            last = w.last_event(kind, obj_id)
            if last is not None and last.data != dump(obj):
                publish(w, kind, obj_id, obj, now=now, audience=audience)


def _objects(w: Writer, server: Served, sub: SubmissionRecord, now: float) -> list[Published]:
    """(type, id, object, audience) of the submission, its judgements and their runs, as published now."""
    phase, info = server.timeline.phase, server.contest.info
    course = server.course.view(server.contest)  # a course's assignment (issue 45): its feedback rules
    out: list[Published] = [
        ("submissions", str(sub.id), submission_json(sub, info), submission_audience(phase, sub, course))
    ]
    judgements = w.judgements(submission_ids=[sub.id])
    for j in judgements:
        for audience, version in judgement_versions(phase, sub, j, now, course):
            obj = judgement_json(version, info)
            out.append(("judgements", obj["id"], obj, audience))
    by_id = {j.id: j for j in judgements}
    for r in w.runs(judgement_ids=list(by_id)):
        audience = run_audience(phase, sub, by_id[r.judgement_id], course, r.name, now)
        out.append(("runs", run_id(r), run_json(r, info), audience))
    return out


def set_ignored(
    server: Served, viewer: Viewer, submission_id: int | None, ignored: bool, now: float, *, what: str
) -> SubmissionRecord:
    """Ignore the submission (or count it again). Returns it as it is now."""
    access.staff(viewer, "ignore submissions")
    with server.storage.write() as w:
        found = w.submissions(ids=[submission_id]) if submission_id is not None else []
        if not found:
            raise Refused(404, f"no submission {what!r}")
        before = found[0]
        if before.ignored == ignored:
            return before
        w.set_ignored(before.id, ignored, now)
        after = replace(before, ignored=ignored)
        deleted: set[tuple[str, str]] = set()
        for kind, obj_id, obj, audience in _objects(w, server, after, now):
            if ignored:  # a delete for whoever saw it (staff keep it)
                if (kind, obj_id) in deleted:
                    continue  # a course's judgement has two versions: one delete
                deleted.add((kind, obj_id))
                last = w.last_event(kind, obj_id)
                if last is not None and last.data != "null":
                    publish(w, kind, obj_id, None, now=now, audience=replace(last.audience, staff=False))
            else:
                publish(w, kind, obj_id, obj, now=now, audience=audience)
        audit(w, viewer, now, "submission.ignore" if ignored else "submission.unignore", {"id": str(before.id)})
    server.bus.notify()
    return after


COMMENT_CHARS = 2000


@dataclass(frozen=True)
class Review:
    verified: bool
    comment: str


def review(server: ServedJudging, viewer: Viewer, submission_id: int | None, asked: Review, now: float) -> ReviewRecord:
    """Mark the submission's current judgement verified (or not) with a comment, for the jury. Audited.
    Verified, a judgement that awaited verification (issue 47) is published to the teams and the board
    (verification.py); marked not verified afterwards, nothing is hidden again."""
    access.staff(viewer, "verify judgements")
    verified, comment = asked.verified, asked.comment
    if len(comment) > COMMENT_CHARS:
        raise Refused(400, f"the comment is longer than {COMMENT_CHARS} characters")
    with server.storage.write() as w:
        current = w.judgements(submission_ids=[submission_id], current=True) if submission_id is not None else []
        if not current or not current[0].done:
            raise Refused(404, f"submission {submission_id!r} has no finished judgement to verify")
        record = ReviewRecord(current[0].id, verified, comment.strip(), viewer.username or "?", now)
        w.put_review(record)
        detail = {"submission_id": str(submission_id), "verified": verified, "comment": record.comment}
        if verified and current[0].awaiting:
            subs = w.submissions(ids=[current[0].submission_id])
            detail["released"] = verification.release_in(w, server, subs[0], current[0], now)
        audit(w, viewer, now, "judgement.review", detail)
    server.bus.notify()  # what was released is on the feed and the board at once
    return record


def reviews_of(server: Served, viewer: Viewer, judgement_ids: list[int]) -> dict[int, ReviewRecord]:
    access.staff(viewer, "see the reviews of judgements")
    with server.storage.read() as r:
        return {rv.judgement_id: rv for rv in r.reviews(judgement_ids)}
