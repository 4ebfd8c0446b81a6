"""Generator of problem ``go``: writes data/sample and data/secret (``X.in`` = ``ENCODE`` + board,
``X.ans`` = the board) and the testdata.yaml files.

Usage: ``python3 gen.py [DATA_DIR]`` (default: the package's ``data/``). Every test has its own fixed
seed, so the output is the same on every run; ``tests/test_go_data.py`` checks that it reproduces the
committed data byte for byte.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

from reference import go

Grid = list[list[str]]
N = go.SIZE


def board_of(grid: Grid) -> go.Board:
    return tuple("".join(row) for row in grid)


def pattern(f: Callable[[int, int], str]) -> go.Board:
    return tuple("".join(f(r, c) for c in range(N)) for r in range(N))


def from_points(points: str) -> go.Board:
    """A board from its 361 points in reading order."""
    assert len(points) == go.POINTS
    return tuple(points[r * N : (r + 1) * N] for r in range(N))


def from_reference_bytes(data: bytes) -> go.Board:
    """The board whose reference encoding is exactly ``data`` (72 bytes)."""
    board = go.decode(data)
    assert go.encode(board) == data
    return board


def from_seed_bytes(byte: int) -> go.Board:
    """The board whose seed encoding (5 points per byte, first point least significant) is all ``byte``."""
    group = ""
    for _ in range(5):
        byte, digit = divmod(byte, 3)
        group += go.SYMBOLS[digit]
    return from_points((group * (go.POINTS // 5 + 1))[: go.POINTS])


def random_board(seed: int, stones: float) -> go.Board:
    """Each point is a stone with probability ``stones``; a stone is black or white with equal odds."""
    rng = random.Random(seed)
    return pattern(lambda r, c: rng.choice("BW") if rng.random() < stones else ".")


def uniform_board(seed: int) -> go.Board:
    rng = random.Random(seed)
    return pattern(lambda r, c: rng.choice(go.SYMBOLS))


def group_and_liberties(grid: Grid, r: int, c: int) -> tuple[set[tuple[int, int]], int]:
    color = grid[r][c]
    group = {(r, c)}
    stack = [(r, c)]
    liberties: set[tuple[int, int]] = set()
    while stack:
        y, x = stack.pop()
        for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if not (0 <= ny < N and 0 <= nx < N):
                continue
            if grid[ny][nx] == ".":
                liberties.add((ny, nx))
            elif grid[ny][nx] == color and (ny, nx) not in group:
                group.add((ny, nx))
                stack.append((ny, nx))
    return group, len(liberties)


def play(grid: Grid, r: int, c: int, color: str) -> bool:
    """Plays a legal move (captures; no suicide; ko is not checked). False if the move is illegal."""
    if grid[r][c] != ".":
        return False
    grid[r][c] = color
    other = "W" if color == "B" else "B"
    for ny, nx in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= ny < N and 0 <= nx < N and grid[ny][nx] == other:
            group, liberties = group_and_liberties(grid, ny, nx)
            if liberties == 0:
                for y, x in group:
                    grid[y][x] = "."
    if group_and_liberties(grid, r, c)[1] == 0:
        grid[r][c] = "."
        return False
    return True


def game_board(seed: int, moves: int) -> go.Board:
    """A real-looking position: ``moves`` legal moves, mostly answering near recent stones."""
    rng = random.Random(seed)
    grid: Grid = [["."] * N for _ in range(N)]
    recent: list[tuple[int, int]] = []
    color = "B"
    played = 0
    for _ in range(moves * 20):
        if played == moves:
            break
        if recent and rng.random() < 0.8:
            y, x = rng.choice(recent[-8:])
            r, c = y + rng.randint(-2, 2), x + rng.randint(-2, 2)
        else:  # open a new area, preferring the third and fourth lines
            r, c = (rng.choice([2, 3, 3, 9, 15, 15, 16]) + rng.randint(-1, 1) for _ in range(2))
        if 0 <= r < N and 0 <= c < N and play(grid, r, c, color):
            recent.append((r, c))
            color = "W" if color == "B" else "B"
            played += 1
    return board_of(grid)


def sample_corner() -> go.Board:
    grid: Grid = [["."] * N for _ in range(N)]
    for r, c, color in [(3, 3, "B"), (2, 5, "W"), (2, 2, "B"), (15, 15, "B"), (16, 3, "W"), (3, 15, "W")]:
        grid[r][c] = color
    return board_of(grid)


SAMPLE: dict[str, go.Board] = {
    "1-corner": sample_corner(),
    "2-game": game_board(seed=2, moves=60),
}

SECRET: dict[str, go.Board] = {
    "01-empty": pattern(lambda r, c: "."),
    "02-all-black": pattern(lambda r, c: "B"),
    "03-all-white": pattern(lambda r, c: "W"),  # the largest base-3 value
    "04-all-white-but-last": from_points("W" * (go.POINTS - 1) + "."),
    "05-checkerboard-black-white": pattern(lambda r, c: "BW"[(r + c) % 2]),
    "06-checkerboard-white-empty": pattern(lambda r, c: "W."[(r + c) % 2]),
    "07-stripes": pattern(lambda r, c: go.SYMBOLS[r % 3]),
    "08-diagonals": pattern(lambda r, c: go.SYMBOLS[(r + 2 * c) % 3]),
    "09-first-point-black": from_points("B" + "." * (go.POINTS - 1)),
    "10-last-point-white": from_points("." * (go.POINTS - 1) + "W"),
    "11-random-stones-5pct": random_board(seed=11, stones=0.05),
    "12-random-stones-20pct": random_board(seed=12, stones=0.20),
    "13-random-stones-50pct": random_board(seed=13, stones=0.50),
    "14-random-stones-80pct": random_board(seed=14, stones=0.80),
    "15-random-full": random_board(seed=15, stones=1.0),
    "16-random-uniform": uniform_board(seed=16),
    "17-random-uniform": uniform_board(seed=17),
    "18-game-30-moves": game_board(seed=18, moves=30),
    "19-game-120-moves": game_board(seed=19, moves=120),
    "20-game-250-moves": game_board(seed=20, moves=250),
    # Boards whose 72-byte base-3 encoding is awkward bytes: a program that reads its pass-2 input as
    # text (stopping at NUL, turning \r\n into \n, stripping trailing whitespace) fails these.
    "21-bytes-newlines": from_reference_bytes(b"\n" * go.OPTIMAL_BYTES),
    "22-bytes-crlf": from_reference_bytes(b"\r\n" * (go.OPTIMAL_BYTES // 2)),
    "23-bytes-nul-then-ff": from_reference_bytes(b"\x00" + b"\xff" * (go.OPTIMAL_BYTES - 1)),
    # The smallest base-3 value that does not fit in 71 bytes.
    "24-value-2-pow-568": from_reference_bytes((1 << 568).to_bytes(go.OPTIMAL_BYTES, "big")),
    # Boards whose 5-points-per-byte encoding (the seed's) is all 0x1A (Ctrl-Z) or all 0x0A (\n).
    "25-seed-bytes-ctrl-z": from_seed_bytes(0x1A),
    "26-seed-bytes-newlines": from_seed_bytes(0x0A),
}

ROOT_TESTDATA = """\
# Kattis grading (problemtools reads testdata.yaml for 2023-07 packages; see docs/package-format.md): the
# problem's score is data/secret's, samples are judged but not scored, a rejected sample stops nothing.
on_reject: continue
grader_flags: ignore_sample first_error
range: 0 100
"""
SAMPLE_TESTDATA = """\
# samples: judged, never scored (data/testdata.yaml ignores them)
grader_flags: min first_error
"""
SECRET_TESTDATA = """\
# Problem score = the worst test's score (each test: 100 at <= 72 bytes, 50 at 80, rejected above).
range: 0 100
grader_flags: min first_error
# One rejected test makes the score 0 whatever the others do, so judging stops there.
on_reject: break
"""


def write(data_dir: Path) -> None:
    for folder, boards in (("sample", SAMPLE), ("secret", SECRET)):
        out = data_dir / folder
        out.mkdir(parents=True, exist_ok=True)
        for name, board in boards.items():
            assert go.is_board(board), name
            (out / f"{name}.in").write_bytes(go.format_input(board))
            (out / f"{name}.ans").write_bytes(go.format_board(board))
    (data_dir / "testdata.yaml").write_text(ROOT_TESTDATA)
    (data_dir / "sample" / "testdata.yaml").write_text(SAMPLE_TESTDATA)
    (data_dir / "secret" / "testdata.yaml").write_text(SECRET_TESTDATA)


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "data")
