#!/usr/bin/env python3
"""Search for special deals by seeded hill climbing; writes generators/special_deals.txt.

Random deals almost never empty a pile (about 1 in 20 000 needs a King move), rarely score much, and
have small search spaces, so the interesting tests are searched for: start from a seeded random deal,
swap two cards, keep the swap when the objective does not get worse. Milestones on the way are kept
too, so each kind comes with a spread of scores / sizes.

Kinds (the first word of each line of the output):
  complete  optimal score 52
  climb     on the way to 52 (scores spread over 1..51)
  kings     the optimal score needs King moves (better than the best play that never moves a King)
  choice    the choice of King matters: taking the first King (and also the last King) that can go to an
            empty pile, every time, is worse than optimal
  large     many distinct positions reachable by single moves (the seed's search space), score < 52

Slow (minutes; "large" needs g++: it builds submissions/accepted/seed_dfs.cpp, whose extra "count"
command counts positions). Deterministic for a given argument list. gen.py reads the output; the
tests re-run gen.py, not this.

    python3 problems/klondike/generators/find_deals.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from reference import klondike as K

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent

Deal = list[int]


def greedy_last_score(deal: Sequence[int]) -> int:
    pos = K.Position.start(deal)
    while True:
        pos.close()
        kings = pos.king_moves()
        if not kings:
            return pos.score
        pos.move_king(*kings[-1])


def climb(
    rng: random.Random,
    objective: Callable[[Sequence[Deal]], list[tuple[float, ...]]],
    iters: int,
    batch: int,
    done: Callable[[tuple[float, ...]], bool],
    milestone: Callable[[Deal, tuple[float, ...]], None] | None = None,
    start: Deal | None = None,
) -> tuple[Deal, tuple[float, ...]]:
    deal = list(start) if start else list(K.uniform_deal(rng))
    value = objective([deal])[0]
    for _ in range(iters):
        if done(value):
            break
        candidates = []
        for _ in range(batch):
            cand = deal[:]
            for _ in range(rng.choice((1, 1, 2))):
                i, j = rng.sample(range(52), 2)
                cand[i], cand[j] = cand[j], cand[i]
            candidates.append(cand)
        values = objective(candidates)
        k = max(range(batch), key=lambda i: values[i])
        if values[k] >= value:
            deal, value = candidates[k], values[k]
            if milestone:
                milestone(deal, value)
    return deal, value


def each(f: Callable[[Sequence[int]], tuple[float, ...]]) -> Callable[[Sequence[Deal]], list[tuple[float, ...]]]:
    return lambda deals: [f(d) for d in deals]


def kings_value(d: Sequence[int]) -> tuple[float, ...]:
    r = K.search(d)
    return (r.score - K.search(d, kings="none").score, r.positions, r.score)


def choice_value(d: Sequence[int]) -> tuple[float, ...]:
    r = K.search(d)
    gap = r.score - max(K.greedy_score(d), greedy_last_score(d))
    return (min(gap, 1), r.decisions, r.positions, r.score)


class Counter:
    """Counts the seed's search space with the compiled accepted C++ submission."""

    def __init__(self, workdir: Path, cap: int) -> None:
        self.exe = workdir / "seed_dfs"
        src = PACKAGE / "submissions" / "accepted" / "seed_dfs.cpp"
        subprocess.run(["g++", "-std=gnu++17", "-O2", "-o", str(self.exe), str(src)], check=True)
        self.cap = cap

    def __call__(self, deals: Sequence[Deal]) -> list[tuple[float, ...]]:
        text = f"count {len(deals)} {self.cap}\n" + "".join(K.format_deal(d) + "\n" for d in deals)
        out = subprocess.run([str(self.exe)], input=text, capture_output=True, text=True, check=True).stdout
        values = []
        for line in out.split("\n")[: len(deals)]:
            score, nodes = map(int, line.split())
            values.append((float(nodes) if score < 52 else 0.0,))
        return values


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small budgets (to try it out)")
    ap.add_argument("--out", type=Path, default=HERE / "special_deals.txt")
    ap.add_argument(
        "--large-targets",
        default="20000,100000,400000;50000,150000,300000",
        help="position counts to climb to; chains separated by ';'",
    )
    args = ap.parse_args(argv)
    scale = 10 if args.quick else 1
    lines: list[str] = []

    def emit(kind: str, deal: Sequence[int], note: str) -> None:
        lines.append(f"{kind} {K.format_deal(deal)}  # {note}")
        print(kind, note, file=sys.stderr, flush=True)

    # complete, with milestones at the first deal reaching each score band
    for seed in range(6):
        rng = random.Random(1000 + seed)
        reached: set[int] = set()

        def milestone(deal: Deal, value: tuple[float, ...], reached: set[int] = reached) -> None:
            band = int(value[0]) // 8
            if 0 < value[0] < 52 and band not in reached:
                reached.add(band)
                emit("climb", deal, f"score {int(value[0])}")

        deal, value = climb(
            rng, each(lambda d: (K.optimal_score(d),)), 20000 // scale, 1, lambda v: v[0] >= 52, milestone
        )
        emit("complete" if value[0] == 52 else "climb", deal, f"score {int(value[0])}")

    # King moves needed: stop at several gap targets
    for seed, target in enumerate((1, 3, 6, 10, 20, 30, 45, 52)):
        rng = random.Random(2000 + seed)
        deal, value = climb(rng, each(kings_value), 20000 // scale, 1, lambda v, t=target: v[0] >= t)
        if value[0] > 0:
            emit("kings", deal, f"score {int(value[2])}, {int(value[0])} more than without King moves")

    # the choice of King matters
    for seed in range(8):
        rng = random.Random(3000 + seed)
        deal, value = climb(
            rng, each(choice_value), 30000 // scale, 1, lambda v, s=seed: v[0] >= 1 and v[1] >= 1 + s % 3
        )
        if value[0] >= 1:
            best = K.search(deal)
            emit(
                "choice",
                deal,
                f"score {best.score}, greedy first {K.greedy_score(deal)}, greedy last "
                f"{greedy_last_score(deal)}, {best.positions} positions, {best.decisions} decisions",
            )

    # large search spaces for the seed's method (score < 52 so that it cannot stop early): two chains,
    # each climbing on from its previous milestone
    with tempfile.TemporaryDirectory() as tmp:
        counter = Counter(Path(tmp), cap=0)
        for chain, targets in enumerate(args.large_targets.split(";")):
            rng = random.Random(4000 + chain)
            deal: Deal | None = None
            for target in (int(t) // scale for t in targets.split(",")):
                counter.cap = target * 2
                deal, value = climb(rng, counter, 3000, 4, lambda v, t=target: v[0] >= t, start=deal)
                emit("large", deal, f"score {K.optimal_score(deal)}, {int(value[0])} positions")

    args.out.write_text("# written by find_deals.py; kind, 52 cards, note. Read by gen.py.\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
