"""Live fuzzing's use cases (issue 33, docs/live-fuzzing.md), shared by the API and the jury's Fuzzing page:
reading the counterexamples, the fuzz jobs, each problem's summary, the Fuzzing page's per-problem overview
and the jury's notice of new counterexamples. Who may is visibility.sees_fuzzing's decision (the jury only)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from judge.fuzz.hooks import hooks_path
from judge.serve.model.errors import Refused
from judge.serve.model.records import Counterexample, FuzzJobRecord, FuzzState
from judge.serve.model.viewer import Viewer
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.people import access
from judge.serve.visibility import Sight, sees_fuzzing


def _allowed(server: ServedJudging, viewer: Viewer, now: float) -> None:
    access.authenticated(viewer, "see the fuzzing")
    if not sees_fuzzing(server.sight(viewer, now)):
        raise Refused(403, "only judges and admins may see the fuzzing")


def counterexamples(
    server: ServedJudging, viewer: Viewer, now: float, problem_id: str | None = None
) -> list[Counterexample]:
    """The counterexamples (of one problem, or all), newest first."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        return with_added(r.counterexamples(problem_id))


def counterexample(server: ServedJudging, viewer: Viewer, now: float, counterexample_id: int | None) -> Counterexample:
    """One counterexample; ``None`` (an id that is not a number) is a 404 like one not stored."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        found = None if counterexample_id is None else r.counterexample(counterexample_id)
        if found is None:
            raise Refused(404, "no such counterexample")
        siblings = r.counterexamples(found.problem_id) if found.added_as is None else []
    return with_added([found, *siblings])[0]


def with_added(found: Sequence[Counterexample]) -> list[Counterexample]:
    """``found`` with ``added_as`` of those whose input was added as a test through another counterexample of
    the same problem (the same bytes: one test, not two; docs/live-fuzzing.md)."""
    added = {(c.problem_id, c.input): c.added_as for c in found if c.added_as is not None}
    return [c if c.added_as is not None else replace(c, added_as=added.get((c.problem_id, c.input))) for c in found]


# ------------------------------------------------------------------------------------- the Fuzzing page

SEEN_KEY = "fuzzing_seen:{account_id}"  # meta: the newest counterexample id the account's Fuzzing page showed


@dataclass(frozen=True)
class ProblemFuzzing:
    """One problem's part of the jury's Fuzzing page."""

    problem_id: str
    fuzzable: bool  # the package has a fuzz.py where the hooks loader (judge/fuzz/hooks.py) looks for it
    counterexamples: tuple[Counterexample, ...]  # newest first
    jobs: ProblemSummary  # the fuzz jobs' counts (fuzzed, survived, errors, queued, running)


@dataclass(frozen=True)
class Overview:
    problems: tuple[ProblemFuzzing, ...]  # in the contest's order
    team_ids: dict[int, str]  # the team of each counterexample's submission, by submission id


def overview(server: ServedJudging, viewer: Viewer, now: float) -> Overview:
    """Per problem of the contest: fuzzable or not, its counterexamples newest first. The viewer has seen
    them now (they are on the screen): the notice of new ones ends for this account."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        found = with_added(r.counterexamples(None))
        jobs = r.fuzz_jobs()
        submissions = r.submissions(ids={c.submission_id for c in found})
    counts = summaries(server, jobs, found)
    problems = tuple(
        ProblemFuzzing(cp.id, hooks_path(cp.problem).is_file(), tuple(c for c in found if c.problem_id == cp.id), n)
        for cp, n in zip(server.contest.problems, counts, strict=True)
    )
    if found and viewer.account_id is not None:
        _mark_seen(server, viewer.account_id, max(c.id for c in found))
    return Overview(problems, {s.id: s.team_id for s in submissions})


@dataclass(frozen=True)
class Detail:
    counterexample: Counterexample
    team_id: str | None  # its submission's team (None: the submission is not stored)


def detail(server: ServedJudging, viewer: Viewer, now: float, counterexample_id: int | None) -> Detail:
    """One counterexample and its submission's team, for its page (a 404 as ``counterexample``'s)."""
    found = counterexample(server, viewer, now, counterexample_id)
    with server.storage.read() as r:
        submissions = r.submissions(ids=[found.submission_id])
    return Detail(found, submissions[0].team_id if submissions else None)


def _seen(stored: str | None) -> int:
    return int(stored) if stored is not None and stored.isdigit() else 0


def _mark_seen(server: ServedJudging, account_id: str, newest_id: int) -> None:
    key = SEEN_KEY.format(account_id=account_id)
    with server.storage.write() as w:
        if _seen(w.get_meta(key)) < newest_id:
            w.set_meta(key, str(newest_id))


@dataclass(frozen=True)
class FuzzNotice:
    """What a judge's header says of counterexamples found since the judge last looked at the Fuzzing page."""

    count: int
    problem_ids: tuple[str, ...]  # their problems, the newest one's first


def notice(server: ServedJudging, sight: Sight) -> FuzzNotice | None:
    """None for everyone but the jury. (On every staff page and every few seconds: ids only, no contents.)"""
    account_id = sight.viewer.account_id
    if not sees_fuzzing(sight) or account_id is None:
        return None
    with server.storage.read() as r:
        new = r.counterexample_problems(_seen(r.get_meta(SEEN_KEY.format(account_id=account_id))))
    newest_first = [new[i] for i in sorted(new, reverse=True)]
    return FuzzNotice(len(new), tuple(dict.fromkeys(newest_first)))


@dataclass(frozen=True)
class ProblemSummary:
    """One problem's live fuzzing so far: its fuzz jobs by state, and its counterexamples."""

    problem_id: str
    fuzzable: bool  # live fuzzing is on and the package has a fuzz.py
    fuzzed: int  # submissions fuzzed to the end (survived, or a counterexample found)
    survived: int
    counterexamples: int
    errors: int  # fuzz jobs the package or the judge failed (never charged to anyone)
    queued: int
    running: int


def summary(server: ServedJudging, viewer: Viewer, now: float) -> list[ProblemSummary]:
    """Per problem of the contest, in its order."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        jobs, found = r.fuzz_jobs(), r.counterexamples()
    return summaries(server, jobs, found)


def summaries(server: ServedJudging, jobs: list[FuzzJobRecord], found: list[Counterexample]) -> list[ProblemSummary]:
    """Per problem of the contest, in its order, from its fuzz jobs and counterexamples."""
    states = Counter((j.problem_id, j.state) for j in jobs)
    per_problem = Counter(c.problem_id for c in found)
    out = []
    for p in server.contest.problems:
        n = {state: states[(p.id, state)] for state in FuzzState}
        out.append(
            ProblemSummary(
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


def fuzz_jobs(server: ServedJudging, viewer: Viewer, now: float, problem_id: str | None = None) -> list[FuzzJobView]:
    """The fuzz jobs (of one problem, or all), newest first, each with the counterexample it found."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        jobs, found = r.fuzz_jobs(problem_id), r.counterexamples(problem_id)
    by_job = {c.fuzz_job_id: c.id for c in found if c.fuzz_job_id is not None}
    return [FuzzJobView(j, by_job.get(j.id)) for j in jobs]
