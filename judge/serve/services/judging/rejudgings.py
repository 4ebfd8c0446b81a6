"""Rejudgings as sets the jury reviews (issue 47, DOMjudge's rejudgings; docs/serve.md "Rejudgings").

A rejudge of a submission, a problem, a language, a team or the whole contest makes a *set*: a row of the
``previews`` table (kind ``rejudge``: the one table, page and API of issue 33's package previews), whose
jobs name it (``jobs.rejudging_id``). The judging queue judges them as any job, but a set that does not
apply itself keeps each new judgement *held* (non-current, unnumbered, in no document, on no board and no
feed: storage leaves it out) and records the submission's verdict and score before → after
(set_rows.py). Once its last job is done the set is ``ready``: the jury sees before → after and the board's
change (preview_view.py), and applies it (each held judgement becomes current and is published as if just
judged, ``JobQueue.make_current``) or cancels it (its jobs not done are closed; its held judgements stay
held, in no document: every document is as it was). A set started with ``auto_apply`` publishes each
judgement as it comes (the rejudge of old) and is ``applied`` once done. Starting, applying, cancelling:
the jury (judges and admins), audited; refused while the contest is finalized.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from judge.serve.model.errors import Refused
from judge.serve.model.records import PreviewRecord, SubmissionRecord
from judge.serve.model.viewer import Viewer
from judge.serve.services.judging import set_rows
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Writer
from judge.serve.visibility import applies_rejudgings

SCOPES = ("submission", "problem", "language", "team", "contest")
CANCELLED = "cancelled"


@dataclass(frozen=True)
class Started:
    rejudging_id: int
    queued: list[int]  # the submissions queued (one being judged already is not)


def scope_text(p: PreviewRecord) -> str:
    """What a set rejudges, for a page: "problem sum", "the whole contest"."""
    try:
        kind, value = next(iter(json.loads(p.scope or "{}").items()))
    except (StopIteration, ValueError, AttributeError):
        return "?"
    return "the whole contest" if kind == "contest" else f"{kind} {value}"


def _members(w: Writer, server: ServedJudging, kind: str, value: str, id_of: int | None) -> list[SubmissionRecord]:
    if kind == "submission":
        subs = w.submissions(ids=[id_of]) if id_of is not None else []
        if not subs:
            raise Refused(404, f"no submission {value!r}")
        return subs
    if kind == "problem":
        if server.contest.problem(value) is None:
            raise Refused(404, f"no problem {value!r}")
        return w.submissions(problem_id=value)
    if kind == "language":
        if value not in server.languages:
            raise Refused(404, f"no language {value!r}")
        return w.submissions(language_id=value)
    if kind == "team":
        if server.contest.team(value) is None:
            raise Refused(404, f"no team {value!r}")
        return w.submissions(team_id=value)
    if kind == "contest":
        return w.submissions()
    raise Refused(400, f"a rejudge is of one of {', '.join(SCOPES)}, not {kind!r}")


def _audit_action(
    kind: str, value: str, set_id: int, queued: list[int], subs: list[SubmissionRecord]
) -> tuple[str, dict[str, object]]:
    """The audit log's line: the names and details of the rejudges before issue 47, and the set's number."""
    if kind == "submission":
        return "submission.rejudge", {"id": str(subs[0].id), "queued": bool(queued), "rejudging": set_id}
    if kind == "contest":
        return "contest.rejudge", {"rejudged": queued, "rejudging": set_id}
    return f"{kind}.rejudge", {"id": value, "rejudged": queued, "rejudging": set_id}


def start(
    server: ServedJudging,
    viewer: Viewer,
    kind: str,
    value: str,
    now: float,
    *,
    auto_apply: bool,
    id_of: int | None = None,
) -> Started:
    """A rejudging set of the submissions ``kind`` ``value`` names (a submission: ``id_of``, its number;
    the contest: every submission); each not being judged already is queued. ``auto_apply``: its
    judgements count as they come, else once the jury applies the set."""
    access.staff(viewer, "rejudge")
    access.refuse_if_final(server.timeline.phase)
    with server.storage.write() as w:
        subs = _members(w, server, kind, value, id_of)
        problem = subs[0].problem_id if kind == "submission" else value if kind == "problem" else ""
        scope = json.dumps({kind: str(subs[0].id) if kind == "submission" else value if kind != "contest" else ""})
        record = PreviewRecord(
            problem,
            0,
            0,
            set_rows.REJUDGE,
            None,
            "running",
            "",
            now,
            scope=scope,
            auto_apply=auto_apply,
            created_by=viewer.username or "",
        )
        set_id = w.add_preview(record)
        queued = []
        for s in subs:
            if not w.has_open_job(s.id):
                w.enqueue(s.id, "rejudge", now, rejudging_id=set_id)
                queued.append(s.id)
        made = set_rows.set_of(w, set_id)
        if made is not None:
            set_rows.finish_if_done(w, made)  # nothing queued: ready (or applied) at once
        action, detail = _audit_action(kind, value, set_id, queued, subs)
        audit(w, viewer, now, action, detail)
    server.pool.wake()
    return Started(set_id, queued)


def _may(server: ServedJudging, viewer: Viewer, now: float, what: str) -> None:
    access.staff(viewer, what)
    if not applies_rejudgings(server.sight(viewer, now)):
        raise Refused(403, f"only judges and admins may {what}")


def _set(w: Writer, set_id: int | None) -> PreviewRecord:
    found = None if set_id is None else w.preview(set_id)
    if found is None or found.kind != set_rows.REJUDGE:
        raise Refused(404, f"no rejudging {set_id}")
    return found


@dataclass(frozen=True)
class Applied:
    applied: list[int]  # the submissions whose new judgement is now current
    superseded: list[int]  # judged again since (by another rejudge): their newer judgement stays current


def apply(server: ServedJudging, viewer: Viewer, set_id: int | None, now: float) -> Applied:
    """A ready set's held judgements become current and are published (each replacing the submission's
    current one), unless the submission was judged again since."""
    _may(server, viewer, now, "apply a rejudging")
    access.refuse_if_final(server.timeline.phase)
    applied, superseded = [], []
    with server.storage.write() as w:
        p = _set(w, set_id)
        if p.state != "ready":
            _, left = w.rejudging_jobs(p.id)
            why = f"still judging ({left} left)" if p.state == "running" else p.state
            raise Refused(409, f"rejudging {p.id} is {why}: only a ready one is applied")
        held = sorted(w.judgements(rejudging_id=p.id, held=True), key=lambda j: j.id)
        subs = {s.id: s for s in w.submissions(ids=[j.submission_id for j in held])}
        for j in held:
            if not j.done or j.submission_id not in subs:
                continue
            current = w.judgements(submission_ids=[j.submission_id], current=True)
            if any(c.id > j.id for c in current):
                superseded.append(j.submission_id)
                continue
            w.release_judgement(j.id)
            server.judging.make_current(w, subs[j.submission_id], j.id, now)
            applied.append(j.submission_id)
        note = f"{len(superseded)} judged again since: left as they are" if superseded else None
        w.set_preview_state(p.id, "applied", note)
        audit(w, viewer, now, "rejudging.apply", {"rejudging": p.id, "applied": applied, "superseded": superseded})
    server.bus.notify()
    return Applied(applied, superseded)


def cancel(server: ServedJudging, viewer: Viewer, set_id: int | None, now: float) -> int:
    """Stop a set: its jobs not judged yet are closed, its held judgements stay held (in no document).
    Returns how many jobs were closed. (A set that applies itself keeps what it applied already.)"""
    _may(server, viewer, now, "cancel a rejudging")
    with server.storage.write() as w:
        p = _set(w, set_id)
        if p.state not in (*set_rows.OPEN_STATES, "ready"):
            raise Refused(409, f"rejudging {p.id} is {p.state} already")
        closed = w.close_jobs(p.id)
        w.set_preview_state(p.id, CANCELLED, f"cancelled by {viewer.username}")
        audit(w, viewer, now, "rejudging.cancel", {"rejudging": p.id, "jobs_closed": closed})
    server.bus.notify()
    return closed


@dataclass(frozen=True)
class SetSummary:
    record: PreviewRecord
    members: int  # submissions queued
    left: int  # not judged yet
    changed: int  # whose verdict changes


def rejudgings(server: ServedJudging, viewer: Viewer) -> list[SetSummary]:
    """Every rejudging set, newest first (the jury's)."""
    access.staff(viewer, "see the rejudgings")
    out = []
    with server.storage.read() as r:
        for p in reversed(r.previews()):
            if p.kind != set_rows.REJUDGE:
                continue
            subs, left = r.rejudging_jobs(p.id)
            changed = sum(1 for run in r.preview_runs(p.id) if run.verdict_after != run.verdict_before)
            out.append(SetSummary(p, len(subs), left, changed))
    return out


def left_of(server: ServedJudging, set_id: int) -> int:
    """How many of a set's submissions are not judged yet."""
    with server.storage.read() as r:
        return r.rejudging_jobs(set_id)[1]
