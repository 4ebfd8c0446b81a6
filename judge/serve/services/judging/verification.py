"""Verification (issue 47, DOMjudge's ``verification_required``; docs/serve.md "Verification").

While the contest requires it (contest.yaml's ``verification_required``, or an admin's change on the contest
page), a judgement that finishes *awaits verification* (``judgements.awaiting``): the jury sees it at once;
the teams, the public, the board, the balloons and the feed are shown it as still being judged, and the
judgement it replaces as current (visibility.awaits_verification, ``published_judgements``). A judge
verifies it (the submission's review, issue 30's, with "verified"; or the queue's button): it, and any older
judgement of the submission that waited, is published as if it had just finished. Turning the option off
publishes every judgement that waited; turning it on hides nothing already shown. Audited."""

from __future__ import annotations

from dataclasses import dataclass, replace

from judge.serve.model.errors import Refused
from judge.serve.model.records import JudgementRecord, SubmissionRecord
from judge.serve.model.viewer import Viewer
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Writer


def release_in(
    w: Writer, server: ServedJudging, submission: SubmissionRecord, upto: JudgementRecord, now: float
) -> int:
    """``upto`` verified (in the caller's transaction): it and the submission's older judgements that await
    verification are published to their audiences; how many were released."""
    waiting = [j for j in w.judgements(submission_ids=[submission.id], awaiting=True) if j.id <= upto.id and j.done]
    for j in sorted(waiting, key=lambda j: j.id):
        w.set_awaiting(j.id, False)
        server.judging.publish_released(w, submission, j.id, now)
    return len(waiting)


def release_all_in(w: Writer, server: ServedJudging, now: float) -> int:
    """Every judgement that awaits verification, published (the option was turned off)."""
    waiting = w.judgements(awaiting=True)
    subs = {s.id: s for s in w.submissions(ids=[j.submission_id for j in waiting])}
    for j in sorted(waiting, key=lambda j: j.id):
        w.set_awaiting(j.id, False)
        if j.submission_id in subs and j.done:
            server.judging.publish_released(w, subs[j.submission_id], j.id, now)
    return len(waiting)


@dataclass(frozen=True)
class Waiting:
    """A judgement that awaits verification, with its submission."""

    judgement: JudgementRecord
    submission: SubmissionRecord


def queue(server: ServedJudging, viewer: Viewer) -> list[Waiting]:
    """The judgements awaiting verification, oldest first (the jury's)."""
    access.staff(viewer, "see the judgements awaiting verification")
    with server.storage.read() as r:
        waiting = r.judgements(awaiting=True)
        subs = {s.id: s for s in r.submissions(ids=[j.submission_id for j in waiting])}
    return [Waiting(j, subs[j.submission_id]) for j in waiting if j.submission_id in subs and j.done]


def set_required(server: ServedJudging, viewer: Viewer, required: bool, now: float) -> int:
    """Require verification from now on, or no more (an admin's; audited): turned off, every judgement that
    waited is published. Returns how many were."""
    access.admin(viewer, "change whether judgements need verification")
    released = 0

    def publish(w: Writer, at: float) -> None:
        nonlocal released
        if not required:
            released = release_all_in(w, server, at)
        audit(w, viewer, at, "contest.verification_required", {"required": required, "released": released})

    before = server.timeline.phase.info.verification_required
    with server.storage.read() as r:
        waiting = bool(r.judgements(awaiting=True))
    if before == required and (required or not waiting):  # off with some waiting (contest.yaml changed): shown
        raise Refused(409, f"verification is {'required' if required else 'not required'} already")
    server.timeline.set_live(lambda s: replace(s, verification_required=required), publish)
    return released
