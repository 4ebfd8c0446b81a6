"""Judging while the contest runs (issue 30): pause and resume it, hold a problem back (its package is being
fixed) and release it (admins; submissions are still accepted and queued, and judged once released), and
what the jury watches (staff): the queue (waiting and running, for how long), the judging threads (idle or
judging which submission, judged count, the dispatcher's heartbeat) and the judge's errors (JE) with their
messages. Every change is audited."""

from __future__ import annotations

from dataclasses import dataclass, replace

from judge.judging.verdict import Verdict
from judge.serve.model.errors import Refused
from judge.serve.model.records import JudgementRecord, QueuedJob, SubmissionRecord
from judge.serve.model.viewer import Viewer
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.pool import PoolStatus
from judge.serve.services.judging.queue import Hold
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit

ERRORS_LIMIT = 200


def _set_hold(
    server: ServedJudging, viewer: Viewer, hold: Hold, now: float, action: str, detail: dict[str, str]
) -> Hold:
    with server.storage.write() as w:
        server.judging.set_hold(w, hold)
        audit(w, viewer, now, action, detail)
    server.pool.wake()
    server.bus.notify()
    return hold


def set_paused(server: ServedJudging, viewer: Viewer, paused: bool, now: float) -> Hold:
    """Pause judging (the running judgements finish) or resume it (the queue is judged, oldest first)."""
    access.admin(viewer, "pause or resume judging")
    hold = replace(server.judging.hold, paused=paused)
    return _set_hold(server, viewer, hold, now, "judging.pause" if paused else "judging.resume", {})


def hold_problem(server: ServedJudging, viewer: Viewer, problem_id: str, held: bool, now: float) -> Hold:
    """Hold a problem's submissions back from judging, or release them."""
    access.admin(viewer, "hold a problem's judging")
    if server.contest.problem(problem_id) is None:
        raise Refused(404, f"no problem {problem_id!r}")
    problems = server.judging.hold.problems
    hold = replace(server.judging.hold, problems=problems | {problem_id} if held else problems - {problem_id})
    action = "judging.hold_problem" if held else "judging.release_problem"
    return _set_hold(server, viewer, hold, now, action, {"problem_id": problem_id})


@dataclass(frozen=True)
class QueueView:
    hold: Hold
    jobs: tuple[QueuedJob, ...]
    running: frozenset[int]  # the submissions a judging thread is on now


def queue(server: ServedJudging, viewer: Viewer) -> QueueView:
    access.staff(viewer, "see the judging queue")
    with server.storage.read() as r:
        jobs = tuple(r.job_queue())
    mine = ("", server.contest.info.id)  # a site's pool judges every contest's: this contest's slots (issue 44)
    slots = server.pool.status().slots
    running = frozenset(s.submission_id for s in slots if s.submission_id is not None and s.contest_id in mine)
    return QueueView(server.judging.hold, jobs, running)


def judges(server: ServedJudging, viewer: Viewer) -> PoolStatus:
    access.staff(viewer, "see the judges")
    return server.pool.status()


def errors(server: ServedJudging, viewer: Viewer) -> list[tuple[JudgementRecord, SubmissionRecord | None]]:
    """The judge's errors (JE, never charged), newest first, with their submissions."""
    access.staff(viewer, "see the judging errors")
    with server.storage.read() as r:
        found = r.judgements(verdict=Verdict.JE.value)[-ERRORS_LIMIT:]
        subs = {s.id: s for s in r.submissions(ids=[j.submission_id for j in found])}
    return [(j, subs.get(j.submission_id)) for j in reversed(found)]
