"""Benchmark for problem ``memory``: flips of the reference and of the seed's strategies.

Prints, over many random layouts (fixed seed), the mean, spread and maximum number of flips of the
reference strategy, of the seed's naive and improved strategies (Python ports), next to the exact values
(mean of the best strategy, minimax value), and what each one needs against the adaptive adversary.

    python3 bench/memory.py [--layouts 20000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from reference.memory import TIEBREAKS, flips_on, improved_play, naive_play, play, random_layout, simulate
from reference.memory_adversary import AdversaryDealer
from reference.memory_values import greedy_expected_turns, minimax_turns, optimal_expected_turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layouts", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    layouts = [random_layout(rng) for _ in range(args.layouts)]
    print(f"{args.layouts} random layouts (seed {args.seed})")
    print(f"{'strategy':<10} {'mean':>8} {'± s.e.':>7} {'stdev':>6} {'min':>4} {'max':>4} {'>100':>5} {'µs/game':>8}")
    reference_counts: list[int] = []
    for name, strategy in (("reference", play), ("improved", improved_play), ("naive", naive_play)):
        start = time.perf_counter()
        counts = flips_on(strategy, layouts)
        elapsed = time.perf_counter() - start
        if strategy is play:
            reference_counts = counts
        mean = statistics.fmean(counts)
        stdev = statistics.stdev(counts)
        over = sum(1 for c in counts if c > 100)
        print(
            f"{name:<10} {mean:8.3f} {stdev / len(counts) ** 0.5:7.3f} {stdev:6.2f} {min(counts):4d} "
            f"{max(counts):4d} {over:5d} {elapsed / len(counts) * 1e6:8.1f}"
        )
    print(f"exact mean of the reference (greedy):  {2 * greedy_expected_turns(0, 25, 0):.4f} flips")
    print(f"exact mean of the best strategy:       {2 * optimal_expected_turns(0, 25, 0):.4f} flips")
    print(f"minimax (guaranteed by the adversary): {2 * minimax_turns(0, 25, 0)} flips")

    histogram = Counter(reference_counts)
    print("reference flips histogram:")
    peak = max(histogram.values())
    for flips in sorted(histogram):
        bar = "#" * max(1, round(40 * histogram[flips] / peak))
        print(f"  {flips:3d} {histogram[flips]:6d} {bar}")

    print("against the adaptive adversary (seed 1):")
    for tiebreak in TIEBREAKS:
        row = []
        for name, strategy in (("reference", play), ("improved", improved_play), ("naive", naive_play)):
            outcome, _ = simulate(strategy, AdversaryDealer(tiebreak, 1))
            row.append(f"{name} {outcome.flips}")
        print(f"  tie-break {tiebreak:<7} " + ", ".join(row))


if __name__ == "__main__":
    main()
