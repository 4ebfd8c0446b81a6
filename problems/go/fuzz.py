"""``judge fuzz`` hooks for problem ``go``: Hypothesis strategies for test inputs, and their answers.

The boards are biased towards what breaks encoders: one colour with a few changes (all white is the
largest base-3 value), every stone density, base-3 values at the byte boundaries (2**568 does not fit
in 71 bytes), and boards whose 72-byte encoding is made of awkward bytes (``\\n``, ``\\r``, NUL, 0x1A, 0xFF).
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

from reference import go

AWKWARD_BYTES = (0x00, 0x0A, 0x0D, 0x1A, 0x20, 0x7F, 0xFF)


def _from_points(points: str) -> go.Board:
    return tuple(points[r * go.SIZE : (r + 1) * go.SIZE] for r in range(go.SIZE))


def _patched(background: str, changes: dict[int, str]) -> go.Board:
    points = [background] * go.POINTS
    for index, symbol in changes.items():
        points[index] = symbol
    return _from_points("".join(points))


def _by_density(stones: float, black: float, seed: int) -> go.Board:
    rng = random.Random(seed)

    def point() -> str:
        if rng.random() >= stones:
            return "."
        return "B" if rng.random() < black else "W"

    return _from_points("".join(point() for _ in range(go.POINTS)))


def _from_encoding(data: list[int]) -> go.Board:
    value = int.from_bytes(bytes(data), "big") % 3**go.POINTS
    return go.int_to_board(value)


def boards() -> st.SearchStrategy[go.Board]:
    """Valid boards, biased towards the ones that break naive encoders."""
    symbol = st.sampled_from(go.SYMBOLS)
    top = 3**go.POINTS - 1
    edges = [0, 1, 2, 2**568 - 1, 2**568, 2**568 + 1, 2**572, top - 2, top - 1, top]
    return st.one_of(
        st.text(alphabet=go.SYMBOLS, min_size=go.POINTS, max_size=go.POINTS).map(_from_points),
        st.builds(_patched, symbol, st.dictionaries(st.integers(0, go.POINTS - 1), symbol, max_size=12)),
        st.builds(
            _by_density,
            st.floats(0.0, 1.0),
            st.floats(0.0, 1.0),
            st.integers(0, 2**32 - 1),  # not st.randoms(): it records each of the 722 draws
        ),
        st.integers(0, top).map(go.int_to_board),
        st.sampled_from(edges).map(go.int_to_board),
        st.lists(st.sampled_from(AWKWARD_BYTES), min_size=go.OPTIMAL_BYTES, max_size=go.OPTIMAL_BYTES).map(
            _from_encoding
        ),
    )


def strategy() -> st.SearchStrategy[bytes]:
    """The bytes of valid ``.in`` files."""
    return boards().map(go.format_input)


def answer(test_input: bytes) -> bytes:
    """The ``.ans`` of a test: the board that pass 2 must print (via the reference's round trip)."""
    return go.format_board(go.decode(go.encode(go.parse_input(test_input))))
