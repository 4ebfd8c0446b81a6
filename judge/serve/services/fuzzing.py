"""Live fuzzing's use cases (issue 33, docs/live-fuzzing.md), shared by the API and the jury's Fuzzing page:
reading the counterexamples, the fuzz jobs and each problem's summary. Who may is visibility.sees_fuzzing's
decision (the jury only)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.serve.model.errors import Refused
from judge.serve.model.records import Counterexample, FuzzJobRecord, FuzzState
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


@dataclass(frozen=True)
class ProblemFuzzing:
    """One problem's live fuzzing so far: its fuzz jobs by state, and its counterexamples."""

    problem_id: str
    fuzzable: bool  # live fuzzing is on and the package has a fuzz.py
    fuzzed: int  # submissions fuzzed to the end (survived, or a counterexample found)
    survived: int
    counterexamples: int
    errors: int  # fuzz jobs the package or the judge failed (never charged to anyone)
    queued: int
    running: int


def summary(server: Server, viewer: Viewer, now: float) -> list[ProblemFuzzing]:
    """Per problem of the contest, in its order."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        jobs, found = r.fuzz_jobs(), r.counterexamples()
    states = Counter((j.problem_id, j.state) for j in jobs)
    per_problem = Counter(c.problem_id for c in found)
    out = []
    for p in server.contest.problems:
        n = {state: states[(p.id, state)] for state in FuzzState}
        out.append(
            ProblemFuzzing(
                problem_id=p.id,
                fuzzable=p.id in server.judging.fuzzable,
                fuzzed=n[FuzzState.SURVIVED] + n[FuzzState.COUNTEREXAMPLE],
                survived=n[FuzzState.SURVIVED],
                counterexamples=per_problem[p.id],
                errors=n[FuzzState.ERROR],
                queued=n[FuzzState.QUEUED],
                running=n[FuzzState.RUNNING],
            )
        )
    return out


@dataclass(frozen=True)
class FuzzJobView:
    job: FuzzJobRecord
    counterexample_id: int | None  # what it found


def fuzz_jobs(server: Server, viewer: Viewer, now: float, problem_id: str | None = None) -> list[FuzzJobView]:
    """The fuzz jobs (of one problem, or all), newest first, each with the counterexample it found."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        jobs, found = r.fuzz_jobs(problem_id), r.counterexamples(problem_id)
    by_job = {c.fuzz_job_id: c.id for c in found if c.fuzz_job_id is not None}
    return [FuzzJobView(j, by_job.get(j.id)) for j in jobs]
