"""A rejected submission's counterexample search read back (issue 46, docs/explain.md, docs/serve.md) as
visibility.counterexample_sight allows: the API, the pages and the downloads all ask here. Which judgements
queue a search: explain_plan.py; the searches on idle judging slots: explain_jobs.py."""

from __future__ import annotations

from dataclasses import dataclass

from judge.serve.model.errors import Refused
from judge.serve.model.explanations import ExplainRecord
from judge.serve.model.records import JudgementRecord, SubmissionRecord
from judge.serve.services.core.context import Served
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.explain_plan import problem_view
from judge.serve.services.judging.submissions import submission_views
from judge.serve.storage import Reader
from judge.serve.visibility import (
    CounterexampleSight,
    Sight,
    awaits_counterexample,
    awaits_verification,
    counterexample_sight,
    sees_runs,
    sees_submission,
)

PARTS = {"input": ".in", "answer": ".ans", "output": ".out"}  # the downloads, and their files' extensions


@dataclass(frozen=True)
class Shown:
    """A submission's newest search as a viewer sees it (``sight``: STATE or FULL)."""

    submission: SubmissionRecord
    search: ExplainRecord
    sight: CounterexampleSight

    @property
    def full(self) -> bool:
        return self.sight is CounterexampleSight.FULL

    @property
    def status(self) -> str:
        """What the viewer is told: the search's status, or ``limit`` (found, not shown: the team's limit)."""
        if self.search.found and not self.full:
            return "limit"
        return self.search.status


def _shown(sight: Sight, sub: SubmissionRecord, searches: list[ExplainRecord], r: Reader) -> Shown | None:
    if not searches or _awaits(sight, sub, r):
        return None
    level = counterexample_sight(sight, sub, searches[0])  # the newest: the one that counts
    return None if level is CounterexampleSight.NONE else Shown(sub, searches[0], level)


def _awaits(sight: Sight, sub: SubmissionRecord, r: Reader) -> bool:
    """Whether ``sub``'s verdict is the jury's only until a judge verifies it (issue 47): then so is its
    counterexample."""
    if sight.staff:
        return False
    return any(awaits_verification(j) for j in r.judgements(submission_ids=[sub.id], current=True))


def counterexample(server: Served, sight: Sight, submission_id: int | None, *, what: str) -> Shown:
    """The submission's counterexample search as the viewer may see it. Raises Refused 404, the same whether
    the submission has none, the viewer may not see it, or there is no such submission."""
    with server.storage.read() as r:
        subs = r.submissions(ids=[submission_id]) if submission_id is not None else []
        found = _shown(sight, subs[0], r.explanations(submission_ids=[subs[0].id]), r) if subs else None
    if found is None:
        raise Refused(404, f"no counterexample for submission {what!r}")
    return found


def counterexample_file(server: Served, sight: Sight, submission_id: int | None, part: str, *, what: str) -> bytes:
    """One of the counterexample's files (``part``: input, answer, output) for a viewer who sees it in full."""
    found = counterexample(server, sight, submission_id, what=what)
    result = found.search.result
    if part not in PARTS or not found.full or result is None or not found.search.found:
        raise Refused(404, f"no counterexample {part!r} for submission {what!r}")
    data: bytes | None = getattr(result, part)
    if data is None:
        raise Refused(404, "the program wrote no output on it (it crashed or ran out of a limit first)")
    return data


@dataclass(frozen=True)
class OnPage:
    """What a submission's page shows of its counterexample: the search the viewer sees (None: none yet), and
    whether the page polls for it (a search under way, or a judgement not done that may queue one)."""

    shown: Shown | None
    live: bool


def on_page(server: Served, sight: Sight, sub: SubmissionRecord, judgement: JudgementRecord | None) -> OnPage | None:
    """The counterexample part of ``sub``'s page (``judgement``: its current one as the viewer sees it; None:
    pending); None: nothing to show and nothing to wait for."""
    with server.storage.read() as r:
        shown = _shown(sight, sub, r.explanations(submission_ids=[sub.id]), r)
        waits = _awaits(sight, sub, r)
    if waits:
        return OnPage(None, True)
    if shown is not None:
        return OnPage(shown, shown.search.open)
    judged = judgement is not None and judgement.done
    if not judged and awaits_counterexample(sight, sub, problem_view(server.contest, sub.problem_id)):
        return OnPage(None, True)
    return None


def page_part(server: ServedJudging, sight: Sight, submission_id: int | None, *, what: str) -> OnPage | None:
    """The counterexample part of a submission's page again (live.js polls it), for those who may open that
    page (its team and the jury: visibility.sees_runs, as its tests); 404 for anyone else."""
    views = submission_views(server, sight, ids=[submission_id]) if submission_id is not None else []
    view = views[0] if views else None
    if view is None or not sees_submission(sight, view.submission):
        raise Refused(404, f"no counterexample for submission {what!r}")
    if view.judgement is not None and not sees_runs(sight, view.submission, view.judgement):
        raise Refused(404, f"no counterexample for submission {what!r}")  # e.g. awaiting verification (issue 47)
    return on_page(server, sight, views[0].submission, views[0].judgement)
