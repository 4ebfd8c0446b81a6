"""Similar submissions in `judge serve` (issue 49, docs/similarity.md): a problem's stored report and the
jury's "reviewed" marks on its pairs."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class SimilarityState(StrEnum):
    QUEUED = "queued"  # asked for (a judge's button, or the contest's end); computed on an idle judging slot
    RUNNING = "running"
    READY = "ready"
    FAILED = "failed"  # the judge's own error: its message; asked for again, it runs again


@dataclass(frozen=True)
class SimilarityRecord:
    problem_id: str
    state: SimilarityState
    requested_s: float
    requested_by: str  # a username, or "contest end"
    computed_s: float | None = None
    submissions: int = 0  # how many it compared
    latest_submission_id: int = 0  # the newest submission of the problem when it was computed
    report: str | None = None  # the problem's report, as judge.similarity's JSON (stable keys)
    message: str = ""


@dataclass(frozen=True)
class PairReview:
    """A judge looked at a pair (kept with the audit log's line of it)."""

    problem_id: str
    pair_key: str  # judge.similarity's Pair.key: "<submission id>~<submission id>"
    username: str
    note: str
    time_s: float
