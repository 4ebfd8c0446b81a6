"""The live scoreboard: the database's judgements as the ``Board`` that `judge grade` renders, ranked by
the same code (judge/scoreboard/ranking.py), then written as the Contest API's scoreboard object. A
pass-fail contest is ranked by judge/scoreboard/passfail.py (also `judge grade`'s), from the same attempts.

For each team and problem the submission that counts is the best one judged so far: the highest score,
then (for a problem with a metric) the better metric, then the earliest. JE counts for nothing (never
charged). Ranks: total score, then the problems' metrics in problem order (as `judge grade`); teams that
tie share a rank and are listed by name. A problem's ``time`` is when its counting submission was made;
the row's ``score.time`` the latest of those (the last improvement).

Frozen view (public and teams during the freeze, until the thaw: visibility.board_view decides):
submissions made since the freeze count as pending and their results are ignored. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge.grade.report import board_problem
from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict
from judge.scoreboard.model import Board, BoardRun
from judge.scoreboard.passfail import Cell, Standings, Team, Try, outcome, rank
from judge.scoreboard.ranking import metric_key, standings
from judge.serve.model.contest import Contest
from judge.serve.model.records import Counted
from judge.serve.model.times import format_reltime, format_time

SCORE_DIGITS = 6


@dataclass(frozen=True)
class Attempt:
    submission_id: int
    team_id: str
    problem_id: str
    time_s: float
    result: SubmissionResult | None  # None: pending (not judged yet, or hidden by the freeze)


def attempts(counted: Sequence[Counted], *, frozen_from: float | None) -> list[Attempt]:
    """Every submission with its current finished judgement, in the order made. ``frozen_from``: results of
    submissions made from then on are hidden (pending)."""
    out = []
    for c in counted:
        s, j = c.submission, c.judgement
        result = None
        hidden = frozen_from is not None and s.time_s >= frozen_from
        if j is not None and j.verdict is not None and not hidden:
            result = SubmissionResult(
                problem=s.problem_id,
                source=f"submission {s.id}",
                language=s.language_id,
                verdict=Verdict(j.verdict),
                score=float(j.score or 0.0),
                max_score=float(j.max_score or 0.0),
                time_s=float(j.max_run_time or 0.0),
                memory_kib=int(j.memory_kib or 0),
                metric=j.metric,
                metric_name=j.metric_name,
            )
        out.append(Attempt(s.id, s.team_id, s.problem_id, s.time_s, result))
    return out


def build_board(contest: Contest, tries: Sequence[Attempt]) -> tuple[Board, dict[tuple[str, str], Attempt]]:
    """The Board of `judge grade` (contestants are team ids) and the attempt counting for each cell."""
    problems = tuple(board_problem(p.problem) for p in contest.problems)
    by_id = {bp.id: bp for bp in problems}
    best: dict[tuple[str, str], tuple[tuple[float, float, float], Attempt, BoardRun]] = {}
    for a in tries:
        if a.result is None or not a.result.verdict.charged or a.problem_id not in by_id:
            continue
        run = BoardRun(a.team_id, a.problem_id, a.result.source, a.result)
        key = (-round(a.result.score, SCORE_DIGITS), metric_key(by_id[a.problem_id], run), a.time_s)
        cell = (a.team_id, a.problem_id)
        if cell not in best or key < best[cell][0]:
            best[cell] = (key, a, run)
    board = Board(
        title=contest.info.name,
        problems=problems,
        contestants=tuple(t.id for t in contest.teams),
        runs={cell: run for cell, (_, _, run) in best.items()},
    )
    return board, {cell: a for cell, (_, a, _) in best.items()}


def scoreboard_rows(contest: Contest, tries: Sequence[Attempt], *, show_problems: bool) -> list[dict[str, Any]]:
    """The scoreboard's ranked rows (the part that depends on the judgements, not on the time of asking)."""
    info = contest.info
    board, counting = build_board(contest, tries)
    names = {t.id: t.name for t in contest.teams}
    by_cell: dict[tuple[str, str], list[Attempt]] = {}
    for a in tries:
        by_cell.setdefault((a.team_id, a.problem_id), []).append(a)
    rows = []
    for st in standings(board):
        team = st.contestant
        problems = []
        last_improvement: float | None = None
        for p in contest.problems:
            mine = by_cell.get((team, p.id), [])
            judged = [a for a in mine if a.result is not None and a.result.verdict.charged]
            pending = sum(1 for a in mine if a.result is None)
            best = counting.get((team, p.id))
            full = next((a for a in judged if a.result and a.result.score >= a.result.max_score - 1e-9), None)
            cell: dict[str, Any] = {
                "problem_id": p.id,
                "num_judged": len([a for a in judged if full is None or a.time_s <= full.time_s]),
                "num_pending": pending,
                "score": round(best.result.score, SCORE_DIGITS) if best and best.result else 0,
            }
            if best is not None and cell["score"] > 0:
                cell["time"] = format_reltime(info.contest_time_s(best.time_s))
                last_improvement = max(last_improvement or best.time_s, best.time_s)
            problems.append(cell)
        row: dict[str, Any] = {
            "rank": st.rank,
            "team_id": team,
            "score": {
                "score": st.total,
                "time": None if last_improvement is None else format_reltime(info.contest_time_s(last_improvement)),
            },
        }
        if show_problems:
            row["problems"] = problems
        rows.append(row)
    rows.sort(key=lambda r: (r["rank"], names.get(r["team_id"], "").casefold(), r["team_id"]))
    return rows


