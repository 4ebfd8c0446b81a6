"""Live fuzzing's use cases (issue 33, docs/live-fuzzing.md), shared by the API and (later) the jury's
Fuzzing page: reading the counterexamples. Who may is visibility.sees_fuzzing's decision (the jury only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.serve.model.errors import Refused
from judge.serve.model.records import Counterexample
from judge.serve.model.viewer import Viewer
from judge.serve.services import access
from judge.serve.visibility import sees_fuzzing

if TYPE_CHECKING:
    from judge.serve.services.server import Server


def _allowed(server: Server, viewer: Viewer, now: float) -> None:
    access.authenticated(viewer, "see the fuzzing")
    if not sees_fuzzing(server.sight(viewer, now)):
        raise Refused(403, "only judges and admins may see the fuzzing")


def counterexamples(server: Server, viewer: Viewer, now: float, problem_id: str | None = None) -> list[Counterexample]:
    """The counterexamples (of one problem, or all), newest first."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        return r.counterexamples(problem_id)


def counterexample(server: Server, viewer: Viewer, now: float, counterexample_id: int | None) -> Counterexample:
    """One counterexample; ``None`` (an id that is not a number) is a 404 like one not stored."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        found = None if counterexample_id is None else r.counterexample(counterexample_id)
    if found is None:
        raise Refused(404, "no such counterexample")
    return found
