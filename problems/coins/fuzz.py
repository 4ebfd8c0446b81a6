"""``judge fuzz`` hooks for problem ``coins``: Hypothesis strategies for start rows, and their answers.

Biased towards solvable starts: moves can be undone (a pair that jumped over a block can jump back), so
every row reachable from a goal can reach a goal. Most examples are gapless rows found by a
breadth-first search from a goal; the rest are rows with one odd coin (``AAABAA``: where the impossible
starts are) and uniform random rows. Starts that the reference cannot decide quickly (most of them have
no reachable goal but infinitely many reachable rows, which the statement excludes) are filtered out.
"""

from __future__ import annotations

from hypothesis import strategies as st

from reference import coins

FUZZ_ROWS = 20_000  # a start must be decided within this many rows (keeps the filter cheap)
NEAR_GOAL_ROWS = 3_000  # how far from a goal reached_from_goal() looks


def decidable(start: str) -> bool:
    try:
        coins.search(start, FUZZ_ROWS)
    except coins.Undecided:
        return False
    return True


def gapless_rows_near(goal: str, max_rows: int) -> list[str]:
    """Rows without gaps that are not goals, in breadth-first order from ``goal`` (first ``max_rows``)."""
    seen = {goal}
    frontier = [goal]
    found: list[str] = []
    while frontier and len(seen) < max_rows:
        following = []
        for row in frontier:
            for after in coins.successors(row):
                if after not in seen:
                    seen.add(after)
                    following.append(after)
                    if coins.EMPTY not in after and not coins.is_goal(after):
                        found.append(after)
        frontier = following
    return found


@st.composite
def reached_from_goal(draw: st.DrawFn) -> str:
    """A gapless row reachable from a goal, so one that can reach a goal (a goal when there is none)."""
    n = draw(st.integers(3, coins.MAX_COINS))
    heads = draw(st.integers(1, n - 1))  # a goal of one face has no move
    goal = "A" * heads + "B" * (n - heads)
    found = gapless_rows_near(goal, NEAR_GOAL_ROWS)
    return found[draw(st.integers(0, len(found) - 1))] if found else goal


def one_odd_coin() -> st.SearchStrategy[str]:
    return st.builds(
        lambda face, left, right: face * left + ("B" if face == "A" else "A") + face * right,
        st.sampled_from(coins.FACES),
        st.integers(0, coins.MAX_COINS - 1),
        st.integers(0, coins.MAX_COINS - 1),
    ).filter(lambda row: coins.MIN_COINS <= len(row) <= coins.MAX_COINS)


def uniform() -> st.SearchStrategy[str]:
    return st.text(alphabet=coins.FACES, min_size=coins.MIN_COINS, max_size=coins.MAX_COINS)


def starts() -> st.SearchStrategy[str]:
    """Start rows (2 to 9 coins) that keep the statement's promise."""
    return st.one_of(reached_from_goal(), reached_from_goal(), reached_from_goal(), one_odd_coin(), uniform()).filter(
        decidable
    )


def strategy() -> st.SearchStrategy[bytes]:
    """The bytes of valid ``.in`` files."""
    return starts().map(coins.format_input)


def answer(test_input: bytes) -> bytes:
    """The ``.ans`` of a test: the reference's shortest sequence, or ``impossible``."""
    return coins.format_answer(coins.solve(coins.parse_input(test_input)))