def scoreboard_json(
    contest: Contest, rows: Sequence[dict[str, Any]], state: dict[str, Any], now: float
) -> dict[str, Any]:
    return {
        "time": format_time(now),
        "contest_time": format_reltime(contest.info.contest_time_s(now)),
        "state": state,
        "rows": list(rows),
    }


# ------------------------------------------------------------------------------------------------ pass-fail


def passfail_tries(contest: Contest, tries: Sequence[Attempt]) -> list[Try]:
    """The attempts as the pass-fail ranking takes them: contest times (without the removed intervals), and
    what each verdict means."""
    return [
        Try(
            a.team_id,
            a.problem_id,
            contest.info.contest_time_s(a.time_s),
            None if a.result is None else outcome(a.result.verdict),
            a.submission_id,
        )
        for a in tries
    ]


def passfail_standings(contest: Contest, tries: Sequence[Attempt], eligible: Sequence[str]) -> Standings:
    """``contest``'s teams ranked the ICPC way; first to solve among the ``eligible`` teams' attempts (the
    whole contest's, also on a group's board)."""
    teams = [Team(t.id, t.name) for t in contest.teams]
    problems = [p.id for p in contest.problems]
    return rank(problems, teams, passfail_tries(contest, tries), contest.info.penalty_s, eligible=eligible)


def _cell_json(c: Cell) -> dict[str, Any]:
    out: dict[str, Any] = {
        "problem_id": c.problem_id,
        "num_judged": c.num_judged,
        "num_pending": c.num_pending,
        "solved": c.solved,
    }
    if c.time_s is not None:
        out["time"] = format_reltime(c.time_s)
    return out


def passfail_rows(st: Standings, *, show_problems: bool) -> list[dict[str, Any]]:
    """The spec's scoreboard rows of a pass-fail contest (``score.time``: the last solve, null without one)."""
    rows = []
    for row in st.rows:
        out: dict[str, Any] = {
            "rank": row.rank,
            "team_id": row.team_id,
            "score": {
                "num_solved": row.num_solved,
                "total_time": format_reltime(row.total_time_s),
                "time": None if row.last_solve_s is None else format_reltime(row.last_solve_s),
            },
        }
        if show_problems:
            out["problems"] = [_cell_json(c) for c in row.cells]
        rows.append(out)
    return rows
