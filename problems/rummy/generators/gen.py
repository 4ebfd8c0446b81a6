#!/usr/bin/env python3
"""Writes the rummy test data: ``gen.py [DATA_DIR]`` (default: the package's ``data/``).

Fixed seeds, so the output is the same on every run; the data is committed and a test checks that
this script reproduces it exactly. Answers come from ``reference.rummy``; every group holds as many
layable tests as unlayable ones, and the tests chosen at random are picked so that the wrong ideas in
``wrong.py`` (no wrap-around, "every count is 0 or >= 3", greedy longest run first) fail in every group.
"""

from __future__ import annotations

import random
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from reference import rummy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wrong import count_check, greedy_longest_run, no_wrap  # noqa: E402

K = rummy.NUMBERS
Counts = tuple[int, ...]
Check = Callable[[Counts], bool]

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
SECRET_TESTDATA = "# the problem's score: the sum of the three groups'\nrange: 0 100\ngrader_flags: sum first_error\n"

# group folder -> (testdata.yaml text, constraint on the counts)
GROUPS: dict[str, tuple[str, Check]] = {
    "1-linear": (
        "# no card 13, so no run can wrap around from 13 to 1\n"
        "range: 0 20\naccept_score: 20\ngrader_flags: min first_error\non_reject: break\n"
        "input_validator_flags: linear\n",
        lambda n: n[12] == 0,
    ),
    "2-small": (
        "# every count is at most 4\n"
        "range: 0 30\naccept_score: 30\ngrader_flags: min first_error\non_reject: break\n"
        "input_validator_flags: max 4\n",
        lambda n: max(n) <= 4,
    ),
    "3-full": (
        "# counts up to 100\nrange: 0 50\naccept_score: 50\ngrader_flags: min first_error\non_reject: break\n",
        lambda n: max(n) <= rummy.MAX_COUNT,
    ),
}


def single(index: int, count: int) -> Counts:
    """Cards of one number only (``index`` 0-based)."""
    return tuple(count if i == index else 0 for i in range(K))


def rotate(counts: Sequence[int], shift: int) -> Counts:
    """The counts moved ``shift`` numbers up (13 wraps to 1)."""
    return tuple(counts[(i - shift) % K] for i in range(K))


def random_runs(
    rng: random.Random,
    bundles: int,
    max_len: int,
    max_copies: int = 1,
    *,
    linear: bool = False,
    cross: bool = False,
) -> Counts:
    """The counts of ``bundles`` random runs of 3..max_len cards, each laid 1..max_copies times.

    ``linear``: no run contains 13. ``cross``: every run contains 13 and 1 (it wraps around).
    Copies of a run make steep rises and falls, where one card more or less matters.
    """
    n = [0] * K
    for _ in range(bundles):
        length = rng.randint(3, max_len)
        copies = rng.randint(1, max_copies)
        if linear:
            length = min(length, K - 1)
            first = rng.randint(0, K - 1 - length)
        elif cross:
            first = rng.randint(K - length + 1, K - 1) if length < K else rng.randrange(K)
        else:
            first = rng.randrange(K)
        for p in range(first, first + length):
            n[p % K] += copies
    return tuple(n)


def near_miss(rng: random.Random, counts: Counts, allowed: Check) -> Counts:
    """``counts`` with one card added or removed such that it is not layable (and still ``allowed``)."""
    moves = [(i, delta) for i in range(K) for delta in (-1, 1)]
    rng.shuffle(moves)
    for i, delta in moves:
        n = list(counts)
        n[i] += delta
        if n[i] >= 0 and allowed(tuple(n)) and not rummy.layable(n):
            return tuple(n)
    raise ValueError(f"no unlayable neighbour of {counts}")


def has_near_miss(counts: Counts, allowed: Check) -> bool:
    try:
        near_miss(random.Random(0), counts, allowed)
    except ValueError:
        return False
    return True


def pick(rng: random.Random, make: Callable[[], Counts], want: Check, tries: int = 100_000) -> Counts:
    """The first counts from ``make()`` that satisfy ``want`` (deterministic for a seeded ``rng``)."""
    for _ in range(tries):
        n = make()
        if want(n):
            return n
    raise RuntimeError("no suitable counts found")


def fits(limit: int, also: Check = lambda n: True) -> Check:
    return lambda n: max(n) <= limit and also(n)


def sample_cases() -> list[tuple[str, Counts]]:
    return [
        ("01-seed-example", (4, 9, 34, 75, 10, 90, 45, 23, 7, 76, 25, 19, 95)),
        ("02-two-runs-share-a-three", (1, 1, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)),
        ("03-wrap-12-13-1", (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)),
        ("04-two-runs-stuck", (0, 0, 0, 0, 2, 2, 1, 1, 1, 0, 0, 0, 0)),
    ]


def linear_cases() -> list[tuple[str, Counts]]:
    rng = random.Random(1301)
    ok = GROUPS["1-linear"][1]
    big = pick(
        rng,
        lambda: random_runs(rng, 6, 12, 40, linear=True),
        fits(100, lambda n: max(n) >= 80 and has_near_miss(n, ok)),
    )
    big_greedy = pick(
        rng,
        lambda: random_runs(rng, 10, 6, 20, linear=True),
        fits(100, lambda n: not greedy_longest_run(n) and has_near_miss(n, ok)),
    )
    return [
        ("01-all-zeros", (0,) * K),
        ("02-single-count", single(6, 7)),
        ("03-one-to-twelve", (1,) * 12 + (0,)),
        ("04-pair-of-big-counts", single(3, 5)[:4] + (5,) + (0,) * 8),
        ("05-greedy-longest-fails", (3, 3, 6, 3, 3) + (0,) * 8),
        ("06-counts-at-least-three-stuck", (3, 3, 3, 4) + (0,) * 9),
        ("07-random-runs", big),
        ("08-random-runs-near-miss", near_miss(rng, big, ok)),
        ("09-random-short-runs", big_greedy),
        ("10-random-short-runs-near-miss", near_miss(rng, big_greedy, ok)),
    ]


