"""Who may do what (as opposed to see: visibility.py): the role checks every use case starts with."""

from __future__ import annotations

from judge.serve.model.errors import Refused
from judge.serve.model.phase import Phase
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role, Viewer

REALM = 'Basic realm="judge", charset="UTF-8"'


def authenticated(viewer: Viewer, what: str) -> None:
    if viewer.role is Role.PUBLIC:
        raise Refused(401, f"log in to {what}", {"WWW-Authenticate": REALM})


def staff(viewer: Viewer, what: str) -> None:
    authenticated(viewer, what)
    if not viewer.staff:
        raise Refused(403, f"only judges and admins may {what}")


def admin(viewer: Viewer, what: str) -> None:
    authenticated(viewer, what)
    if viewer.role is not Role.ADMIN:
        raise Refused(403, f"only admins may {what}")


def while_running(phase: Phase, now: float, what: str) -> None:
    """A team's ``what`` (submissions, questions) is taken only while the contest runs: else a 403 saying when."""
    info = phase.info
    if info.start_s is None:
        raise Refused(403, f"the contest has no start time yet: {what} are closed")
    if not phase.started(now):
        raise Refused(403, f"the contest has not started: {what} open at {format_time(info.start_s)}")
    if not phase.running(now):
        assert info.end_s is not None
        raise Refused(403, f"the contest is over (it ended at {format_time(info.end_s)}): no more {what}")


def refuse_if_final(phase: Phase) -> None:
    """A rejudge (or anything that would change the results) is refused while the contest is final
    (lifecycle/finalize.py)."""
    if phase.finalized_at is not None:
        raise Refused(409, "the contest is finalized: un-finalize it first (admin page, or POST .../unfinalize)")
