"""Rummy numbers: can every card be laid in runs?

``counts[i]`` is the number of cards showing ``i + 1`` (13 numbers, all of one colour). A *run* is at
least three cards of consecutive numbers, where 13 is followed by 1 again (``12 13 1`` is a run). The
cards are *layable* when they can be split into runs so that every card is in exactly one run; no cards
at all is layable.

Three independent exact methods, and a constructive one:

- :func:`layable` -- a closed criterion, O(13). Let ``d[i] = max(0, counts[i] - counts[i-1])`` (indices
  modulo 13). The cards are layable iff ``d[i-2] + d[i-1] + d[i] <= counts[i]`` for every ``i``.

  Proof. Take any layout and let ``x[i]`` be the number of runs whose first card is at ``i``. Runs
  that are present at ``i`` but not at ``i+1`` end at ``i``; every run present at ``i - 1`` and not
  ending there is present at ``i``, so ``counts[i] = counts[i-1] - ends[i-1] + x[i]``, which gives
  ``x[i] >= counts[i] - counts[i-1]``, i.e. ``x[i] >= d[i]``. A run that starts at ``i - 2``, ``i - 1`` or
  ``i`` is present at ``i`` (it has at least three cards), so ``x[i-2] + x[i-1] + x[i] <= counts[i]``,
  and the same holds with ``d`` in place of ``x``. Conversely, if ``d`` satisfies the inequalities,
  start ``d[i]`` runs at every ``i`` and end ``e[i] = counts[i] - counts[i+1] + d[i+1] >= 0`` runs at
  ``i``: the runs present at ``i`` that started at ``i - 2`` or earlier number
  ``counts[i] - d[i] - d[i-1]``, which is ``>= e[i]`` by the inequality at ``i + 1``, so the ending
  runs can all be at least three cards long. What is left over are closed chains that go round the
  circle (one card of every number each time round), each of which is a run of 13 cards (or is cut
  into runs of 3, 3, 3 and 4). :func:`layout` builds exactly this layout.

- :func:`layable_dp` -- a DP over the cycle that models the runs directly: the state at a number is
  how many runs there have 1, 2 and at least 3 cards so far; the state at one cut point is guessed.
  Cost O(c^2 * 13 * C) for the smallest count c and the largest C; fine for tests.

- :func:`layable_search` -- exhaustive search: the smallest number that still has cards must be in a
  run of 3, 4 or 5 cards (longer runs split into such runs) that covers it; try each. Exponential; for
  small counts (a total of about 40 cards).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

NUMBERS = 13  # card numbers 1..13
MAX_COUNT = 100  # the problem's bound on each count
MIN_RUN = 3
# Any run of L >= 3 cards splits into runs of 3, 4 or 5 cards, so these lengths are enough.
RUN_LENGTHS = (3, 4, 5)

Run = tuple[int, int]  # (first number 1..13, length in cards); the run may wrap from 13 to 1


def check_counts(counts: Sequence[int], *, max_count: int | None = MAX_COUNT) -> tuple[int, ...]:
    """The counts as a tuple, or ValueError when they are not 13 counts in 0..max_count."""
    result = tuple(int(c) for c in counts)
    if len(result) != NUMBERS:
        raise ValueError(f"expected {NUMBERS} counts, got {len(result)}")
    for c in result:
        if c < 0 or (max_count is not None and c > max_count):
            raise ValueError(f"count {c} out of range 0..{max_count}")
    return result


def starts(counts: Sequence[int]) -> list[int]:
    """``d[i] = max(0, counts[i] - counts[i-1])``: the fewest runs any layout starts at number ``i+1``."""
    k = len(counts)
    return [max(0, counts[i] - counts[i - 1]) for i in range(k)]


def violation(counts: Sequence[int]) -> int | None:
    """The first index ``i`` (0-based) where ``d[i-2] + d[i-1] + d[i] > counts[i]``, or None if layable."""
    n = check_counts(counts, max_count=None)
    d = starts(n)
    for i in range(NUMBERS):
        if d[i - 2] + d[i - 1] + d[i] > n[i]:
            return i
    return None


def layable(counts: Sequence[int]) -> bool:
    """Whether the cards can be laid in runs (the closed criterion; see the module docstring)."""
    return violation(counts) is None


def exit_status(counts: Sequence[int]) -> int:
    """The problem's answer: 0 when layable, 1 when not."""
    return 0 if layable(counts) else 1


