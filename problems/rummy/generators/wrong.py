"""Plausible wrong ideas for rummy, as functions: the generator picks tests that expose them.

Each returns True for "layable". The same ideas are submissions in ``submissions/wrong_answer/``.
"""

from __future__ import annotations

from collections.abc import Sequence

NUMBERS = 13


def no_wrap(counts: Sequence[int]) -> bool:
    """Exact for a line 1..13, but 13 is not followed by 1 (runs like ``12 13 1`` are not allowed)."""
    n = [0, 0, *counts, 0, 0]  # a line padded with numbers that have no cards
    d = [0] + [max(0, n[i] - n[i - 1]) for i in range(1, len(n))]
    return all(d[i - 2] + d[i - 1] + d[i] <= n[i] for i in range(2, len(n)))


def count_check(counts: Sequence[int]) -> bool:
    """Every count is 0 or at least 3 (true for layable single numbers, wrong in general)."""
    return all(c == 0 or c >= 3 for c in counts)


def greedy_longest_run(counts: Sequence[int]) -> bool:
    """Repeatedly lay the longest run available (first one on ties) until no card is left.

    The longest run available is the longest stretch of consecutive numbers (13 followed by 1) that
    all still have cards, at most all 13 numbers. Fails when it is shorter than 3.
    """
    n = list(counts)
    while any(n):
        best_start, best_len = 0, 0
        for start in range(NUMBERS):
            length = 0
            while length < NUMBERS and n[(start + length) % NUMBERS] > 0:
                length += 1
            if length > best_len:
                best_start, best_len = start, length
        if best_len < 3:
            return False
        for p in range(best_start, best_start + best_len):
            n[p % NUMBERS] -= 1
    return True


WRONG_IDEAS = {
    "no_wrap": no_wrap,
    "count_check": count_check,
    "greedy_longest_run": greedy_longest_run,
}
