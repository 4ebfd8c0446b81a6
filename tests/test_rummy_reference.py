"""reference/rummy.py: three independent exact methods agree, layouts are real, invariances hold."""

from __future__ import annotations

import itertools
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import rummy

K = rummy.NUMBERS
PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "rummy"


# --- strategies ------------------------------------------------------------------------------------


def runs_strategy(max_copies: int, max_runs: int) -> st.SearchStrategy[list[tuple[int, int, int]]]:
    """Runs as (first number 1..13, length, copies)."""
    run = st.tuples(st.integers(1, K), st.integers(3, 2 * K), st.integers(1, max_copies))
    return st.lists(run, max_size=max_runs)


def lay(runs: Sequence[tuple[int, int, int]]) -> tuple[int, ...]:
    return rummy.counts_of([(first, length) for first, length, copies in runs for _ in range(copies)])


@st.composite
def near(draw: st.DrawFn, base: st.SearchStrategy[tuple[int, ...]]) -> tuple[int, ...]:
    """A count vector, often with one card added or removed."""
    n = list(draw(base))
    if draw(st.booleans()):
        i = draw(st.integers(0, K - 1))
        n[i] = max(0, n[i] + draw(st.sampled_from((-1, 1))))
    return tuple(n)


small_counts = st.one_of(
    st.tuples(*[st.integers(0, 3)] * K),
    near(runs_strategy(2, 6).map(lay).filter(lambda n: max(n) <= 5)),
)
medium_counts = near(runs_strategy(12, 10).map(lay).filter(lambda n: max(n) <= 30))
large_layable = runs_strategy(40, 15).map(lay).filter(lambda n: max(n) <= rummy.MAX_COUNT)
large_counts = st.one_of(near(large_layable), st.tuples(*[st.integers(0, rummy.MAX_COUNT)] * K))


def assert_layout(counts: Sequence[int]) -> None:
    """layout() is None exactly when not layable, and otherwise really lays these cards."""
    runs = rummy.layout(counts)
    assert (runs is not None) == rummy.layable(counts)
    if runs is not None:
        assert rummy.counts_of(runs) == tuple(counts)
        assert all(1 <= first <= K and length in rummy.RUN_LENGTHS for first, length in runs)


# --- the three methods agree ----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(small_counts)
def test_closed_criterion_matches_exhaustive_search(counts: tuple[int, ...]) -> None:
    assert rummy.layable(counts) == rummy.layable_search(counts)


@settings(max_examples=150, deadline=None)
@given(st.one_of(small_counts, medium_counts))
def test_cycle_dp_matches_closed_criterion(counts: tuple[int, ...]) -> None:
    assert rummy.layable_dp(counts) == rummy.layable(counts)


def test_all_three_agree_on_every_zero_one_vector() -> None:
    for counts in itertools.product((0, 1), repeat=K):
        truth = rummy.layable_search(counts)
        assert rummy.layable(counts) == truth == rummy.layable_dp(counts), counts


@settings(max_examples=200, deadline=None)
@given(large_layable)
def test_sums_of_runs_are_layable(counts: tuple[int, ...]) -> None:
    assert rummy.layable(counts)
    assert_layout(counts)


@settings(max_examples=200, deadline=None)
@given(large_counts)
def test_layout_is_a_certificate(counts: tuple[int, ...]) -> None:
    assert_layout(counts)


@settings(max_examples=200, deadline=None)
@given(large_counts, st.integers(0, K - 1))
def test_rotating_and_mirroring_keep_the_answer(counts: tuple[int, ...], shift: int) -> None:
    answer = rummy.layable(counts)
    rotated = counts[shift:] + counts[:shift]
    mirrored = tuple(reversed(counts))  # runs read backwards are runs of the mirrored numbers
    assert rummy.layable(rotated) == answer
    assert rummy.layable(mirrored) == answer


@settings(max_examples=100, deadline=None)
@given(large_layable, st.integers(0, K - 1))
def test_one_lone_card_more_is_found_by_the_violation(counts: tuple[int, ...], i: int) -> None:
    """A card of a number whose neighbours have none can never be laid."""
    n = list(counts)
    n[i - 1] = n[(i + 1) % K] = 0
    n[i] += 1
    assert not rummy.layable(n)
    assert rummy.violation(n) is not None


# --- known cases ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((4, 9, 34, 75, 10, 90, 45, 23, 7, 76, 25, 19, 95), False),  # the seed's example
        ((0,) * K, True),
        ((100,) * K, True),
        ((1, 1, 2, 1, 1) + (0,) * 8, True),  # greedy "longest run first" would take 1-5
        ((1,) + (0,) * 10 + (1, 1), True),  # 12 13 1
        ((1, 1) + (0,) * 11, False),
        ((0, 0, 0, 0, 2, 2, 1, 1, 1, 0, 0, 0, 0), False),
        ((1,) * 12 + (2,), True),  # 14 cards: 13 1 2 | 3 4 5 | 6 7 8 9 | 10 11 12 13
    ],
)
def test_known_answers(counts: tuple[int, ...], expected: bool) -> None:
    assert rummy.layable(counts) == expected
    assert rummy.exit_status(counts) == (0 if expected else 1)
    assert_layout(counts)


@pytest.mark.parametrize("i", range(K))
@pytest.mark.parametrize("count", [1, 2, 3, 100])
def test_a_single_nonzero_count_is_never_layable(i: int, count: int) -> None:
    counts = tuple(count if j == i else 0 for j in range(K))
    assert not rummy.layable(counts)
    if count <= 3:
        assert not rummy.layable_search(counts)


def test_the_seed_example_fails_at_the_ones() -> None:
    # 95 thirteens but 19 twelves: at least 76 runs start at 13, each needs a 1; there are 4.
    assert rummy.starts((4, 9, 34, 75, 10, 90, 45, 23, 7, 76, 25, 19, 95))[12] == 76
    assert rummy.violation((4, 9, 34, 75, 10, 90, 45, 23, 7, 76, 25, 19, 95)) == 0


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        rummy.layable((1,) * 12)
    with pytest.raises(ValueError):
        rummy.check_counts((101,) + (0,) * 12)
    with pytest.raises(ValueError):
        rummy.parse_input("0 0 0 0 0 0 0 0 0 0 0 0 -1\n")
    assert rummy.parse_input(b"1 2 3 4 5 6 7 8 9 10 11 12 13\n") == tuple(range(1, 14))


# --- the accepted Python submissions agree with the reference ------------------------------------


def run_submission(path: Path, counts: Sequence[int]) -> int:
    """The exit status of a standalone Python submission, run in this process (they are harmless)."""
    saved = sys.argv
    sys.argv = [str(path), *map(str, counts)]
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as stop:
        code = stop.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.argv = saved
    return 0


@pytest.mark.parametrize("name", ["seed_formula.py", "closed_form.py"])
@settings(max_examples=150, deadline=None)
@given(counts=st.one_of(small_counts, large_counts))
def test_accepted_python_submissions_agree(name: str, counts: tuple[int, ...]) -> None:
    status = run_submission(PACKAGE / "submissions" / "accepted" / name, counts)
    assert (status == 0) == rummy.layable(counts)