def layout(counts: Sequence[int]) -> list[Run] | None:
    """An explicit layout in runs of 3..5 cards, or None when there is none.

    Follows the proof in the module docstring card by card: at number ``i`` the cards are slots
    ``0..counts[i]-1``; slots ``[0, d[i])`` start a run, the next ``d[i-1]`` slots are runs on their second
    card, the rest are runs with three or more cards, of which the first ``e[i]`` end at ``i``.
    """
    n = check_counts(counts, max_count=None)
    if not layable(n):
        return None
    k = NUMBERS
    d = starts(n)
    ends = [n[i] - n[(i + 1) % k] + d[(i + 1) % k] for i in range(k)]
    # nxt[i][slot] = the slot at number i+1 of the card that follows this one in its run, or -1.
    nxt: list[list[int]] = []
    for i in range(k):
        j = (i + 1) % k
        links = [-1] * n[i]
        for s in range(d[i]):  # first card -> second card
            links[s] = d[j] + s
        for s in range(d[i], d[i] + d[i - 1]):  # second card -> third card: first slots of j's pool
            links[s] = d[j] + d[i] + (s - d[i])
        pool = range(d[i] + d[i - 1], n[i])
        for rank, s in enumerate(pool):  # the first ends[i] of the pool end here, the rest move on
            if rank >= ends[i]:
                links[s] = d[j] + d[i] + d[i - 1] + (rank - ends[i])
        nxt.append(links)
    seen = [[False] * n[i] for i in range(k)]
    chains: list[Run] = []

    def follow(i: int, s: int) -> int:
        length = 0
        while s != -1 and not seen[i][s]:
            seen[i][s] = True
            length += 1
            i, s = (i + 1) % k, nxt[i][s]
        return length

    for i in range(k):
        for s in range(d[i]):
            chains.append((i, follow(i, s)))
    for i in range(k):  # closed chains: they go round the circle, a multiple of 13 cards each
        for s in range(n[i]):
            if not seen[i][s]:
                chains.append((i, follow(i, s)))
    runs: list[Run] = []
    for first, length in chains:
        assert length >= MIN_RUN, (first, length)
        while length > 5:
            runs.append((first + 1, 3))
            first, length = (first + 3) % k, length - 3
        runs.append((first + 1, length))
    return runs


def counts_of(runs: Sequence[Run]) -> tuple[int, ...]:
    """The counts of the cards of some runs (first number 1..13, length)."""
    n = [0] * NUMBERS
    for first, length in runs:
        for p in range(first - 1, first - 1 + length):
            n[p % NUMBERS] += 1
    return tuple(n)


def layable_dp(counts: Sequence[int]) -> bool:
    """DP over the cycle: the state at a number is (runs on their 1st card, runs on their 2nd card).

    The runs with three or more cards there are the rest. From state (a1, a2) at ``i`` with
    ``a3 = counts[i] - a1 - a2``, the ``a1 + a2`` young runs must go on to ``i+1``, any ``c`` in
    ``0..a3`` of the old ones go on, and ``b1 = counts[i+1] - a1 - a2 - c >= 0`` runs start at ``i+1``:
    the new state is ``(b1, a1)``, so ``b1`` ranges over ``max(0, counts[i+1] - counts[i])`` up to
    ``counts[i+1] - a1 - a2``. For a fixed ``a1`` the smaller ``a2`` reaches a superset, so per ``a1`` only
    the least reachable ``a2`` is kept. The state at the number with the fewest cards is guessed and
    must be reached exactly after going round the circle once.
    """
    n = check_counts(counts, max_count=None)
    k = NUMBERS
    cut = min(range(k), key=lambda i: n[i])
    order = [n[(cut + t) % k] for t in range(k)]
    inf = 1 << 30
    for g1 in range(order[0] + 1):
        for g2 in range(order[0] - g1 + 1):
            # least[a1] = the least a2 with (a1, a2) reachable at the current number (inf: none)
            least = [inf] * (order[0] + 1)
            least[g1] = g2
            for t in range(1, k):
                least = _dp_step(least, order[t - 1], order[t], inf)
            # Back at the cut: (g1, g2) is reached from (g2, a2) at the number before it iff
            # max(0, order[0] - order[-1]) <= g1 <= order[0] - g2 - a2 for some reachable a2.
            if g2 < len(least) and least[g2] != inf:
                if max(0, order[0] - order[-1]) <= g1 <= order[0] - g2 - least[g2]:
                    return True
    return False


def _dp_step(least: list[int], cur: int, new: int, inf: int) -> list[int]:
    """One step of :func:`layable_dp`: ``nxt[b1]`` = the least ``a1`` from which ``b1`` can be reached."""
    lo = max(0, new - cur)
    nxt = [inf] * (new + 1)
    b1 = lo  # every b1 below this already has its least a1 (a1 ascending, so the first hit is least)
    for a1, a2 in enumerate(least):
        if a2 == inf:
            continue
        hi = new - a1 - a2
        while b1 <= hi:
            nxt[b1] = a1
            b1 += 1
    return nxt


def layable_search(counts: Sequence[int]) -> bool:
    """Exhaustive search over runs of 3..5 cards (memoised). For small counts only."""
    return _search(check_counts(counts, max_count=None))


@lru_cache(maxsize=1 << 18)
def _search(n: tuple[int, ...]) -> bool:
    if not any(n):
        return True
    k = len(n)
    i = next(j for j in range(k) if n[j] > 0)
    for first in range(i - max(RUN_LENGTHS) + 1, i + 1):
        for length in RUN_LENGTHS:
            if first + length <= i:
                continue
            rest = list(n)
            ok = True
            for p in range(first, first + length):
                rest[p % k] -= 1
                ok = ok and rest[p % k] >= 0
            if ok and _search(tuple(rest)):
                return True
    return False


def format_input(counts: Sequence[int]) -> str:
    """The text of a test's .in file: the 13 counts on one line."""
    return " ".join(str(c) for c in counts) + "\n"


def parse_input(text: str | bytes) -> tuple[int, ...]:
    """The counts from a test's .in text (13 integers separated by white space)."""
    if isinstance(text, bytes):
        text = text.decode("ascii")
    return check_counts([int(tok) for tok in text.split()])
