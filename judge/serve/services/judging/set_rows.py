"""A rejudging set's bookkeeping inside the judging's own transactions (issue 47; the set itself: previews.py,
rejudgings.py): whether a job's judgement is held, what each member was before and is after, and the set's
state once its last job is done. Used by the judging queue (queue.py), a part that receives no context."""

from __future__ import annotations

from judge.judging.verdict import Verdict
from judge.serve.model.records import JudgementRecord, PreviewRecord, PreviewRun
from judge.serve.storage import Reader, Writer

REJUDGE = "rejudge"  # a rejudging set's kind (the package versions' are add-test and package)
OPEN_STATES = ("preparing", "running")  # still judging; then ready (held: to apply or cancel), applied, discarded


def set_of(r: Reader, rejudging_id: int | None) -> PreviewRecord | None:
    """The rejudging set a job belongs to (None: a plain job, or a set's that is no longer open)."""
    if rejudging_id is None:
        return None
    found = r.preview(rejudging_id)
    return found if found is not None and found.kind == REJUDGE else None


def holds(p: PreviewRecord | None) -> bool:
    """Whether the set's new judgements are held until it is applied (not ``auto_apply``), while it judges."""
    return p is not None and not p.auto_apply and p.state in OPEN_STATES


def _failing_test(r: Reader, judgement: JudgementRecord | None) -> str | None:
    if judgement is None:
        return None
    runs = sorted(r.runs(judgement_ids=[judgement.id], held=None), key=lambda run: run.ordinal)
    return next((run.name for run in runs if run.verdict != Verdict.AC.value), None)


def record_member(
    w: Writer, p: PreviewRecord, before: JudgementRecord | None, after: JudgementRecord, now: float
) -> None:
    """One submission of the set judged again: its verdict and score before → after (the set's page)."""
    w.add_preview_run(
        PreviewRun(
            preview_id=p.id,
            submission_id=after.submission_id,
            verdict_before=(before.verdict or "") if before is not None else "",
            verdict_after=after.verdict or "",
            score_before=float(before.score or 0.0) if before is not None else 0.0,
            score_after=float(after.score or 0.0),
            failing_test=_failing_test(w, after),
            time_s=now,
        )
    )


def finish_if_done(w: Writer, p: PreviewRecord) -> str | None:
    """The set's state once its last job is done: ready (held: the jury applies or cancels it), or applied
    (it applied itself, judgement by judgement); None: jobs remain."""
    _, left = w.rejudging_jobs(p.id)
    if left or p.state not in OPEN_STATES:
        return None
    state = "applied" if p.auto_apply else "ready"
    w.set_preview_state(p.id, state)
    return state
