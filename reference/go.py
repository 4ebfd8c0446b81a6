"""Reference for problem ``go``: a 19x19 Go position in at most 80 bytes.

The whole board is one base-3 number (``.`` = 0, ``B`` = 1, ``W`` = 2; the first point of the
first row is the most significant digit), written as a 72-byte big-endian integer. 72 bytes is
the information limit ``ceil(361 * log2(3) / 8)``: 3**361 positions need 573 bits.

Also here: the test file formats (pass 1 input, pass 2 input) and the scoring rule, so that the
output validator, the generator, the fuzz strategy and the tests share one definition.
"""

from __future__ import annotations

import math

SIZE = 19
POINTS = SIZE * SIZE
SYMBOLS = ".BW"  # digit value = index
ENCODE_HEADER = b"ENCODE\n"
DECODE_HEADER = b"DECODE\n"
OPTIMAL_BYTES = math.ceil(POINTS * math.log2(3) / 8)  # 72
MAX_BYTES = 80
FULL_SCORE = 100.0
SCORE_AT_MAX_BYTES = 50.0

Board = tuple[str, ...]  # SIZE rows of SIZE characters from SYMBOLS


def is_board(board: Board) -> bool:
    """Whether ``board`` is SIZE rows of SIZE characters from SYMBOLS."""
    return len(board) == SIZE and all(len(row) == SIZE and set(row) <= set(SYMBOLS) for row in board)


def format_board(board: Board) -> bytes:
    """The board as printed by pass 2: SIZE lines, each ending in ``\\n``."""
    return "".join(row + "\n" for row in board).encode("ascii")


def format_input(board: Board) -> bytes:
    """The ``.in`` file of a test (= the input of pass 1)."""
    return ENCODE_HEADER + format_board(board)


def parse_board(text: bytes) -> Board:
    """Rows of ``text`` (strict: exactly SIZE lines of SIZE symbols, each ending in ``\\n``)."""
    if not text.endswith(b"\n"):
        raise ValueError("the last line does not end in a newline")
    rows = tuple(text[:-1].decode("ascii").split("\n"))
    if not is_board(rows):
        raise ValueError(f"expected {SIZE} lines of {SIZE} characters from {SYMBOLS!r}")
    return rows


def parse_input(data: bytes) -> Board:
    """The board of a ``.in`` file; raises ValueError unless it is exactly ``ENCODE\\n`` + a board."""
    if not data.startswith(ENCODE_HEADER):
        raise ValueError("the input does not start with ENCODE and a newline")
    return parse_board(data[len(ENCODE_HEADER) :])


def board_to_int(board: Board) -> int:
    """The base-3 value of the board (first point = most significant digit)."""
    value = 0
    for row in board:
        for ch in row:
            value = value * 3 + SYMBOLS.index(ch)
    return value


def int_to_board(value: int) -> Board:
    """Inverse of :func:`board_to_int`; ``0 <= value < 3**POINTS``."""
    if not 0 <= value < 3**POINTS:
        raise ValueError("value out of range")
    digits = []
    for _ in range(POINTS):
        value, digit = divmod(value, 3)
        digits.append(SYMBOLS[digit])
    digits.reverse()
    return tuple("".join(digits[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE))


def encode(board: Board) -> bytes:
    """Pass 1: exactly OPTIMAL_BYTES bytes for every board."""
    return board_to_int(board).to_bytes(OPTIMAL_BYTES, "big")


def decode(data: bytes) -> Board:
    """Pass 2: the board that :func:`encode` turned into ``data``."""
    if len(data) != OPTIMAL_BYTES:
        raise ValueError(f"expected {OPTIMAL_BYTES} bytes, got {len(data)}")
    return int_to_board(int.from_bytes(data, "big"))


def score(n_bytes: int) -> float | None:
    """Score of a correct round trip through ``n_bytes`` bytes; None when over MAX_BYTES (rejected).

    FULL_SCORE up to OPTIMAL_BYTES, then linear down to SCORE_AT_MAX_BYTES at MAX_BYTES.
    """
    if n_bytes < 0:
        raise ValueError("negative length")
    if n_bytes > MAX_BYTES:
        return None
    if n_bytes <= OPTIMAL_BYTES:
        return FULL_SCORE
    drop = (FULL_SCORE - SCORE_AT_MAX_BYTES) * (n_bytes - OPTIMAL_BYTES) / (MAX_BYTES - OPTIMAL_BYTES)
    return FULL_SCORE - drop


def solve(data: bytes) -> bytes:
    """The whole program, both passes: what the reference writes for input ``data``."""
    if data.startswith(ENCODE_HEADER):
        return encode(parse_input(data))
    if data.startswith(DECODE_HEADER):
        return format_board(decode(data[len(DECODE_HEADER) :]))
    raise ValueError("the input starts with neither ENCODE nor DECODE")
