"""``judge fuzz`` hooks for problem ``klondike``: Hypothesis strategies for test inputs, and their answers.

Mostly ``solve`` inputs of 1..6 deals, biased towards what random deals almost never show: deals that
empty piles and need King moves or King choices (the package's special deals, with suits relabelled and a
few cards swapped), deals that come out completely, deals with no move at all, aces on top. Sometimes a
small ``stats`` input (its answer is the reference's own estimate; the validator compares with the stored
high-precision values). ``accepts`` runs the package's output validator code in-process.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from hypothesis import strategies as st

from reference import klondike as K

HERE = Path(__file__).resolve().parent


@cache
def _specials() -> tuple[tuple[int, ...], ...]:
    out = []
    for line in (HERE / "generators" / "special_deals.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("large"):  # large ones are slow for the seed's method: not here
            out.append(K.parse_deal(line.split(None, 1)[1]))
    return tuple(out)


@cache
def _validator() -> ModuleType:
    path = HERE / "output_validator" / "klondike_validator" / "validate.py"
    spec = importlib.util.spec_from_file_location("_klondike_validator", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _swap_some(deal: tuple[int, ...], swaps: list[tuple[int, int]]) -> tuple[int, ...]:
    cards = list(deal)
    for i, j in swaps:
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def _relabel(deal: tuple[int, ...], perm: list[int]) -> tuple[int, ...]:
    return tuple(perm[c // 13] * 13 + c % 13 for c in deal)


def _aces_on_top(deal: tuple[int, ...], how_many: int) -> tuple[int, ...]:
    """Swap ``how_many`` aces into the last-dealt positions (the pile tops)."""
    cards = list(deal)
    for k, ace in enumerate((0, 13, 26, 39)[:how_many]):
        i, j = cards.index(ace), 51 - k
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def deals() -> st.SearchStrategy[tuple[int, ...]]:
    """Valid deals, biased towards the rare interesting ones."""
    swaps = st.lists(st.tuples(st.integers(0, 51), st.integers(0, 51)), max_size=3)
    special = st.builds(
        lambda d, perm, sw: _swap_some(_relabel(d, perm), sw),
        st.sampled_from(_specials()),
        st.permutations(range(4)),
        swaps,
    )
    sorted_deal = tuple(51 - k for k in range(52))
    return st.one_of(
        st.permutations(K.DECK).map(tuple),
        special,
        special,
        st.builds(_swap_some, st.just(sorted_deal), swaps),
        st.builds(_aces_on_top, st.permutations(K.DECK).map(tuple), st.integers(1, 4)),
        st.permutations(K.DECK).map(tuple).filter(K.no_move_at_start),
    )


def _solve_input(ds: list[tuple[int, ...]]) -> bytes:
    return (f"solve {len(ds)}\n" + "".join(K.format_deal(d) + "\n" for d in ds)).encode()


def strategy() -> st.SearchStrategy[bytes]:
    solve = st.lists(deals(), min_size=1, max_size=6).map(_solve_input)
    stats = st.builds(
        lambda n, seed: f"stats {n} {seed}\n".encode(), st.integers(1000, 1500), st.integers(0, 2**31 - 1)
    )
    return st.one_of(solve, solve, solve, stats)


def answer(test_input: bytes) -> bytes:
    words = test_input.decode().split()
    if words[0] == "stats":
        s = K.summarize([K.optimal_score(d) for d in K.deals_for_seed(int(words[1]), int(words[2]))])
        return f"{s.mean:.6f} {s.std:.6f}\n".encode()
    n = int(words[1])
    scores = [K.optimal_score(K.parse_deal(" ".join(words[2 + 52 * i : 54 + 52 * i]))) for i in range(n)]
    return "".join(f"{s}\n" for s in scores).encode()


def accepts(test_input: bytes, answer: bytes, output: bytes) -> bool:
    v = _validator()
    words = test_input.decode().split()
    team = output.decode("ascii", errors="replace").split()
    if words[0] == "stats":
        return v.judge_stats(int(words[1]), team)[0]
    return v.judge_solve(int(words[1]), answer.decode().split(), team)[0]