def small_cases() -> list[tuple[str, Counts]]:
    rng = random.Random(1302)
    ok = GROUPS["2-small"][1]

    def crossing() -> Counts:
        return random_runs(rng, rng.randint(2, 4), 6, 2, cross=True)

    wrap1 = pick(rng, crossing, fits(4, lambda n: not no_wrap(n) and not count_check(n)))
    wrap2 = pick(rng, crossing, fits(4, lambda n: not no_wrap(n) and not greedy_longest_run(n)))
    plain = pick(
        rng,
        lambda: tuple(rng.choice((0, 1, 2, 3, 4)) for _ in range(K)),
        lambda n: not rummy.layable(n) and sum(n) > 20,
    )
    cases = [
        ("01-wrap-13-1-2", (1, 1) + (0,) * 10 + (1,)),
        ("02-wrap-broken", (1, 1) + (0,) * 10 + (2,)),
        ("03-all-ones", (1,) * K),
        ("04-all-ones-two-gaps", (0, 1, 1, 0) + (1,) * 9),
        ("05-all-twos", (2,) * K),
        ("06-greedy-fails-across-wrap", rotate((1, 1, 2, 1, 1) + (0,) * 8, 11)),
        ("07-single-four", single(0, 4)),
        ("08-random-wrapping-runs", wrap1),
        ("09-random-wrapping-runs-near-miss", near_miss(rng, wrap1, ok)),
        ("10-random-wrapping-runs", wrap2),
        ("11-random-wrapping-runs-near-miss", near_miss(rng, wrap2, ok)),
        ("12-random-counts", plain),
    ]
    for name, n in cases:  # small enough for the exhaustive search: the answers are double-checked
        assert rummy.layable(n) == rummy.layable_search(n), name
    return cases


def full_cases() -> list[tuple[str, Counts]]:
    rng = random.Random(1303)
    ok = GROUPS["3-full"][1]
    hundreds_gaps = [100] * K
    hundreds_gaps[2] = hundreds_gaps[5] = 0
    big_greedy = tuple(30 * c for c in (1, 1, 2, 1, 1)) + (0,) * 8
    wrapping = pick(
        rng,
        lambda: random_runs(rng, 8, 10, 30, cross=True),
        fits(100, lambda n: max(n) >= 80 and has_near_miss(n, ok)),
    )
    cases: list[tuple[str, Counts]] = [
        ("01-all-hundreds", (100,) * K),
        ("02-hundreds-and-a-one", (100,) * 6 + (1,) + (100,) * 6),
        ("03-hundreds-with-two-gaps", tuple(hundreds_gaps)),
        ("04-single-hundred", single(9, 100)),
        ("05-seed-example", (4, 9, 34, 75, 10, 90, 45, 23, 7, 76, 25, 19, 95)),
        ("06-greedy-fails-across-wrap", rotate(big_greedy, 11)),
        ("07-random-wrapping-runs", wrapping),
        ("08-random-wrapping-runs-near-miss", near_miss(rng, wrapping, ok)),
    ]
    for i, (bundles, max_len, copies) in enumerate([(6, 13, 40), (10, 8, 30), (14, 6, 25), (30, 5, 8)]):
        n = pick(
            rng,
            lambda b=bundles, m=max_len, c=copies: random_runs(rng, b, m, c),
            fits(100, lambda n: max(n) >= 60 and has_near_miss(n, ok)),
        )
        cases.append((f"{9 + 2 * i:02d}-random-runs", n))
        cases.append((f"{10 + 2 * i:02d}-random-runs-near-miss", near_miss(rng, n, ok)))
    return cases


def write_group(folder: Path, cases: list[tuple[str, Counts]], testdata: str | None) -> None:
    folder.mkdir(parents=True)
    if testdata is not None:
        (folder / "testdata.yaml").write_text(testdata)
    for name, counts in cases:
        (folder / f"{name}.in").write_text(rummy.format_input(counts))
        (folder / f"{name}.ans").write_text(f"{rummy.exit_status(counts)}\n")


def main(argv: Sequence[str]) -> int:
    data = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "data"
    for sub in ("sample", "secret"):
        if (data / sub).exists():
            shutil.rmtree(data / sub)
    write_group(data / "sample", sample_cases(), SAMPLE_TESTDATA)
    (data / "testdata.yaml").write_text(ROOT_TESTDATA)
    makers = {"1-linear": linear_cases, "2-small": small_cases, "3-full": full_cases}
    for group, (testdata, allowed) in GROUPS.items():
        cases = makers[group]()
        for name, counts in cases:
            assert allowed(counts), (group, name, counts)
        layable = sum(rummy.layable(c) for _, c in cases)
        assert 2 * layable == len(cases), (group, layable, len(cases))
        write_group(data / "secret" / group, cases, testdata)
    (data / "secret" / "testdata.yaml").write_text(SECRET_TESTDATA)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
