"""The awards a pass-fail board decides, as the CCS specs' Award object names them (JSON_Format.md, "Known
awards"). Pure: `judge serve`'s awards endpoint, its contest package and its resolver page all take them
from here, from the standings of scoreboard/passfail.py.

- ``winner``: the team(s) ranked first, once some team has solved a problem (empty before).
- ``gold-medal``, ``silver-medal``, ``bronze-medal``: from contest.yaml's ``medals: {gold: 4, silver: 4,
  bronze: 4}`` (none of them when absent; a colour with 0 is not listed). A team whose rank is at most the
  gold count gets gold, at most gold + silver silver, at most gold + silver + bronze bronze: teams that
  tie at a boundary share a rank, so all of them get the better medal (and the next colour is not made
  smaller for it: DOMjudge's rule). Only teams that solved something get a medal.
- ``first-to-solve-<problem id>``: passfail.first_to_solve (empty while nobody is known to be first).
- ``group-winner-<group id>``: the best-ranked team(s) of the group that solved something.

Awards are listed in that order: winner, medals, first to solve (problem order), group winners.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from judge.scoreboard.passfail import Row, Standings

MEDAL_COLOURS = ("gold", "silver", "bronze")


@dataclass(frozen=True)
class Medals:
    """How many medals of each colour (contest.yaml's ``medals``); all 0: no medal awards."""

    gold: int = 0
    silver: int = 0
    bronze: int = 0

    def counts(self) -> tuple[tuple[str, int], ...]:
        return (("gold", self.gold), ("silver", self.silver), ("bronze", self.bronze))


@dataclass(frozen=True)
class AwardGroup:
    """A group whose winner is awarded: its id, its name (for the citation), its teams."""

    id: str
    name: str
    team_ids: Collection[str]


@dataclass(frozen=True)
class Problem:
    id: str
    label: str


@dataclass(frozen=True)
class Award:
    id: str
    citation: str
    team_ids: tuple[str, ...] | None  # None: the spec's "not being updated" (only an admin's award)

    def json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "citation": self.citation,
            "team_ids": None if self.team_ids is None else list(self.team_ids),
        }


def _scored(rows: Sequence[Row]) -> list[Row]:
    return [r for r in rows if r.num_solved > 0]


def winner(st: Standings) -> Award:
    rows = _scored(st.rows)
    best = min((r.rank for r in rows), default=None)
    return Award("winner", "Contest winner", tuple(r.team_id for r in rows if r.rank == best))


def medal_awards(st: Standings, medals: Medals) -> list[Award]:
    """A team ranked within the first ``gold`` places gets gold, and so on: ties at a boundary all get the
    better medal."""
    rows = _scored(st.rows)
    out, below, upto = [], 0, 0
    for colour, count in medals.counts():
        upto += count
        if count > 0:
            teams = tuple(r.team_id for r in rows if below < r.rank <= upto)
            out.append(Award(f"{colour}-medal", f"{colour.capitalize()} medal winner", teams))
        below = max([below, *(r.rank for r in rows if r.rank <= upto)])
    return out


def first_to_solve_awards(st: Standings, problems: Sequence[Problem]) -> list[Award]:
    return [
        Award(f"first-to-solve-{p.id}", f"First to solve problem {p.label}", tuple(st.first_to_solve.get(p.id, ())))
        for p in problems
    ]


def group_winners(st: Standings, groups: Sequence[AwardGroup]) -> list[Award]:
    out = []
    for g in groups:
        mine = [r for r in _scored(st.rows) if r.team_id in g.team_ids]
        best = min((r.rank for r in mine), default=None)
        out.append(
            Award(f"group-winner-{g.id}", f"Winner of {g.name}", tuple(r.team_id for r in mine if r.rank == best))
        )
    return out


def awards(
    st: Standings, problems: Sequence[Problem], medals: Medals = Medals(), groups: Sequence[AwardGroup] = ()
) -> list[Award]:
    """Every award the standings decide, in the module's order."""
    return [winner(st), *medal_awards(st, medals), *first_to_solve_awards(st, problems), *group_winners(st, groups)]


def merged(computed: Sequence[Award], edits: Sequence[tuple[str, Award | None]]) -> list[Award]:
    """The computed awards with an admin's edits applied, in the order they were made: ``(id, award)``
    replaces (or adds) the award ``id``; ``(id, None)`` removes it. An edited award stays as the admin left
    it whatever the board does afterwards."""
    out = {a.id: a for a in computed}
    for award_id, award in edits:
        if award is None:
            out.pop(award_id, None)
        else:
            out[award_id] = award
    return list(out.values())
