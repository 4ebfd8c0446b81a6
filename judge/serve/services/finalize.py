"""The end of the contest: an admin finalizes the results (the spec's ``state.finalized``, then
``end_of_updates``: the event feed ends with it), or takes that back to rejudge.

Finalize is refused, with the reason, before the contest has ended and while any submission made during
it is not judged (a new one, or a rejudge). Otherwise the board thaws if it is frozen, the final awards go
on the event feed, and the state gets ``finalized`` and ``end_of_updates`` (the same moment: nothing
changes after it). A rejudge after that is refused (409) until an admin un-finalizes; un-finalizing clears
both (the spec wants nothing after ``end_of_updates``: an organizer who must rejudge breaks that knowingly,
and finalizes again after)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services import access
from judge.serve.services.awards import publish_final
from judge.serve.services.events import publish_if_changed
from judge.serve.storage import Reader, Writer

if TYPE_CHECKING:
    from judge.serve.services.server import Server


def unjudged(server: Server, r: Reader) -> int:
    """Submissions of the contest not judged yet, or with a rejudge still to do."""
    info = server.contest.info
    counted = r.counted((info.start_s, info.end_s)) if info.start_s is not None and info.end_s is not None else []
    waiting = sum(1 for c in counted if c.judgement is None or c.judgement.verdict is None)
    return max(waiting, r.pending_jobs())


def finalize(server: Server, viewer: Viewer) -> dict[str, Any]:
    """Finalize now; returns the new state object. Refused (409) with the reason when it cannot be."""
    access.admin(viewer, "finalize the contest")

    def publish(w: Writer, now: float, _: float | None) -> None:
        publish_if_changed(w, "contest", None, server.timeline.contest_json(), now=now)  # a thaw time
        publish_final(w, server, now)

    try:
        now = server.timeline.finalize(lambda r: unjudged(server, r), publish)
    except ValueError as exc:
        raise Refused(409, str(exc)) from None
    return server.timeline.state_json(now)


def unfinalize(server: Server, viewer: Viewer, now: float) -> dict[str, Any]:
    """Take the finalize back (before a rejudge); returns the new state object."""
    access.admin(viewer, "un-finalize the contest")
    try:
        server.timeline.unfinalize()
    except ValueError as exc:
        raise Refused(409, str(exc)) from None
    return server.timeline.state_json(now)


def refuse_if_final(server: Server) -> None:
    """A rejudge (or anything that would change the results) is refused while the contest is final."""
    if server.timeline.phase.finalized_at is not None:
        raise Refused(409, "the contest is finalized: un-finalize it first (admin page, or POST .../unfinalize)")
