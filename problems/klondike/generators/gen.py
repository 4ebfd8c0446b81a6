#!/usr/bin/env python3
"""Writes data/sample and data/secret/{solve,stats} for klondike. Fixed seeds: the output is the same on
every run (tests/test_klondike_package.py checks it against the committed data).

    python3 problems/klondike/generators/gen.py [--out DATA_DIR]

Special deals (needing King moves, King choices, complete games, large search spaces) come from
special_deals.txt, written by find_deals.py (slow; not re-run here). A suit relabelling keeps the
optimal score, so the mixed test uses relabelled copies of them besides fresh random deals.
"""

from __future__ import annotations

import argparse
import random
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from reference import klondike as K

HERE = Path(__file__).resolve().parent
SOLVE_MAX_DEALS = 1000

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
SECRET_YAML = """\
# the problem's score: the sum of the two subtasks'
range: 0 100
grader_flags: sum first_error
"""
SOLVE_YAML = """\
# subtask 1: exact optimal scores; every test must be right
range: 0 60
accept_score: 60
grader_flags: min first_error
# one rejected test makes the subtask 0 anyway: judging it stops there
on_reject: break
"""
STATS_YAML = """\
# subtask 2: mean and std of the optimal score over the program's own N random deals, accepted within a
# tolerance from N and output_validator/klondike_validator/reference_values.json (see the README)
range: 0 40
accept_score: 40
grader_flags: min first_error
on_reject: break
"""


def special_deals() -> dict[str, list[tuple[int, ...]]]:
    kinds: dict[str, list[tuple[int, ...]]] = {}
    for line in (HERE / "special_deals.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            kind, cards = line.split(None, 1)
            kinds.setdefault(kind, []).append(K.parse_deal(cards))
    return kinds


def sorted_deal() -> tuple[int, ...]:
    """Dealt so that the tops are AS..7S, the cards under them 8S..KS, AH: everything comes out."""
    return tuple(51 - k for k in range(52))


def no_move_deal() -> tuple[int, ...]:
    """Tops KS JS 9S KH JH 9H KD: no ace, no two of one suit a rank apart, no empty pile."""
    tops = [K.parse_card(c) for c in "KS JS 9S KH JH 9H KD".split()]
    rest = [c for c in K.DECK if c not in tops]
    # tops are the cards dealt last: positions 45..51 go to piles 3,4,5,6,0,1,2
    return tuple(rest + [tops[(k - 45 + 3) % 7] for k in range(45, 52)])


def relabel(deal: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    """The same deal with suit s renamed perm[s]."""
    return tuple(perm[c // 13] * 13 + c % 13 for c in deal)


def solve_case(deals: Sequence[Sequence[int]]) -> tuple[str, str]:
    assert 1 <= len(deals) <= SOLVE_MAX_DEALS
    text = f"solve {len(deals)}\n" + "".join(K.format_deal(d) + "\n" for d in deals)
    answer = "".join(f"{K.optimal_score(d)}\n" for d in deals)
    return text, answer


def stats_case(n: int, seed: int) -> tuple[str, str]:
    summary = K.summarize([K.optimal_score(d) for d in K.deals_for_seed(n, seed)])
    # the .ans is the reference's own estimate for this N and seed (informative: the validator compares
    # with the high-precision values in reference_values.json)
    return f"stats {n} {seed}\n", f"{summary.mean:.6f} {summary.std:.6f}\n"


def write(folder: Path, name: str, case: tuple[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.in").write_text(case[0])
    (folder / f"{name}.ans").write_text(case[1])


def random_deals(seed: int, n: int) -> list[tuple[int, ...]]:
    return list(K.deals_for_seed(n, seed))


def take(it: Iterable[tuple[int, ...]], pred: Callable[[tuple[int, ...]], bool], n: int) -> list[tuple[int, ...]]:
    out = []
    for d in it:
        if pred(d):
            out.append(d)
            if len(out) == n:
                break
    return out


def generate(data: Path) -> None:
    if data.exists():
        shutil.rmtree(data)
    sp = special_deals()
    rng = random.Random(20261121)

    # samples: a complete game, a deal without a move, a deal that needs a King moved, two random deals
    write(data / "sample", "1", solve_case([sorted_deal(), no_move_deal(), sp["kings"][0], *random_deals(1, 2)]))
    write(data / "sample", "2", stats_case(1000, 1))

    (data / "testdata.yaml").write_text(ROOT_TESTDATA)
    (data / "sample" / "testdata.yaml").write_text(SAMPLE_TESTDATA)
    solve = data / "secret" / "solve"
    solve.mkdir(parents=True)
    (data / "secret" / "testdata.yaml").write_text(SECRET_YAML)
    (solve / "testdata.yaml").write_text(SOLVE_YAML)
    write(solve, "01_random", solve_case(random_deals(101, 400)))
    no_move = take(K.deals_for_seed(10**6, 102), K.no_move_at_start, 60)
    one_move = take(K.deals_for_seed(10**6, 103), lambda d: len(K.Position.start(d).moves()) == 1, 40)
    write(solve, "02_no_move", solve_case([no_move_deal(), *no_move, *one_move]))
    write(solve, "03_complete", solve_case([sorted_deal(), *sp["complete"], *sp["climb"]]))
    write(solve, "04_kings", solve_case(sp["kings"]))
    write(solve, "05_king_choice", solve_case(sp["choice"]))
    large = sp["large"]
    write(solve, "06_large_a", solve_case(large[: len(large) // 2]))  # find_deals.py's first chain
    write(solve, "07_large_b", solve_case(large[len(large) // 2 :]))
    small_specials = [d for kind in ("complete", "climb", "kings", "choice") for d in sp[kind]]
    mixed = random_deals(108, 600)
    for _ in range(400):
        perm = list(range(4))
        rng.shuffle(perm)
        mixed.append(relabel(rng.choice(small_specials), perm))
    rng.shuffle(mixed)
    write(solve, "08_mixed", solve_case(mixed))

    stats = data / "secret" / "stats"
    stats.mkdir(parents=True)
    (stats / "testdata.yaml").write_text(STATS_YAML)
    write(stats, "01_small", stats_case(2000, 2026))
    write(stats, "02_medium", stats_case(10000, 7))
    write(stats, "03_large", stats_case(20000, 123456789))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=HERE.parent / "data")
    generate(ap.parse_args(argv).out)


if __name__ == "__main__":
    main()
