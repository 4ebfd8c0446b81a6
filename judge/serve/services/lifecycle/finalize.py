"""The end of the contest: an admin finalizes the results (the spec's ``state.finalized``), or takes that
back to rejudge; ``end_of_updates`` (the event feed ends with it) once the results are final and the board
is thawed (or was never frozen).

Finalize is refused, with the reason, before the contest has ended and while any submission made during
it is not judged (a new one, or a rejudge). Otherwise the state gets ``finalized``, and the board stays as
it is: frozen, in the ICPC's order (finalize, the resolver's ceremony on the frozen board, then the thaw:
services/lifecycle/control.py). The final awards go on the event feed when both are done (here, or at the thaw:
``publish_if_final``), just before the state with ``end_of_updates``. A rejudge after the finalize is
refused (409) until an admin un-finalizes; un-finalizing clears ``finalized`` and ``end_of_updates`` (the
spec wants nothing after ``end_of_updates``: an organizer who must rejudge breaks that knowingly, and
finalizes again after). Both are audited."""

from __future__ import annotations

from typing import Any

from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services.board.context import ServedBoard
from judge.serve.services.lifecycle.awards import publish_final
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Reader, Writer


def unjudged(server: ServedBoard, r: Reader) -> int:
    """Submissions of the contest not judged yet, or with a rejudge still to do."""
    info = server.contest.info
    counted = r.counted((info.start_s, info.end_s)) if info.start_s is not None and info.end_s is not None else []
    waiting = sum(1 for c in counted if c.judgement is None or c.judgement.verdict is None)
    return max(waiting, r.pending_jobs())


def refusal(server: ServedBoard, now: float) -> str | None:
    """Why the contest cannot be finalized now (one line, as ``finalize`` would refuse it), or None."""
    with server.storage.read() as r:
        return server.timeline.phase.finalize_refusal(now, unjudged(server, r))


def finalize(server: ServedBoard, viewer: Viewer) -> dict[str, Any]:
    """Finalize now; returns the new state object. Refused (409) with the reason when it cannot be."""
    access.admin(viewer, "finalize the contest")

    def publish(w: Writer, now: float, _: float | None) -> None:
        audit(w, viewer, now, "contest.finalize", {})
        publish_if_final(w, server, now)

    try:
        now = server.timeline.finalize(lambda r: unjudged(server, r), publish)
    except ValueError as exc:
        raise Refused(409, str(exc)) from None
    return server.timeline.state_json(now)


def unfinalize(server: ServedBoard, viewer: Viewer, now: float) -> dict[str, Any]:
    """Take the finalize back (before a rejudge); returns the new state object."""
    access.admin(viewer, "un-finalize the contest")
    try:
        server.timeline.unfinalize(lambda w, when, _: audit(w, viewer, when, "contest.unfinalize", {}))
    except ValueError as exc:
        raise Refused(409, str(exc)) from None
    return server.timeline.state_json(now)


def publish_if_final(w: Writer, server: ServedBoard, now: float) -> None:
    """The final awards on the event feed, once the results are final and public (finalized and thawed, in
    either order: the finalize or the thaw that comes second calls this, in its transaction)."""
    if server.timeline.phase.end_of_updates_s is not None:
        publish_final(w, server, now)
