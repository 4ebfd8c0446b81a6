"""The resolver's steps for an awards ceremony (the ICPC Resolver's way), pure: from the frozen board to
the final one, revealing the submissions hidden by the freeze one team and problem at a time.

The cursor starts at the bottom row. While the team on the cursor's row has a problem with hidden
submissions, the first such problem (in problem order) is revealed (all its hidden submissions of that
team at once) and the board is ranked again (the team may rise above the cursor; a team that drops to
the cursor's row is looked at next). When the team on the cursor's row has nothing hidden left, its place
is final: if it holds awards, a step shows their citations; the cursor moves up one row. Every board is
ranked by passfail.rank, the same function as the live scoreboard's, so the last step's board is the
thawed scoreboard exactly (tests/test_resolver.py checks it).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from judge.scoreboard.passfail import DEFAULT_PENALTY_S, Standings, Team, Try, rank


@dataclass(frozen=True)
class Step:
    standings: Standings
    focus: str | None = None  # the team looked at
    revealed: str | None = None  # the problem just revealed
    citations: tuple[str, ...] = ()  # the focused team's awards, shown (its place is final)


@dataclass(frozen=True)
class Ceremony:
    """What the resolver reveals: the tries (with their true outcomes), which of them the freeze hides
    (their index in ``tries``), and each team's award citations (the final awards)."""

    problem_ids: Sequence[str]
    teams: Sequence[Team]
    tries: Sequence[Try]
    hidden: Collection[int]
    citations: Mapping[str, Sequence[str]]
    penalty_s: float = DEFAULT_PENALTY_S


def _shown(c: Ceremony, hidden: Collection[int]) -> list[Try]:
    return [replace(t, outcome=None) if i in hidden else t for i, t in enumerate(c.tries)]


def _board(c: Ceremony, hidden: Collection[int]) -> Standings:
    return rank(c.problem_ids, c.teams, _shown(c, hidden), c.penalty_s)


def _first_hidden(c: Ceremony, hidden: Collection[int], team_id: str) -> str | None:
    mine = {c.tries[i].problem_id for i in hidden if c.tries[i].team_id == team_id}
    return next((p for p in c.problem_ids if p in mine), None)


def steps(c: Ceremony) -> list[Step]:
    """Every step, the frozen board first and the final board last."""
    hidden = {i for i in c.hidden if c.tries[i].outcome is not None}  # a try not judged stays pending
    board = _board(c, hidden)
    out = [Step(board)]
    row = len(board.rows) - 1
    while row >= 0:
        team = board.rows[row].team_id
        problem = _first_hidden(c, hidden, team)
        if problem is not None:
            hidden -= {i for i in hidden if c.tries[i].team_id == team and c.tries[i].problem_id == problem}
            board = _board(c, hidden)
            out.append(Step(board, focus=team, revealed=problem))
            continue
        if c.citations.get(team):
            out.append(Step(board, focus=team, citations=tuple(c.citations[team])))
        row -= 1
    return out
