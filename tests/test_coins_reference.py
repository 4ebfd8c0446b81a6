"""Properties of ``reference.coins``: the moves, the breadth-first search, the clamped-game proof."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import coins

starts = st.text(alphabet=coins.FACES, min_size=coins.MIN_COINS, max_size=coins.MAX_COINS)
small_starts = st.text(alphabet=coins.FACES, min_size=coins.MIN_COINS, max_size=6)


def slow_successors(row: str) -> set[str]:
    """The rules, written again with coins as a dict cell -> face (an independent oracle)."""
    cells = {x: face for x, face in enumerate(row) if face != coins.EMPTY}
    out: set[str] = set()
    for x in cells:
        if x + 1 not in cells or cells[x] == cells[x + 1]:
            continue
        for step in (-1, 1):
            near = x - 1 if step == -1 else x + 2  # the cell next to the pair on that side
            if near not in cells:
                continue
            while near in cells:
                near += step  # first empty cell beyond the block
            land = (near, near + 1) if step == 1 else (near - 1, near)
            if any(c in cells for c in land):
                continue
            moved = {c: f for c, f in cells.items() if c not in (x, x + 1)}
            moved[land[0]], moved[land[1]] = cells[x], cells[x + 1]
            lo, hi = min(moved), max(moved)
            out.add("".join(moved.get(c, coins.EMPTY) for c in range(lo, hi + 1)))
    return out


@st.composite
def walks(draw: st.DrawFn, max_steps: int = 30) -> list[str]:
    """A start and the rows of a random sequence of legal moves from it."""
    path = [draw(starts)]
    for choice in draw(st.lists(st.integers(0, 1000), max_size=max_steps)):
        options = coins.successors(path[-1])
        if not options:
            break
        path.append(options[choice % len(options)])
    return path


def test_the_seeds_puzzle_takes_five_moves() -> None:
    path = coins.solve("ABABA")
    assert path is not None and len(path) - 1 == 5
    assert path[-1] in ("AAABB", "BBAAA")
    # the seed's program finds this same sequence (its output, read bottom-up)
    assert path == ["ABABA", "ABAAB", "AABAB", "A..ABAB", "ABAA..B", "AAABB"]


def test_the_statements_move_table() -> None:
    moves = [(m.first, m.step, after) for m, after in coins.moves("ABAA..B")]
    assert moves == [(0, 1, "AAABB"), (1, -1, "BAA..A..B"), (1, 1, "A..ABAB")]


def test_goals() -> None:
    assert all(coins.is_goal(r) for r in ["AB", "AAABB", "BBAAA", "AAAA", "B"])
    assert not any(coins.is_goal(r) for r in ["ABA", "AA..BB", "ABAB", "BAB"])


def test_a_pair_never_lands_on_a_coin() -> None:
    # only possible in rows with an odd gap, which no game from a gapless start reaches
    assert coins.apply("A.BAB", coins.Move(3, -1)) is None
    assert coins.apply("BAB.A", coins.Move(0, 1)) is None


@settings(max_examples=150, deadline=None)
@given(walks())
def test_moves_agree_with_an_independent_oracle(path: list[str]) -> None:
    for row in path:
        assert set(coins.successors(row)) == slow_successors(row)


@settings(max_examples=150, deadline=None)
@given(walks())
def test_moves_keep_the_coins_and_even_gaps_and_can_be_undone(path: list[str]) -> None:
    faces = sorted(path[0])
    assert coins.gap_sizes_stay_even(path)
    for before, after in itertools.pairwise(path):
        assert sorted(after.replace(coins.EMPTY, "")) == faces
        assert after == coins.trim(after)
        assert coins.is_move(before, after) and coins.is_move(after, before)


@settings(max_examples=60, deadline=None)
@given(starts)
def test_search_is_shortest_and_symmetric(start: str) -> None:
    try:
        path, _ = coins.search(start, 20_000)
    except coins.Undecided:
        return
    swapped = start.translate(str.maketrans("AB", "BA"))
    for image in (start[::-1], swapped):
        other, _ = coins.search(image, 200_000)
        assert (other is None) == (path is None)
        if path is not None and other is not None:
            assert len(other) == len(path)
    if path is None:
        return
    assert path[0] == start and coins.is_goal(path[-1])
    assert all(coins.is_move(a, b) for a, b in itertools.pairwise(path))
    # Bellman: one move changes the distance to a goal by at most one, and some move lowers it
    optimum = len(path) - 1
    if optimum > 0:
        assert any(len(coins.solve(after) or []) - 1 == optimum - 1 for after in coins.successors(start))


@settings(max_examples=40, deadline=None)
@given(small_starts)
def test_no_shorter_sequence_exists_by_exhaustive_enumeration(start: str) -> None:
    """Depth-first enumeration of every move sequence shorter than the optimum (small starts only)."""
    try:
        path, _ = coins.search(start, 50_000)
    except coins.Undecided:  # walks away forever: then there is no goal within 7 moves either
        path = None
    limit = 7 if path is None else len(path) - 2

    def reaches_goal(row: str, depth: int) -> bool:
        return coins.is_goal(row) or (depth > 0 and any(reaches_goal(r, depth - 1) for r in coins.successors(row)))

    if limit >= 0:
        assert not reaches_goal(start, limit)


@settings(max_examples=60, deadline=None)
@given(walks(max_steps=25), st.sampled_from([(4, 2), (4, 4), (6, 4), (4, 12)]))
def test_clamped_game_covers_every_real_move(path: list[str], clamp: tuple[int, int]) -> None:
    cap, period = clamp
    for before, after in itertools.pairwise(path):
        abstract_before = coins.clamp_gaps(before, cap, period)
        assert coins.clamp_gaps(after, cap, period) in coins.abstract_successors(abstract_before, cap, period)


@pytest.mark.parametrize("start", ["ABAB", "ABBA", "AABAA", "AAABAA", "AAAABAAA", "AAAAAABAA"])
def test_impossible_starts_are_exhausted(start: str) -> None:
    outcome = coins.classify(start)
    assert outcome.kind is coins.Kind.IMPOSSIBLE_EXHAUSTED and outcome.rows_stored <= 300


@pytest.mark.parametrize("start", ["AABBA", "ABBBA", "AABBAA", "AAAABBA"])
def test_walking_starts_are_proved_impossible_by_the_clamped_game(start: str) -> None:
    with pytest.raises(coins.Undecided):
        coins.search(start, 3_000)
    assert coins.classify(start).kind is coins.Kind.IMPOSSIBLE_NOT_EXHAUSTED
    # without the period, the clamped game finds a goal that does not exist
    assert not coins.goal_unreachable_in_clamped_game(start, 4, 2)


def test_formats() -> None:
    assert coins.parse_input(b"ABABA\n") == "ABABA"
    with pytest.raises(ValueError):
        coins.parse_input(b"AB.A\n")
    assert coins.format_answer(None) == b"impossible\n"
    assert coins.format_answer(["BAB", "BBA"]) == b"BAB\nBBA\n"
