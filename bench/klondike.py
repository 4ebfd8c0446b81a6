#!/usr/bin/env python3
"""Benchmark and statistics of the klondike reference (reference/klondike.py).

Solves N uniformly random deals (the reference's stream for a seed: random.Random(seed), Fisher-Yates)
and prints deals/s, the largest searches seen, mean / std / standard errors of the optimal score, the
share of deals with no move at the start (exact value 0.2167913), how often King moves matter, and the
size of the seed's naive search space (single moves + table) on a sample. With --json it writes the
figures the stats validator reads (problems/klondike/output_validator/klondike_validator/
reference_values.json); the stored file was made with

    python3 bench/klondike.py --deals 1000000 --seed 2026 \
        --json problems/klondike/output_validator/klondike_validator/reference_values.json

and the same command reproduces it exactly (any --workers).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference import klondike as K  # noqa: E402

Row = tuple[int, int, int, int, bool, int, int]  # score, positions, decisions, moves, no move, no-King, greedy


def solve_one(deal: Sequence[int]) -> Row:
    r = K.search(deal)
    no_king = greedy = r.score
    if r.positions > 1:  # a King moved somewhere: what if none had, or the first one always had
        no_king = K.search(deal, kings="none").score
        greedy = K.greedy_score(deal)
    return (r.score, r.positions, r.decisions, r.moves, K.no_move_at_start(deal), no_king, greedy)


def solve_chunk(deals: list[tuple[int, ...]]) -> list[Row]:
    return [solve_one(d) for d in deals]


def chunks(n: int, seed: int, size: int, seed_shuffle: bool) -> Iterator[list[tuple[int, ...]]]:
    if seed_shuffle:
        rng = random.Random(seed)
        stream: Iterator[tuple[int, ...]] = (K.seed_shuffle_deal(rng) for _ in range(n))
    else:
        stream = K.deals_for_seed(n, seed)
    chunk: list[tuple[int, ...]] = []
    for d in stream:
        chunk.append(d)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def naive_space(n: int, seed: int, node_limit: int) -> tuple[int, float, int]:
    """Largest and mean number of distinct positions of the seed's search (every single move, with a table)
    over the first n deals of another stream; and how many went over node_limit."""
    sizes = []
    over = 0
    for d in K.deals_for_seed(n, seed + 1):
        try:
            sizes.append(K.exhaustive(d, node_limit=node_limit).nodes)
        except K.SearchLimitExceeded:
            over += 1
    return max(sizes), sum(sizes) / len(sizes), over


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--space-sample", type=int, default=2000, help="deals for the naive search space figure")
    ap.add_argument("--seed-shuffle", action="store_true", help="deal with the seed's (non-uniform) shuffle")
    ap.add_argument("--json", type=Path, help="write the reference values for the stats validator here")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    rows: list[Row] = []
    source = chunks(args.deals, args.seed, 2000, args.seed_shuffle)
    if args.workers > 1:
        with Pool(args.workers) as pool:
            for part in pool.imap(solve_chunk, source):
                rows.extend(part)
    else:
        for part in map(solve_chunk, source):
            rows.extend(part)
    elapsed = time.perf_counter() - t0

    scores = [r[0] for r in rows]
    s = K.summarize(scores)
    n = len(rows)
    no_move = sum(r[4] for r in rows)
    share = no_move / n
    share_se = (K.no_move_probability() * (1 - K.no_move_probability()) / n) ** 0.5
    king_used = sum(r[1] > 1 for r in rows)
    king_needed = sum(r[5] < r[0] for r in rows)
    greedy_worse = sum(r[6] < r[0] for r in rows)
    biggest = max(rows, key=lambda r: r[1])
    hist = Counter(scores)

    shuffle = "seed's shuffle (non-uniform)" if args.seed_shuffle else "uniform (Fisher-Yates)"
    print(f"deals {n}, seed {args.seed}, {shuffle}, {args.workers} worker(s)")
    print(f"time {elapsed:.1f} s: {n / elapsed:.0f} deals/s (dealing included)")
    print(
        f"optimal score: mean {s.mean:.5f} (se {s.mean_se:.5f}), std {s.std:.5f} (se {s.std_se:.5f}), "
        f"4th central moment {s.fourth:.3f}"
    )
    print(
        f"no move at the start: {share:.5f} (exact {K.no_move_probability():.5f}, "
        f"z = {(share - K.no_move_probability()) / share_se:+.2f})"
    )
    print(
        f"mean moves on the line found {sum(r[3] for r in rows) / n:.4f}, "
        f"mean King decision points {sum(r[2] for r in rows) / n:.6f}"
    )
    print(
        f"King moves: made in {king_used} deals, needed for the optimum in {king_needed}, "
        f"greedy (first King) worse in {greedy_worse}"
    )
    print(f"largest reference search: {biggest[1]} positions ({biggest[2]} decisions, score {biggest[0]})")
    print("histogram: " + " ".join(f"{k}:{hist[k]}" for k in sorted(hist)))
    if args.space_sample:
        t1 = time.perf_counter()
        big, mean_space, over = naive_space(args.space_sample, args.seed, 200_000)
        print(
            f"seed's naive search (every move, with a table) on {args.space_sample} other deals: "
            f"largest {big} positions, mean {mean_space:.1f}, over 200000: {over} "
            f"({args.space_sample / (time.perf_counter() - t1):.0f} deals/s)"
        )

    if args.json:
        values = {
            "n": n,
            "seed": args.seed,
            "shuffle": "seed" if args.seed_shuffle else "uniform",
            "mean": s.mean,
            "std": s.std,
            "mean_se": s.mean_se,
            "std_se": s.std_se,
            "fourth_central_moment": s.fourth,
            "no_move_share": share,
            "histogram": {str(k): hist[k] for k in sorted(hist)},
            "how": (
                f"python3 bench/klondike.py --deals {n} --seed {args.seed} --json <this file>: the exact optimal "
                "score (reference/klondike.py) of each of n uniformly random deals from random.Random(seed) "
                "(random.shuffle of the cards AS..KS AH..KH AD..KD AC..KC); std is the population std; "
                "mean_se = std/sqrt(n); std_se from the 4th central moment (delta method)"
            ),
        }
        args.json.write_text(json.dumps(values, indent=2) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
