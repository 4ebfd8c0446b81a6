"""Generator of problem ``coins``: writes data/sample and data/secret (``X.in`` = the start row,
``X.ans`` = the reference's shortest sequence or ``impossible``) and the testdata.yaml files.

Usage: ``python3 gen.py [DATA_DIR]`` (default: the package's ``data/``). The hand-picked starts are
fixed; the random ones come from a fixed seed per test. Every answer is computed by
``reference.coins.search``: a shortest sequence (breadth-first, so the optimum is proved), or
``impossible`` only when the search visited every reachable row. Starts the search cannot decide within
``SEARCH_ROWS`` rows are never used. ``tests/test_coins_package.py`` checks that this reproduces the
committed data byte for byte.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from reference import coins

SEARCH_ROWS = 100_000
RANDOM_ROWS = 40_000  # random starts must be decided within this many rows (keeps the generator fast)
MIN_RANDOM_MOVES = 3

SAMPLES: list[tuple[str, str]] = [
    ("1-ababa", "ABABA"),  # the puzzle of the seed: 5 moves
    ("2-bab", "BAB"),  # one move
    ("3-abab", "ABAB"),  # impossible: 3 rows reachable
]

# Hand-picked secret tests. "hardest-n": the longest optimum of all starts of n coins (bench/coins.py
# --prove: every other start of 4, 6 or 7 coins is solved faster or proved impossible). "long-n": the
# longest optimum of n coins that a Python breadth-first search finds well within the time limit
# (AAAABABB, 17 moves, is also the longest the survey found for 8 coins; for 9 it found 17 moves, but
# after 237 000 rows, some 2.5 s in Python).
PICKED: list[tuple[str, str]] = [
    ("01-ababa", "ABABA"),  # the seed's start, optimum 5
    ("02-already-separated", "BBBAAA"),  # a goal already: 0 moves
    ("03-one-face", "AAAAAAAA"),  # a goal of one face only
    ("04-impossible-4", "ABBA"),
    ("05-impossible-5", "BBABB"),
    ("06-impossible-6", "AAABAA"),
    ("07-impossible-7", "AAAABAA"),
    ("08-impossible-8", "AAAABAAA"),  # 128 rows reachable
    ("09-impossible-9", "AAAAAABAA"),  # 235 rows reachable
    ("10-hardest-4", "AABA"),  # 1 move
    ("11-hardest-6", "ABBBBA"),  # 8 moves
    ("12-hardest-7", "AABBBAA"),  # 16 moves, walks out to a gap of 6 and back
    ("13-long-8", "AAAABABB"),  # 17 moves, 26 000 rows
    ("14-long-9", "AAAABBABB"),  # 14 moves, 59 000 rows
    ("15-alternating-7", "ABABABA"),  # 14 moves
]

# Random starts: (name, seed, number of coins).
RANDOM: list[tuple[str, int, int]] = [
    ("16-random-6", 6001, 6),
    ("17-random-7", 7001, 7),
    ("18-random-7", 7002, 7),
    ("19-random-8", 8001, 8),
    ("20-random-8", 8002, 8),
    ("21-random-9", 9001, 9),
    ("22-random-9", 9002, 9),
]

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
# Each test scores 100 * optimal / used moves (100 for a right "impossible"); the problem scores the mean.
range: 0 100
grader_flags: avg first_error
"""


def decided(start: str, max_rows: int = SEARCH_ROWS) -> list[str] | None:
    """The reference's answer for ``start`` (raises Undecided when the search cannot decide it)."""
    return coins.search(start, max_rows)[0]


def random_start(seed: int, n: int, taken: set[str]) -> tuple[str, list[str]]:
    """A random start of ``n`` coins that is solvable in at least ``MIN_RANDOM_MOVES`` moves, not taken yet."""
    rng = random.Random(seed)
    while True:
        start = "".join(rng.choice(coins.FACES) for _ in range(n))
        if start in taken:
            continue
        try:
            path = decided(start, RANDOM_ROWS)
        except coins.Undecided:
            continue
        if path is not None and len(path) > MIN_RANDOM_MOVES:
            return start, path


def write(folder: Path, name: str, start: str, path: list[str] | None) -> None:
    (folder / f"{name}.in").write_bytes(coins.format_input(start))
    (folder / f"{name}.ans").write_bytes(coins.format_answer(path))


def main(argv: list[str]) -> None:
    data = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "data"
    sample, secret = data / "sample", data / "secret"
    for folder in (sample, secret):
        folder.mkdir(parents=True, exist_ok=True)
        for old in [*folder.glob("*.in"), *folder.glob("*.ans")]:
            old.unlink()
    for name, start in SAMPLES:
        write(sample, name, start, decided(start))
    taken: set[str] = set()
    for name, start in PICKED:
        write(secret, name, start, decided(start))
        taken.add(start)
    for name, seed, n in RANDOM:
        start, path = random_start(seed, n, taken)
        write(secret, name, start, path)
        taken.add(start)
    (data / "testdata.yaml").write_text(ROOT_TESTDATA)
    (sample / "testdata.yaml").write_text(SAMPLE_TESTDATA)
    (secret / "testdata.yaml").write_text(SECRET_TESTDATA)


if __name__ == "__main__":
    main(sys.argv)
