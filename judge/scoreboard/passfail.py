"""ICPC pass-fail standings, as the ICPC World Finals rules and the CCS specs' scoreboard say. Pure: one
module that `judge serve` (its API, pages, awards and contest package) and `judge grade --scoreboard
pass-fail` all rank with.

- A problem is solved at the contest time of its team's first accepted submission, in whole minutes
  (truncated). Submissions after that one do not count.
- Each earlier rejected submission whose judgement type has ``penalty`` costs ``penalty_s``; a compile
  error and a judge error (``Outcome.FREE``) cost nothing and are not counted as tries (DOMjudge's
  default, ``compile_penalty: false``). An unsolved problem costs nothing.
- Teams are ranked by problems solved (more first), then total time (solve minutes plus penalties; less
  first), then the minute of their last solve (earlier first). Teams equal in all three share a rank and
  are listed by name.
- A submission not judged yet, or whose result the viewer may not see (the freeze), is pending: counted
  in ``num_pending``, never as a try or a solve.
- First to solve a problem: the team(s) whose accepted submission is the earliest of the problem's, once
  no earlier submission of any team is still pending (the spec's award ``first-to-solve-<id>``). Kept
  here, in ``first_to_solve``, for the board's cells and the awards alike.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from judge.judging.verdict import Verdict

DEFAULT_PENALTY_S = 20 * 60.0  # the ICPC's 20 minutes per rejected submission


class ScoreboardType(StrEnum):
    """The spec's ``scoreboard_type``."""

    PASS_FAIL = "pass-fail"
    SCORE = "score"


class Outcome(StrEnum):
    """What a judged submission means on a pass-fail board."""

    SOLVED = "solved"  # judgement type with ``solved``: AC
    REJECTED = "rejected"  # with ``penalty``: a try that costs penalty time (WA, TLE, RTE, MLE, OLE, PV)
    FREE = "free"  # neither: costs nothing, is not a try (CE, JE)


def outcome(verdict: Verdict) -> Outcome:
    """The one place that says which verdicts solve, which cost penalty time and which cost nothing (the
    judgement types' ``solved`` and ``penalty`` flags are made from it)."""
    if verdict is Verdict.AC:
        return Outcome.SOLVED
    if verdict in (Verdict.CE, Verdict.JE):
        return Outcome.FREE
    return Outcome.REJECTED


@dataclass(frozen=True)
class Try:
    """One submission as the board sees it."""

    team_id: str
    problem_id: str
    time_s: float  # contest time: seconds since the start
    outcome: Outcome | None  # None: pending (not judged yet, or hidden from this viewer by the freeze)
    order: int = 0  # among submissions made at the same time_s: the earlier first (a submission id)


@dataclass(frozen=True)
class Team:
    id: str
    name: str


@dataclass(frozen=True)
class Cell:
    """One team's result on one problem (the spec's problem data object)."""

    problem_id: str
    num_judged: int  # tries up to and including the first solve
    num_pending: int  # pending submissions before the first solve (all of them when unsolved)
    solved: bool
    time_s: float | None  # the solve time in whole minutes (as seconds); None: unsolved
    penalty_s: float  # time_s + penalty_s per rejected try before it; 0 when unsolved
    first: bool = False  # this team is (one of) the first to solve the problem


@dataclass(frozen=True)
class Row:
    rank: int
    team_id: str
    num_solved: int
    total_time_s: float
    last_solve_s: float | None  # the latest solve time (whole minutes); None: nothing solved
    cells: tuple[Cell, ...]  # one per problem, in the order given


@dataclass(frozen=True)
class Standings:
    rows: tuple[Row, ...]  # by rank, then team name
    first_to_solve: Mapping[str, tuple[str, ...]]  # problem id -> the first solvers' team ids (empty: none yet)


def whole_minutes(time_s: float) -> float:
    """A contest time truncated to whole minutes, in seconds (the ICPC rules count minutes)."""
    return math.floor(time_s / 60.0) * 60.0


def _ordered(tries: Iterable[Try]) -> list[Try]:
    return sorted(tries, key=lambda t: (t.time_s, t.order))


def first_to_solve(problem_ids: Iterable[str], tries: Iterable[Try]) -> dict[str, tuple[str, ...]]:
    """For each problem, the team(s) that solved it first: the earliest accepted submission (to the
    second; teams at the very same time share it), provided no submission made before it is pending.
    Empty while there is none, or while an earlier submission waits (it might be the first)."""
    by_problem: dict[str, list[Try]] = {p: [] for p in problem_ids}
    for t in tries:
        if t.problem_id in by_problem:
            by_problem[t.problem_id].append(t)
    out: dict[str, tuple[str, ...]] = {}
    for pid, mine in by_problem.items():
        out[pid] = ()
        ordered = _ordered(mine)
        for t in ordered:
            if t.outcome is None:
                break  # an earlier submission is not known yet
            if t.outcome is Outcome.SOLVED:
                same = {u.team_id for u in ordered if u.time_s == t.time_s and u.outcome is Outcome.SOLVED}
                out[pid] = tuple(sorted(same))
                break
    return out


def cell(problem_id: str, tries: Sequence[Try], penalty_s: float, first: bool = False) -> Cell:
    """One team's cell from its tries on the problem (any order)."""
    judged = pending = 0
    for t in _ordered(tries):
        if t.outcome is None:
            pending += 1
        elif t.outcome is Outcome.REJECTED:
            judged += 1
        elif t.outcome is Outcome.SOLVED:
            minute = whole_minutes(t.time_s)
            return Cell(problem_id, judged + 1, pending, True, minute, minute + penalty_s * judged, first)
    return Cell(problem_id, judged, pending, False, None, 0.0)


def _row_key(cells: Sequence[Cell]) -> tuple[int, float, float]:
    solved = [c for c in cells if c.solved]
    last = max((c.time_s or 0.0 for c in solved), default=0.0)
    return (-len(solved), sum(c.penalty_s for c in solved), last)


def rank(
    problem_ids: Sequence[str],
    teams: Sequence[Team],
    tries: Iterable[Try],
    penalty_s: float = DEFAULT_PENALTY_S,
    *,
    eligible: Collection[str] | None = None,
) -> Standings:
    """The standings of ``teams`` on ``problem_ids`` (in that order) from ``tries`` (of any team, in any
    order: a team's row depends on its own tries only). First to solve is decided among the tries of
    ``eligible`` teams (None: ``teams``; a group's board marks the contest's first solvers)."""
    everyone = set(eligible) if eligible is not None else {t.id for t in teams}
    tries = [t for t in tries if t.team_id in everyone]
    first = first_to_solve(problem_ids, tries)
    mine: dict[tuple[str, str], list[Try]] = {}
    for t in tries:
        mine.setdefault((t.team_id, t.problem_id), []).append(t)
    unranked = []
    for team in teams:
        cells = tuple(cell(pid, mine.get((team.id, pid), []), penalty_s, team.id in first[pid]) for pid in problem_ids)
        unranked.append((_row_key(cells), team, cells))
    unranked.sort(key=lambda r: (r[0], r[1].name.casefold(), r[1].name, r[1].id))
    rows: list[Row] = []
    for i, (key, team, cells) in enumerate(unranked):
        place = rows[-1].rank if rows and unranked[i - 1][0] == key else i + 1
        solved = [c for c in cells if c.solved]
        last = max((c.time_s for c in solved if c.time_s is not None), default=None)
        rows.append(Row(place, team.id, len(solved), key[1], last, cells))
    return Standings(tuple(rows), first)
