"""The awards a pass-fail board decides (judge/scoreboard/awards.py), for hand-computed standings: the
winner, medals with ties at a boundary (both teams get the better medal), no solves (empty lists), group
winners, an admin's edits kept over the computed ones; and a property: medals never go to a team that
solved nothing, and a better-ranked team never gets a worse medal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from judge.scoreboard.awards import Award, AwardGroup, Medals, Problem, awards, medal_awards, merged
from judge.scoreboard.passfail import Outcome, Team, Try, rank

MIN = 60.0
PROBLEMS = [Problem("a", "A"), Problem("b", "B")]
TEAMS = [Team(f"t{i}", f"Team {i}") for i in range(1, 7)]


def solved(team: str, problem: str, minute: float) -> Try:
    return Try(team, problem, minute * MIN, Outcome.SOLVED)


def by_id(found: list[Award]) -> dict[str, list[str] | None]:
    return {a.id: None if a.team_ids is None else list(a.team_ids) for a in found}


# t1: A at 10, B at 20 (2 solved, 30)    rank 1
# t2: A at 15, B at 15 (2 solved, 30, last 15: before t1)  -> t2 rank 1, t1 rank 2
# t3 and t4: A at 30 each (1 solved, 30; same last solve): tied at rank 3
# t5: A at 40                           rank 5
# t6: nothing                           rank 6
TRIES = [
    solved("t1", "a", 10),
    solved("t1", "b", 20),
    solved("t2", "a", 15),
    solved("t2", "b", 15),
    solved("t3", "a", 30),
    solved("t4", "a", 30),
    solved("t5", "a", 40),
]


def test_hand_computed_awards_with_a_tie_at_the_silver_boundary() -> None:
    standings = rank(["a", "b"], TEAMS, TRIES)
    assert [(r.rank, r.team_id) for r in standings.rows] == [
        (1, "t2"),
        (2, "t1"),
        (3, "t3"),
        (3, "t4"),
        (5, "t5"),
        (6, "t6"),
    ]
    groups = [AwardGroup("north", "North", {"t1", "t3", "t6"}), AwardGroup("south", "South", {"t4", "t5"})]
    found = awards(standings, PROBLEMS, Medals(gold=1, silver=2, bronze=2), groups)
    assert by_id(found) == {
        "winner": ["t2"],
        "gold-medal": ["t2"],
        "silver-medal": ["t1", "t3", "t4"],  # ranks 2, 3, 3: the tie at place 3 gets silver both
        "bronze-medal": ["t5"],  # place 5 is within 1 + 2 + 2; t6 solved nothing: no medal
        "first-to-solve-a": ["t1"],
        "first-to-solve-b": ["t2"],
        "group-winner-north": ["t1"],
        "group-winner-south": ["t4"],
    }
    assert [a.citation for a in found][:2] == ["Contest winner", "Gold medal winner"]


def test_a_tie_at_the_gold_boundary_gives_both_gold() -> None:
    tied = [solved("t1", "a", 10), solved("t2", "a", 10), solved("t3", "a", 20)]
    standings = rank(["a"], TEAMS[:3], tied)
    found = by_id(medal_awards(standings, Medals(gold=1, silver=1)))
    assert found == {"gold-medal": ["t1", "t2"], "silver-medal": []}  # both rank 1; t3 is third: no silver
    assert by_id(awards(standings, PROBLEMS[:1]))["winner"] == ["t1", "t2"]


def test_no_solves_gives_empty_lists_and_no_medals_when_none_configured() -> None:
    standings = rank(["a", "b"], TEAMS, [Try("t1", "a", 5 * MIN, Outcome.REJECTED)])
    found = awards(standings, PROBLEMS, Medals(gold=4, silver=4, bronze=4), [AwardGroup("g", "G", {"t1"})])
    assert by_id(found) == {
        "winner": [],
        "gold-medal": [],
        "silver-medal": [],
        "bronze-medal": [],
        "first-to-solve-a": [],
        "first-to-solve-b": [],
        "group-winner-g": [],
    }
    assert [a.id for a in awards(standings, PROBLEMS)] == ["winner", "first-to-solve-a", "first-to-solve-b"]


def test_an_admins_edits_replace_add_and_remove() -> None:
    computed = awards(rank(["a", "b"], TEAMS, TRIES), PROBLEMS)
    edits = [
        ("winner", Award("winner", "Champions", ("t1",))),
        ("newcomer", Award("newcomer", "Best newcomer", ("t6",))),
        ("first-to-solve-b", None),
    ]
    assert by_id(merged(computed, edits)) == {
        "winner": ["t1"],
        "first-to-solve-a": ["t1"],
        "newcomer": ["t6"],
    }


COLOURS = {"gold-medal": 0, "silver-medal": 1, "bronze-medal": 2}


@given(
    st.lists(st.tuples(st.integers(1, 6), st.sampled_from(["a", "b"]), st.integers(0, 300)), max_size=12),
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
)
def test_medals_follow_the_ranking(solves: list[tuple[int, str, int]], counts: tuple[int, int, int]) -> None:
    standings = rank(["a", "b"], TEAMS, [solved(f"t{t}", p, m) for t, p, m in solves])
    medal = {}
    for award in medal_awards(standings, Medals(*counts)):
        for team in award.team_ids or ():
            assert team not in medal  # one medal each
            medal[team] = COLOURS[award.id]
    rows = {r.team_id: r for r in standings.rows}
    for team, colour in medal.items():
        assert rows[team].num_solved > 0
        assert rows[team].rank <= sum(counts[: colour + 1])
    for better in standings.rows:
        for worse in standings.rows:
            if better.rank < worse.rank and worse.team_id in medal:
                assert better.num_solved == 0 or medal.get(better.team_id, 3) <= medal[worse.team_id]
