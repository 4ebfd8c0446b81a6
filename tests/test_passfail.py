"""The ICPC pass-fail ranking (judge/scoreboard/passfail.py), pure: hand-computed standings, and
Hypothesis properties (a team's own result depends on its own judged submissions only)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.judging.verdict import Verdict
from judge.scoreboard.passfail import Cell, Outcome, Row, Team, Try, first_to_solve, outcome, rank

S, R, F = Outcome.SOLVED, Outcome.REJECTED, Outcome.FREE
PROBLEMS = ("A", "B", "C")
TEAMS = tuple(
    Team(f"t{i}", name)
    for i, name in enumerate(("Ada", "Babbage", "Curry", "Dijkstra", "Euler", "Fermat", "Gauss"), start=1)
)


def tries() -> list[Try]:
    """A small contest (times in seconds of contest time; penalty 20 minutes)."""
    return [
        # Ada: A rejected at 10:00, solved at 25:30 (minute 25 + 20 = 45); a WA after it does not count.
        #      B: a compile error costs nothing, solved at 40:59 (minute 40). 2 solved, 85 min, last 40.
        Try("t1", "A", 600, R, 1),
        Try("t1", "A", 1530, S, 2),
        Try("t1", "A", 2000, R, 3),
        Try("t1", "B", 300, F, 4),
        Try("t1", "B", 2459, S, 5),
        # Babbage: A after a judge error (free) at minute 45; B at minute 40. 2 solved, 85 min, last 45.
        Try("t2", "A", 1000, F, 6),
        Try("t2", "A", 2700, S, 7),
        Try("t2", "B", 2400, S, 8),
        # Curry: A at minute 20 (first to solve A); B after two rejections at minute 25 (25 + 40 = 65, the
        # first to solve B). 2 solved, 85 min, last 25: first of the three with 2 solved and 85 min.
        Try("t3", "A", 1200, S, 9),
        Try("t3", "B", 600, R, 10),
        Try("t3", "B", 900, R, 11),
        Try("t3", "B", 1500, S, 12),
        # Dijkstra and Euler: C at minute 30 each, nothing else: a true tie (Dijkstra was first, to the second)
        Try("t4", "C", 1810, S, 13),
        Try("t5", "C", 1830, S, 14),
        # Fermat: one submission on C, not judged yet; Gauss: nothing. They tie with 0 solved.
        Try("t6", "C", 3000, None, 15),
    ]


def row(st_rows: tuple[Row, ...], team: str) -> Row:
    return next(r for r in st_rows if r.team_id == team)


def test_a_hand_computed_contest() -> None:
    standings = rank(PROBLEMS, TEAMS, tries(), 20 * 60)
    got = [(r.rank, r.team_id, r.num_solved, r.total_time_s / 60, r.last_solve_s) for r in standings.rows]
    assert got == [
        (1, "t3", 2, 85, 25 * 60),  # ties on solved and time are broken by the last solve
        (2, "t1", 2, 85, 40 * 60),
        (3, "t2", 2, 85, 45 * 60),
        (4, "t4", 1, 30, 30 * 60),  # a true tie shares the rank, listed by name
        (4, "t5", 1, 30, 30 * 60),
        (6, "t6", 0, 0, None),
        (6, "t7", 0, 0, None),
    ]
    ada = row(standings.rows, "t1")
    assert ada.cells == (
        Cell("A", num_judged=2, num_pending=0, solved=True, time_s=25 * 60, penalty_s=45 * 60),
        Cell("B", num_judged=1, num_pending=0, solved=True, time_s=40 * 60, penalty_s=40 * 60),  # CE: no try
        Cell("C", num_judged=0, num_pending=0, solved=False, time_s=None, penalty_s=0),
    )
    curry = row(standings.rows, "t3")
    assert [(c.num_judged, c.penalty_s / 60, c.first) for c in curry.cells] == [
        (1, 20, True),
        (3, 65, True),
        (0, 0, False),
    ]
    assert row(standings.rows, "t2").cells[0] == Cell("A", 1, 0, True, 45 * 60, 45 * 60)  # JE: no try
    assert row(standings.rows, "t6").cells[2] == Cell("C", 0, 1, False, None, 0)
    assert dict(standings.first_to_solve) == {"A": ("t3",), "B": ("t3",), "C": ("t4",)}
    assert [c.first for c in row(standings.rows, "t5").cells] == [False, False, False]


def test_the_verdicts_outcomes() -> None:
    assert outcome(Verdict.AC) is S
    assert {v for v in Verdict if outcome(v) is F} == {Verdict.CE, Verdict.JE}
    assert {v for v in Verdict if outcome(v) is R} == {
        Verdict.WA,
        Verdict.TLE,
        Verdict.MLE,
        Verdict.RTE,
        Verdict.OLE,
        Verdict.PV,
    }


def test_first_to_solve_waits_for_an_earlier_pending_submission() -> None:
    pending_first = [Try("t1", "A", 100, None, 1), Try("t2", "A", 200, S, 2)]
    assert first_to_solve(["A"], pending_first) == {"A": ()}  # t1's might be accepted
    judged = [replace(pending_first[0], outcome=R), pending_first[1]]
    assert first_to_solve(["A"], judged) == {"A": ("t2",)}
    same_second = [Try("t1", "A", 200, S, 1), Try("t2", "A", 200, S, 2)]
    assert first_to_solve(["A"], same_second) == {"A": ("t1", "t2")}
    assert first_to_solve(["A", "B"], []) == {"A": (), "B": ()}


def test_pending_before_a_solve_is_pending_and_after_it_nothing() -> None:
    mine = [
        Try("t1", "A", 60, None, 1),
        Try("t1", "A", 120, R, 2),
        Try("t1", "A", 180, S, 3),
        Try("t1", "A", 240, None, 4),
    ]
    (only,) = rank(["A"], [Team("t1", "T")], mine, 1200).rows
    assert only.cells[0] == Cell("A", 2, 1, True, 180, 180 + 1200, first=False)  # t1's own pending try at 60
    assert only.total_time_s == 1380


def test_a_penalty_of_seconds_and_a_solve_at_minute_zero() -> None:
    mine = [Try("t1", "A", 59.9, S, 1), Try("t1", "B", 30, R, 2), Try("t1", "B", 61, S, 3)]
    (only,) = rank(["A", "B"], [Team("t1", "T")], mine, 30).rows
    assert [c.time_s for c in only.cells] == [0, 60]
    assert only.total_time_s == 0 + 60 + 30 and only.last_solve_s == 60


# --------------------------------------------------------------------------------------------- properties

team_ids = st.sampled_from(["t1", "t2", "t3", "t4"])
a_try = st.builds(
    Try,
    team_id=team_ids,
    problem_id=st.sampled_from(PROBLEMS),
    time_s=st.integers(0, 5 * 3600).map(float),
    outcome=st.sampled_from([S, R, F, None]),
    order=st.integers(0, 10_000),
)
FOUR = tuple(Team(f"t{i}", f"Team {5 - i}") for i in range(1, 5))


def own(r: Row) -> tuple[object, ...]:
    """A row without what depends on other teams: its rank and the first-to-solve marks."""
    return (r.team_id, r.num_solved, r.total_time_s, r.last_solve_s, tuple(replace(c, first=False) for c in r.cells))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(a_try, max_size=40, unique_by=lambda t: t.order),
    st.randoms(use_true_random=False),
    st.lists(a_try, max_size=15, unique_by=lambda t: t.order),
)
def test_a_teams_result_depends_only_on_its_own_submissions(tries: list[Try], rnd, more: list[Try]) -> None:  # type: ignore[no-untyped-def]
    # ``order`` is the submission's id: unique (two tries at the same second are told apart by it)
    more = [t for t in more if t.order not in {u.order for u in tries}]
    before = {r.team_id: own(r) for r in rank(PROBLEMS, FOUR, tries, 1200).rows}
    shuffled = list(tries)
    rnd.shuffle(shuffled)
    assert {r.team_id: own(r) for r in rank(PROBLEMS, FOUR, shuffled, 1200).rows} == before
    for team in ("t1", "t2"):
        others = [t for t in more if t.team_id != team]
        after = {r.team_id: own(r) for r in rank(PROBLEMS, FOUR, tries + others, 1200).rows}
        assert after[team] == before[team]


@settings(max_examples=200, deadline=None)
@given(st.lists(a_try, max_size=40))
def test_ranks_follow_solved_then_time_then_last_solve(tries: list[Try]) -> None:
    rows = rank(PROBLEMS, FOUR, tries, 1200).rows
    keys = [(-r.num_solved, r.total_time_s, r.last_solve_s or 0.0) for r in rows]
    assert keys == sorted(keys)
    for i, r in enumerate(rows):
        assert r.rank == (rows[i - 1].rank if i and keys[i] == keys[i - 1] else i + 1)
        assert r.num_solved == sum(c.solved for c in r.cells)
        assert r.total_time_s == sum(c.penalty_s for c in r.cells)
    firsts = {pid: teams for pid, teams in rank(PROBLEMS, FOUR, tries, 1200).first_to_solve.items() if teams}
    for pid, teams in firsts.items():  # a first solver solved it, at the earliest solve time of the problem
        solved = [t for t in tries if t.problem_id == pid and t.outcome is S]
        assert {t.team_id for t in solved if t.time_s == min(u.time_s for u in solved)} == set(teams)
