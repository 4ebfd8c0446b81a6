"""The balloon runners' list (issue 30), staff and balloon runners (issue 47): every first solve of a problem by
a team, in order, with the problem's colour, whether it was the first solve of the problem, and whether its
balloon is delivered ("done", kept in the database, audited). It ignores the freeze (the runners are the
jury's), not verification: a judgement that awaits it brings no balloon yet (the team does not know)."""

from __future__ import annotations

from judge.serve.model.balloons import Balloon, balloons
from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services.board.board import verified_counted
from judge.serve.services.core.context import Served
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.visibility import sees_balloons


def _may(server: Served, viewer: Viewer, now: float, what: str) -> None:
    access.authenticated(viewer, what)
    if not sees_balloons(server.sight(viewer, now)):
        raise Refused(403, f"only judges, admins and balloon runners may {what}")


def balloon_list(server: Served, viewer: Viewer) -> list[Balloon]:
    _may(server, viewer, server.clock.now(), "see the balloons")
    contest = server.contest
    info = contest.info
    with server.storage.read() as r:
        window = None if info.start_s is None or info.end_s is None else (info.start_s, info.end_s)
        counted = r.counted(window) if window is not None else []
        counted = verified_counted(r, counted)
        done = r.balloons_done()
    return balloons(counted, contest, done)


def mark_done(server: Served, viewer: Viewer, submission_id: int | None, done: bool, now: float) -> None:
    """Mark a balloon delivered (or not)."""
    _may(server, viewer, now, "mark balloons")
    if submission_id is None or all(b.submission_id != submission_id for b in balloon_list(server, viewer)):
        raise Refused(404, f"no balloon for submission {submission_id!r}")
    with server.storage.write() as w:
        w.set_balloon_done(submission_id, done, now)
        audit(w, viewer, now, "balloon.done" if done else "balloon.undone", {"submission_id": str(submission_id)})
