"""``judge fuzz`` hooks for problem ``memory``: hidden game data for the oracle, and the reference's flips.

The layouts are biased towards what breaks strategies: the hand-made shapes of the test data (pairs side
by side, the seed's worst case, the alphabet twice, mirrored, shifted by one) with their letters renamed
and a few cards swapped, layouts where most pairs sit at a fixed distance, uniformly shuffled layouts,
and the adaptive adversary with every tie-break rule.
"""

from __future__ import annotations

from hypothesis import strategies as st

from reference import memory
from reference.memory_adversary import dealer_for

L = memory.LETTERS
SHAPES = (
    "".join(letter * 2 for letter in L),
    memory.SEED_WORST,
    memory.SEED_WORST[::-1],
    L + L,
    L + L[::-1],
    L[0] + "".join(letter * 2 for letter in L[1:]) + L[0],
)


def _renamed_and_swapped(shape: str, names: list[str], swaps: list[tuple[int, int]]) -> str:
    cards = [names[L.index(letter)] for letter in shape]
    for a, b in swaps:
        cards[a], cards[b] = cards[b], cards[a]
    return "".join(cards)


def _at_distance(distance: int, rotation: int) -> str:
    """Letters placed greedily so that most pairs are ``distance`` apart, then rotated."""
    cards = [""] * memory.CARDS
    letters = iter(L)
    for position in range(memory.CARDS):
        partner = position + distance
        if not cards[position] and partner < memory.CARDS and not cards[partner]:
            cards[position] = cards[partner] = next(letters)
    rest = iter(sorted(set(L) - set(cards)) * 2)
    filled = [card or next(rest) for card in cards]
    return "".join(filled[rotation:] + filled[:rotation])


def layouts() -> st.SearchStrategy[str]:
    position = st.integers(0, memory.CARDS - 1)
    return st.one_of(
        st.builds(
            _renamed_and_swapped,
            st.sampled_from(SHAPES),
            st.permutations(list(L)),
            st.lists(st.tuples(position, position), max_size=4),
        ),
        st.builds(_at_distance, st.integers(1, 30), position),
        st.permutations(list(L * 2)).map("".join),
    )


def specs() -> st.SearchStrategy[memory.TestSpec]:
    return st.one_of(
        layouts().map(lambda layout: memory.TestSpec("fixed", "fuzz", layout)),
        st.builds(
            memory.TestSpec,
            st.just("adversary"),
            st.sampled_from(memory.TIEBREAKS),
            seed=st.integers(0, 999_999_999),
        ),
    )


def strategy() -> st.SearchStrategy[bytes]:
    return specs().map(lambda spec: spec.render().encode())


def answer(test_input: bytes) -> bytes:
    """The number of flips the reference strategy needs in this game (the oracle only logs it)."""
    spec = memory.parse_spec(test_input.decode("ascii"))
    outcome, _ = memory.simulate(memory.play, dealer_for(spec))
    return f"{outcome.flips}\n".encode()
