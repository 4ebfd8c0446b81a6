"""Judgements and runs as visibility.py allows: the API's lists, a team's view of its own submission
(samples in full, secret tests' verdicts only) and the organizers' full detail of one submission."""

from __future__ import annotations

from dataclasses import dataclass

from judge.serve.model.errors import Refused
from judge.serve.model.records import JudgementRecord, RunRecord, SubmissionRecord
from judge.serve.model.upload import unpack
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.submissions import SubmissionView, submission_views
from judge.serve.services.people import access
from judge.serve.storage import Reader
from judge.serve.visibility import (
    Detail,
    Sight,
    course_judgement,
    course_sees_run,
    sees_judgement,
    sees_run_output,
    sees_runs,
    sees_submission,
    shown_judgements,
    test_detail,
)


def _subs_by_id(r: Reader, ids: set[int]) -> dict[int, SubmissionRecord]:
    return {s.id: s for s in r.submissions(ids=ids)}


def judgements(server: ServedJudging, sight: Sight, submission_ids: list[int] | None = None) -> list[JudgementRecord]:
    """The judgements the viewer may see (``submission_ids``: of those submissions only), in the order they
    were made."""
    with server.storage.read() as r:
        found = r.judgements(submission_ids=submission_ids)
        subs = _subs_by_id(r, {j.submission_id for j in found})
    by_sub: dict[int, list[JudgementRecord]] = {}
    for j in found:
        if sees_judgement(sight, subs[j.submission_id]):
            by_sub.setdefault(j.submission_id, []).append(j)
    shown = {j.id: j for js in by_sub.values() for j in shown_judgements(sight, js)}  # issue 47: verification
    return [course_judgement(sight, subs[j.submission_id], shown[j.id]) for j in found if j.id in shown]


def runs(server: ServedJudging, sight: Sight, submission_ids: list[int] | None = None) -> list[RunRecord]:
    """The runs (per-test results) the viewer may see (``submission_ids``: of those submissions' judgements
    only), in the order they were made."""
    with server.storage.read() as r:
        judgement_ids = None if submission_ids is None else [j.id for j in r.judgements(submission_ids=submission_ids)]
        found = r.runs(judgement_ids=judgement_ids)
        subs = _subs_by_id(r, {run.submission_id for run in found})
        of = {j.id: j for j in r.judgements(ids={run.judgement_id for run in found})}
    seen = (run for run in found if sees_runs(sight, subs[run.submission_id], of[run.judgement_id]))
    return [run for run in seen if course_sees_run(sight, subs[run.submission_id], run.name)]


@dataclass(frozen=True)
class SourceText:
    name: str
    text: str


def source_files(data: bytes) -> list[SourceText]:
    return [SourceText(f.name, f.data.decode("utf-8", errors="replace")) for f in unpack(data, 1 << 30)]


@dataclass(frozen=True)
class TestView:
    """One test's result as a page shows it: ``detail`` says how much (visibility.test_detail)."""

    run: RunRecord
    detail: Detail
    output: bool = False  # what it printed may be read (visibility.sees_run_output: issue 47)


@dataclass(frozen=True)
class TeamFeedback:
    view: SubmissionView
    judgement: JudgementRecord | None  # finished and visible, else None
    tests: list[TestView]
    files: list[SourceText]


def team_feedback(server: ServedJudging, sight: Sight, submission_id: int | None, *, what: str) -> TeamFeedback:
    """A team's own submission: its files, its compiler message and its tests (visibility.test_detail)."""
    views = submission_views(server, sight, team_id=sight.viewer.team_id, ids=[submission_id]) if submission_id else []
    if not views or sight.viewer.team_id is None:
        raise Refused(404, f"you have no submission {what!r}")
    view = views[0]
    judgement = view.judgement if view.judgement is not None and view.judgement.done else None
    with server.storage.read() as r:
        seen = judgement is not None and sees_runs(sight, view.submission, judgement)
        found = r.runs(judgement_ids=[judgement.id]) if judgement is not None and seen else []
        data = r.submission_files(view.submission.id) or b""
    shown = [run for run in found if course_sees_run(sight, view.submission, run.name)]  # a course's (issue 45)
    tests = [
        TestView(
            run,
            test_detail(sight, run.name),
            judgement is not None and sees_run_output(sight, view.submission, judgement, run.name),
        )
        for run in shown
    ]
    return TeamFeedback(view, judgement, tests, source_files(data))


@dataclass(frozen=True)
class JudgementDetail:
    judgement: JudgementRecord
    runs: list[RunRecord]  # by ordinal


@dataclass(frozen=True)
class StaffDetail:
    view: SubmissionView
    judgements: list[JudgementDetail]  # newest first, old ones too, and a rejudging set's held ones
    files: list[SourceText]


def staff_detail(server: ServedJudging, sight: Sight, submission_id: int | None, *, what: str) -> StaffDetail:
    """Everything about one submission, for judges and admins."""
    access.staff(sight.viewer, "see a submission's detail")
    views = submission_views(server, sight, ids=[submission_id]) if submission_id is not None else []
    if not views or not sees_submission(sight, views[0].submission):
        raise Refused(404, f"no submission {what!r}")
    sid = views[0].submission.id
    with server.storage.read() as r:
        # a rejudging set's held judgements too (issue 47): the jury reviews them before they count
        all_judgements = r.judgements(submission_ids=[sid], held=None)
        all_runs = r.runs(judgement_ids=[j.id for j in all_judgements], held=None)
        data = r.submission_files(sid) or b""
    details = [
        JudgementDetail(j, sorted((run for run in all_runs if run.judgement_id == j.id), key=lambda run: run.ordinal))
        for j in reversed(all_judgements)
    ]
    return StaffDetail(views[0], details, source_files(data))
