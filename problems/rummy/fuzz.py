"""Hypothesis strategy for ``judge fuzz`` on rummy.

Plain random counts are almost never layable, so the strategy is biased: most inputs are sums of
random runs (always layable), often with one card added or removed (near misses: usually not
layable, and where wrong solutions slip), some are small counts (where the wrap-around and the
greedy traps live), and a few are plain random counts.
"""

from __future__ import annotations

from hypothesis import strategies as st

from reference import rummy

K = rummy.NUMBERS
MAX = rummy.MAX_COUNT

# one run: (first number 0..12, length in cards, copies)
_runs = st.tuples(st.integers(0, K - 1), st.integers(3, 2 * K), st.integers(1, 40))


def _lay(runs: list[tuple[int, int, int]]) -> list[int]:
    n = [0] * K
    for first, length, copies in runs:
        for p in range(first, first + length):
            n[p % K] += copies
    return n


def _clip(n: list[int]) -> tuple[int, ...]:
    return tuple(min(MAX, max(0, c)) for c in n)


@st.composite
def _near_miss(draw: st.DrawFn, base: st.SearchStrategy[list[int]]) -> tuple[int, ...]:
    n = draw(base)
    i = draw(st.integers(0, K - 1))
    n[i] += draw(st.sampled_from((-1, 1)))
    return _clip(n)


_sums = st.lists(_runs, max_size=12).map(_lay).filter(lambda n: max(n) <= MAX)
_small_runs = st.tuples(st.integers(0, K - 1), st.integers(3, 2 * K), st.integers(1, 2))
_small_sums = st.lists(_small_runs, max_size=6).map(_lay).filter(lambda n: max(n) <= 4)
_small = st.lists(st.integers(0, 4), min_size=K, max_size=K)
_plain = st.lists(st.integers(0, MAX), min_size=K, max_size=K)

# about half of the examples are layable (the sums), most of the rest are one card away from it
counts_strategy: st.SearchStrategy[tuple[int, ...]] = st.one_of(
    _sums.map(tuple),
    _small_sums.map(tuple),
    _near_miss(_sums),
    _near_miss(_small_sums),
    _sums.map(tuple),
    _small.map(tuple),
    _plain.map(tuple),
)


def strategy() -> st.SearchStrategy[bytes]:
    """The bytes of a valid test .in file."""
    return counts_strategy.map(lambda n: rummy.format_input(n).encode("ascii"))


def answer(test_input: bytes) -> bytes:
    """The .ans for a test: ``0`` when the cards are layable, ``1`` when not."""
    return f"{rummy.exit_status(rummy.parse_input(test_input))}\n".encode("ascii")


def accepts(test_input: bytes, answer: bytes, output: bytes) -> bool:
    """What the output validator decides: the exit status in ``output`` is 0 iff the answer is 0."""
    return (int(output) == 0) == (int(answer) == 0)
