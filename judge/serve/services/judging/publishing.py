"""What the judging queue (queue.py) publishes and stores of a judgement: its event, a version per audience
(visibility.judgement_versions; the jury's only while it awaits verification), the judgements published again
at the thaw, and a result's outcome and per-pass details as the storage's records."""

from __future__ import annotations

from judge.judging.results import PassDetail, SubmissionResult
from judge.serve.model.apijson import judgement_json, judgement_type
from judge.serve.model.course import CourseView
from judge.serve.model.phase import Phase
from judge.serve.model.records import (
    Audience,
    JudgementOutcome,
    JudgementRecord,
    RunDetail,
    Scope,
    SubmissionRecord,
)
from judge.serve.services.core.events import publish
from judge.serve.storage import Writer
from judge.serve.visibility import judgement_versions


def publish_judgement(
    w: Writer,
    phase: Phase,
    judgement: JudgementRecord,
    sub: SubmissionRecord,
    now: float,
    course: CourseView | None = None,
    *,
    staff_only: bool = False,
) -> None:
    """The judgement's event (a course's: a version per audience, visibility.judgement_versions); ``staff_only``:
    the jury's, whatever visibility says (a judgement replaced by one that awaits verification, issue 47)."""
    if staff_only:
        obj = judgement_json(judgement, phase.info)
        publish(w, "judgements", obj["id"], obj, now=now, audience=Audience(Scope.ADMIN, sub.team_id))
        return
    for audience, version in judgement_versions(phase, sub, judgement, now, course):
        obj = judgement_json(version, phase.info)
        publish(w, "judgements", obj["id"], obj, now=now, audience=audience)


def republish_judgements(w: Writer, phase: Phase, since_s: float, now: float, course: CourseView | None = None) -> None:
    """Publish again the judgements of submissions made since ``since_s`` (at the thaw: for everyone now)."""
    subs = {s.id: s for s in w.submissions() if s.time_s >= since_s}
    for j in w.judgements(submission_ids=list(subs)):
        publish_judgement(w, phase, j, subs[j.submission_id], now, course)


def outcome(
    result: SubmissionResult, current: bool, now: float, package_hash: str, awaiting: bool = False
) -> JudgementOutcome:
    tests = [t for t in result.tests if not t.skipped]
    return JudgementOutcome(
        awaiting=awaiting,
        current=current,
        end_s=now,
        verdict=result.verdict.value,
        judgement_type=judgement_type(result.verdict),
        score=result.score,
        max_score=result.max_score,
        max_run_time=round(max(t.time_s for t in tests), 3) if tests else None,
        memory_kib=result.memory_kib,
        metric=result.metric,
        metric_name=result.metric_name,
        compile_message=result.compile_message,
        package_hash=package_hash,
    )


def run_detail(judgement_id: int, ordinal: int, d: PassDetail) -> RunDetail:
    return RunDetail(
        judgement_id=judgement_id,
        ordinal=ordinal,
        pass_n=d.n,
        verdict=d.verdict.value,
        output=d.output,
        output_bytes=d.output_bytes,
        stderr=d.stderr,
        stderr_bytes=d.stderr_bytes,
        input=d.input,
        input_bytes=d.input_bytes,
        exit_code=d.exit_code,
        signal=d.signal,
        time_s=d.time_s,
        wall_time_s=d.wall_time_s,
        memory_kib=d.memory_kib,
        judge_message=d.judge_message,
        team_message=d.team_message,
    )
