"""The live operations as data both the API's extensions and the jury's pages show (issue 30): the judging
(its hold, queue, judges and errors), the print-outs, the balloons."""

from __future__ import annotations

from typing import Any

from judge.serve.model.apijson import judgement_id
from judge.serve.model.balloons import Balloon
from judge.serve.model.records import PrintRecord
from judge.serve.model.times import format_time
from judge.serve.services.judging.operations import QueueView
from judge.serve.services.judging.pool import PoolStatus
from judge.serve.services.judging.queue import Hold

DOWN_AFTER_S = 10.0  # the dispatcher has not gone round for this long: the judging is down


def hold_json(hold: Hold) -> dict[str, Any]:
    return {"paused": hold.paused, "held_problem_ids": sorted(hold.problems)}


def queue_json(view: QueueView, now: float) -> list[dict[str, Any]]:
    out = []
    for q in view.jobs:
        s = q.submission
        running = s.id in view.running
        held = view.hold.paused or s.problem_id in view.hold.problems
        out.append(
            {
                "submission_id": str(s.id),
                "team_id": s.team_id,
                "problem_id": s.problem_id,
                "language_id": s.language_id,
                "reason": q.reason,
                "state": "running" if running else "held" if held else "waiting",
                "queued": format_time(q.created_s),
                "waiting_s": round(now - q.created_s, 1),
                "running_s": round(now - q.started_s, 1) if running and q.started_s is not None else None,
            }
        )
    return out


def counts(rows: list[dict[str, Any]], key: str) -> list[tuple[str, int]]:
    """How many queued per problem (or language)."""
    out: dict[str, int] = {}
    for r in rows:
        out[r[key]] = out.get(r[key], 0) + 1
    return sorted(out.items())


def judges_json(status: PoolStatus, now: float) -> dict[str, Any]:
    beat = status.heartbeat_s
    down = beat is None or now - beat > DOWN_AFTER_S
    return {
        "workers": status.workers,
        "cluster_slots": status.capacity,
        "heartbeat": None if beat is None else format_time(beat),
        "slots": [
            {
                "name": s.name,
                "status": "down" if down else "judging" if s.submission_id is not None else "idle",
                "submission_id": None if s.submission_id is None else str(s.submission_id),
                "judging_s": None if s.since_s is None else round(now - s.since_s, 1),
                "judged": s.judged,
                "last": None if s.last_s is None else format_time(s.last_s),
                # a site's pool (issue 44): the contest of the submission it judges
                **({"contest_id": s.contest_id} if s.contest_id else {}),
            }
            for s in status.slots
        ],
        "cluster_workers": None
        if status.cluster is None
        else [
            {
                "address": w.address,
                "name": w.name,
                "slots": w.slots,
                "executing": w.executing,
                "last_seen": None if w.last_seen_s is None else format_time(w.last_seen_s),
            }
            for w in status.cluster
        ],
    }


def errors_json(found: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "judgement_id": judgement_id(j.submission_id, j.ordinal),
            "submission_id": str(j.submission_id),
            "team_id": None if s is None else s.team_id,
            "problem_id": None if s is None else s.problem_id,
            "time": format_time(j.end_s) if j.end_s is not None else None,
            "message": j.compile_message or "",
        }
        for j, s in found
    ]


def print_json(p: PrintRecord) -> dict[str, Any]:
    return {
        "id": str(p.id),
        "team_id": p.team_id,
        "username": p.username,
        "filename": p.filename,
        "time": format_time(p.time_s),
        "status": p.status,
        "text": p.text,
        "delivered_time": None if p.delivered_s is None else format_time(p.delivered_s),
    }


def balloon_json(b: Balloon) -> dict[str, Any]:
    return {
        "submission_id": str(b.submission_id),
        "time": format_time(b.time_s),
        "team_id": b.team_id,
        "team": b.team,
        "problem_id": b.problem_id,
        "label": b.label,
        "rgb": b.rgb,
        "color": b.color,
        "first_to_solve": b.first_to_solve,
        "done": b.done,
    }
