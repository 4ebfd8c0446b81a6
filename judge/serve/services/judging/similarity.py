"""Similar submissions in `judge serve` (issue 49, docs/similarity.md): per problem, the report of
judge.similarity over the teams' submissions, for the jury only (visibility.sees_similarity).

A report is asked for by a judge (the "Compute" button) or, after the contest's end, automatically for every
problem whose report is missing or older than its newest submission. It is computed as idle work of the
judging pool (services/judging/idle.py: only when no submission waits, never on the event loop); a server that judges
on a Dask cluster lends no idle slots, so there a thread of its own computes it. The report is stored as
judge.similarity's JSON. "Mark reviewed" keeps who looked at a pair, with a note, in the same transaction as
the audit log's line of it. Nothing of it is published on the event feed.

Compared: the submissions of each team made during the contest and not ignored (an admin's tests before or
after it, and ignored submissions, count nowhere); a team's own submissions are never compared with each
other, and of two teams only their most similar pair of submissions is listed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from judge.serve.model.errors import Refused
from judge.serve.model.similarity import PairReview, SimilarityRecord
from judge.serve.model.upload import unpack
from judge.serve.model.viewer import Viewer
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.queue import UNPACK_LIMIT
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.visibility import Sight, sees_similarity
from judge.similarity.model import Region
from judge.similarity.render import marked_lines

MAX_NOTE_CHARS = 2000


def _allowed(server: ServedJudging, viewer: Viewer, now: float) -> None:
    access.authenticated(viewer, "see similar submissions")
    if not sees_similarity(Sight(viewer, server.timeline.phase, now)):
        raise Refused(403, "only judges and admins may see similar submissions")


def _problem(server: ServedJudging, problem_id: str) -> None:
    if server.contest.problem(problem_id) is None:
        raise Refused(404, "no such problem")


# ------------------------------------------------------------------------------------ the jury's use cases


@dataclass(frozen=True)
class ProblemStatus:
    problem_id: str
    record: SimilarityRecord | None
    pairs: int  # above the threshold
    reviewed: int


def overview(server: ServedJudging, viewer: Viewer, now: float) -> list[ProblemStatus]:
    """Per problem of the contest: its report's state, how many pairs, how many reviewed."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        records = {x.problem_id: x for x in r.similarity_reports()}
        reviewed = {cp.id: {v.pair_key for v in r.similarity_reviews(cp.id)} for cp in server.contest.problems}
    out = []
    for cp in server.contest.problems:
        found = records.get(cp.id)
        keys = [p["key"] for p in json.loads(found.report)["pairs"]] if found and found.report else []
        out.append(ProblemStatus(cp.id, found, len(keys), len(reviewed[cp.id] & set(keys))))
    return out


@dataclass(frozen=True)
class ProblemView:
    record: SimilarityRecord | None
    report: dict[str, Any] | None  # judge.similarity's JSON of the problem (docs/similarity.md)
    reviews: dict[str, PairReview]  # by pair key


def problem_view(server: ServedJudging, viewer: Viewer, now: float, problem_id: str) -> ProblemView:
    _allowed(server, viewer, now)
    _problem(server, problem_id)
    with server.storage.read() as r:
        found = r.similarity_report(problem_id)
        reviews = {v.pair_key: v for v in r.similarity_reviews(problem_id)}
    report = json.loads(found.report) if found is not None and found.report else None
    return ProblemView(found, report, reviews)


def pair_view(server: ServedJudging, viewer: Viewer, now: float, problem_id: str, rank: int | None) -> dict[str, Any]:
    """One pair of the stored report, with both submissions' files marked where they match."""
    view = problem_view(server, viewer, now, problem_id)
    pairs = view.report["pairs"] if view.report else []
    if rank is None or not 1 <= rank <= len(pairs):
        raise Refused(404, "no such pair")
    pair = pairs[rank - 1]
    sides = []
    with server.storage.read() as r:
        for side in (pair["a"], pair["b"]):
            data = r.submission_files(int(side["id"]))
            files = [] if data is None else unpack(data, UNPACK_LIMIT)
            texts = [(f.name, f.data.decode("utf-8", errors="replace")) for f in files]
            regions = [Region(**reg) for reg in side["regions"]]
            sides.append({"side": side, "files": marked_lines(texts, regions)})
    return {"pair": pair, "sides": sides, "review": view.reviews.get(pair["key"])}


def request(server: ServedJudging, viewer: Viewer, now: float, problem_id: str | None) -> list[str]:
    """Queue the report of one problem (None: every problem); the problems queued (not those queued already)."""
    _allowed(server, viewer, now)
    ids = [cp.id for cp in server.contest.problems] if problem_id is None else [problem_id]
    if problem_id is not None:
        _problem(server, problem_id)
    with server.storage.write() as w:
        queued = [pid for pid in ids if w.request_similarity(pid, viewer.username or "?", now)]
    server.pool.wake()
    return queued


def mark_reviewed(server: ServedJudging, viewer: Viewer, now: float, problem_id: str, pair_key: str, note: str) -> None:
    """A judge looked at a pair: kept (replacing an earlier mark), and a line in the audit log."""
    _allowed(server, viewer, now)
    _problem(server, problem_id)
    if len(note) > MAX_NOTE_CHARS:
        raise Refused(400, f"the note is longer than {MAX_NOTE_CHARS} characters")
    with server.storage.write() as w:
        found = w.similarity_report(problem_id)
        keys = {p["key"] for p in json.loads(found.report)["pairs"]} if found and found.report else set()
        if pair_key not in keys:
            raise Refused(404, "no such pair in the problem's report")
        w.put_pair_review(PairReview(problem_id, pair_key, viewer.username or "?", note, now))
        audit(w, viewer, now, "similarity-reviewed", {"problem_id": problem_id, "pair": pair_key, "note": note})
