"""Survey of problem ``coins``: every start of n coins (up to mirror image and swapping the faces),
decided by ``reference.coins``; and the speed of the reference search.

Usage: ``python3 bench/coins.py [--max-coins N] [--rows R] [--prove]``. For each n it prints how many
starts the breadth-first search decides within R rows (solvable, with the longest optimum; impossible,
with every reachable row visited) and how many it cannot; with ``--prove`` the clamped games of
``reference.coins.classify`` then try to prove those impossible. n = 9 with the defaults takes minutes.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter

from reference import coins


def canonical_starts(n: int) -> list[str]:
    """One start per class of rows equal up to reversal and swapping A and B."""
    swap = str.maketrans("AB", "BA")
    seen: set[str] = set()
    out: list[str] = []
    for faces in itertools.product(coins.FACES, repeat=n):
        row = "".join(faces)
        images = {row, row[::-1], row.translate(swap), row[::-1].translate(swap)}
        if not images & seen:
            seen |= images
            out.append(row)
    return out


def survey(n: int, rows: int, prove: bool) -> None:
    kinds: Counter[str] = Counter()
    longest: tuple[int, int, str] = (-1, 0, "")
    most_rows_impossible = 0
    started = time.perf_counter()
    decided_rows, decided_seconds = 0, 0.0
    for start in canonical_starts(n):
        t0 = time.perf_counter()
        try:
            path, stored = coins.search(start, rows)
        except coins.Undecided:
            if prove and any(coins.goal_unreachable_in_clamped_game(start, c, p) for c, p in coins.DEFAULT_CLAMPS):
                kinds["impossible, proved by a clamped game"] += 1
            else:
                kinds["undecided"] += 1
            continue
        decided_rows += stored
        decided_seconds += time.perf_counter() - t0
        if path is None:
            kinds["impossible, exhausted"] += 1
            most_rows_impossible = max(most_rows_impossible, stored)
        else:
            kinds["solvable"] += 1
            longest = max(longest, (len(path) - 1, stored, start))
    seconds = time.perf_counter() - started
    print(f"n = {n}: {sum(kinds.values())} starts up to symmetry, {seconds:.1f} s")
    for kind, count in sorted(kinds.items()):
        print(f"    {kind:40} {count:4}")
    if longest[0] >= 0:
        print(f"    longest optimum: {longest[0]} move(s) ({longest[2]}, {longest[1]} rows stored)")
    if most_rows_impossible:
        print(f"    most rows reachable from an exhausted impossible start: {most_rows_impossible}")
    if decided_seconds > 0.05:
        print(f"    search speed on the decided starts: {decided_rows / decided_seconds:,.0f} rows stored per second")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-coins", type=int, default=7)
    parser.add_argument("--rows", type=int, default=300_000, help="search limit per start (rows stored)")
    parser.add_argument("--prove", action="store_true", help="try the clamped games on undecided starts")
    args = parser.parse_args()
    for n in range(coins.MIN_COINS, args.max_coins + 1):
        survey(n, args.rows, args.prove)


if __name__ == "__main__":
    main()
