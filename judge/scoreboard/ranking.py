"""Standings: totals, ranks, and the tie-break by the problems' optimization metrics. Pure functions.

Order: higher total first; equal totals are ordered by the metrics of the problems that have one, in
problem order (each compared the way its package says is better; only accepted submissions' metrics
count, no value is worst); then by name.
Contestants equal in total and in every metric share a rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judge.judging.verdict import Verdict
from judge.scoreboard.model import Board, BoardProblem, BoardRun

SCORE_DIGITS = 6


@dataclass(frozen=True)
class Standing:
    rank: int
    contestant: str
    total: float
    runs: tuple[BoardRun | None, ...]  # one per problem, in board order


def counted_metric(run: BoardRun | None) -> float | None:
    """The metric that ranks and is shown: only an accepted submission's (a rejected one's is partial)."""
    if run is None or run.result.verdict is not Verdict.AC or run.result.metric is None:
        return None
    return float(run.result.metric)


def metric_key(problem: BoardProblem, run: BoardRun | None) -> float:
    """Smaller is better; a missing value (or a rejected submission's) is the worst."""
    value = counted_metric(run)
    if problem.metric_name is None or value is None:
        return math.inf
    return value if problem.metric_better == "lower" else -value


def total_score(runs: Sequence[BoardRun | None]) -> float:
    return round(sum(r.result.score for r in runs if r is not None and r.result.verdict.charged), SCORE_DIGITS)


def sort_key(problems: Sequence[BoardProblem], runs: Sequence[BoardRun | None]) -> tuple[float, ...]:
    metrics = tuple(metric_key(p, r) for p, r in zip(problems, runs, strict=True) if p.metric_name is not None)
    return (-total_score(runs), *metrics)


def credited_total(board: Board, name: str) -> float:
    """An assignment's board: the contestant's total after the late penalty (scoreboard/model.AssignmentView)."""
    credits = board.assignment.credits if board.assignment is not None else {}
    return round(sum(c.score for (who, _), c in credits.items() if who == name), SCORE_DIGITS)


def standings(board: Board) -> list[Standing]:
    rows = []
    for name in board.contestants:
        runs = tuple(board.runs.get((name, p.id)) for p in board.problems)
        key = sort_key(board.problems, runs)
        if board.assignment is not None:  # ranked by the points that count, ties by name
            key = (-credited_total(board, name),)
        rows.append((key, name, runs))
    rows.sort(key=lambda r: (r[0], r[1]))
    out: list[Standing] = []
    for i, (key, name, runs) in enumerate(rows):
        rank = out[-1].rank if out and rows[i - 1][0] == key else i + 1
        out.append(Standing(rank, name, -key[0] if board.assignment is not None else total_score(runs), runs))
    return out


def problem_order(runs: Mapping[str, BoardRun], problem: BoardProblem) -> list[BoardRun]:
    """One problem's results, best first: score, then its metric, then contestant name."""
    return sorted(
        runs.values(),
        key=lambda r: (
            -r.result.score if r.result.verdict.charged else 0.0,
            metric_key(problem, r),
            r.contestant,
        ),
    )


def cell_class(run: BoardRun | None) -> str:
    """CSS class of a scoreboard cell: the verdict, and whether an AC has the full score."""
    if run is None:
        return "none"
    r = run.result
    if r.verdict is Verdict.AC:
        return "ac" if r.score >= r.max_score - 1e-6 else "partial"
    if r.verdict is Verdict.WA and r.score > 0:
        return "partial"
    return r.verdict.value.lower()
