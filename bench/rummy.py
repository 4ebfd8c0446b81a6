"""Rummy figures: speed of the reference methods, and an exhaustive check of the seed's formula.

    python3 bench/rummy.py                  # timings + every count vector with counts 0..2 (1.6 M)
    python3 bench/rummy.py --exhaustive 4   # every vector with counts 0..3 (67 M, about a minute)

The seed's formula (problems/rummy/submissions/accepted/seed_formula.py) is evaluated in numpy for a
whole block of vectors at once and compared with the reference criterion, also in numpy; a sample of
each block is also checked with ``reference.rummy.layable`` itself.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

import numpy as np

from reference import rummy

K = rummy.NUMBERS


def per_call(fn: Callable[[Sequence[int]], object], inputs: list[tuple[int, ...]]) -> float:
    start = time.perf_counter()
    for counts in inputs:
        fn(counts)
    return (time.perf_counter() - start) / len(inputs)


def random_inputs(rng: random.Random, count: int, max_count: int) -> list[tuple[int, ...]]:
    out = []
    while len(out) < count:
        n = [0] * K
        for _ in range(rng.randint(0, 12)):
            first, length, copies = rng.randrange(K), rng.randint(3, 13), rng.randint(1, max(1, max_count // 4))
            for p in range(first, first + length):
                n[p % K] += copies
        if rng.random() < 0.5:
            i = rng.randrange(K)
            n[i] = max(0, n[i] + rng.choice((-1, 1)))
        if max(n) <= max_count:
            out.append(tuple(n))
    return out


def timings() -> None:
    rng = random.Random(1)
    small = random_inputs(rng, 300, 3)
    large = random_inputs(rng, 300, rummy.MAX_COUNT)
    print("method            counts<=3 (us/call)  counts<=100 (us/call)")
    for name, fn, big in [
        ("layable", rummy.layable, True),
        ("layout", rummy.layout, True),
        ("layable_dp", rummy.layable_dp, True),
        ("layable_search", rummy.layable_search, False),
    ]:
        rummy._search.cache_clear()
        t_small = per_call(fn, small) * 1e6
        t_large = f"{per_call(fn, large) * 1e6:20.1f}" if big else f"{'(exponential)':>20}"
        print(f"{name:16} {t_small:20.1f} {t_large}")
    print(
        f"layable fraction: counts<=3 {np.mean([rummy.layable(c) for c in small]):.2f}, "
        f"counts<=100 {np.mean([rummy.layable(c) for c in large]):.2f}"
    )


def criteria(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(reference criterion, seed formula) for each row of n (shape rows x 13), as booleans."""

    def shifted(k: int) -> np.ndarray:  # shifted(k)[:, i] == n[:, i - k]
        return np.roll(n, k, axis=1)

    d = np.maximum(0, n - shifted(1))
    reference = ((np.roll(d, 2, axis=1) + np.roll(d, 1, axis=1) + d) <= n).all(axis=1)
    min_l = np.minimum(shifted(1), shifted(2))
    min_r = np.minimum(shifted(-1), shifted(-2))
    seed = ~((n - min_l - min_r) > np.minimum(shifted(1) - min_l, shifted(-1) - min_r)).any(axis=1)
    return reference, seed


def exhaustive(values: int) -> None:
    tail = 8
    rest = np.array(np.unravel_index(np.arange(values**tail), (values,) * tail), dtype=np.int64).T
    start = time.perf_counter()
    total = disagree = layable = 0
    for head in range(values ** (K - tail)):
        n = np.empty((len(rest), K), dtype=np.int64)
        n[:, : K - tail] = np.unravel_index(head, (values,) * (K - tail))
        n[:, K - tail :] = rest
        reference, seed = criteria(n)
        disagree += int((reference != seed).sum())
        layable += int(reference.sum())
        total += len(n)
        for row in range(0, len(n), max(1, len(n) // 7)):  # the numpy criterion is the reference's
            assert bool(reference[row]) == rummy.layable(n[row].tolist())
    print(
        f"all {total:,} vectors with counts 0..{values - 1}: {layable:,} layable, "
        f"seed formula disagrees on {disagree} ({time.perf_counter() - start:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exhaustive", type=int, default=3, metavar="V", help="check all V**13 vectors")
    args = parser.parse_args()
    timings()
    exhaustive(args.exhaustive)


if __name__ == "__main__":
    main()
