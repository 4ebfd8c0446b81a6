"""Exact values of Memory positions: the minimax number of turns, and the expected turns of the reference.

A position between turns is summarised by three counts, which is exact because letters and positions are
interchangeable for a player who remembers everything:

* ``k`` *single* letters: one card seen, the partner never turned;
* ``m`` *fresh* letters: neither card turned yet;
* ``p`` *known* pairs: both cards seen, still in the game.

Every turn has two valid flips (the game ends on a 2nd card), so flips = 2 x turns. In the middle of a
turn the 1st card is either a *single* (its partner unseen) or part of a *known* pair; ``fresh`` says
whether the 1st card was just turned for the first time (then flipping a known card as 2nd card, a
"waste" flip, still makes progress; otherwise it would be a turn that changes nothing, never useful).

:func:`minimax_turns` is the game value when a player minimises the number of turns and an adversary
chooses each newly turned card's letter (consistently) to maximise it: 2n - 1 turns for n >= 1 pairs, so
98 flips for 25 pairs. The adversary in :mod:`reference.memory_adversary` picks the letter that maximises
this value. :func:`greedy_expected_turns` is the exact mean of :func:`reference.memory.play` over uniformly
random layouts (79.66 flips); :func:`optimal_expected_turns` is the best mean of any strategy, the same.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache


@cache
def minimax_turns(k: int, m: int, p: int) -> int:
    """Turns left with best play against the adversary, at the start of a turn."""
    if k == 0 and m == 0 and p == 0:
        return 0
    options = []
    if k + 2 * m > 0:  # turn an unseen card first
        outcomes = []
        if k > 0:  # it completes a single letter
            outcomes.append(minimax_mid_known(k - 1, m, p + 1, fresh=True))
        if m > 0:  # a fresh letter
            outcomes.append(minimax_mid_single(k + 1, m - 1, p, fresh=True))
        options.append(max(outcomes))
        if k > 0:  # turn a single card first again
            options.append(minimax_mid_single(k, m, p, fresh=False))
    if p > 0:  # turn a card of a known pair first
        options.append(minimax_mid_known(k, m, p, fresh=False))
    return min(options)


@cache
def minimax_mid_known(k: int, m: int, p: int, fresh: bool) -> int:
    """Turns left (this one included) when the 1st card belongs to a known pair (counted in p)."""
    options = [1 + minimax_turns(k, m, p - 1)]  # its partner: the pair leaves
    outcomes = []
    if k > 0:
        outcomes.append(1 + minimax_turns(k - 1, m, p + 1))
    if m > 0:
        outcomes.append(1 + minimax_turns(k + 1, m - 1, p))
    if outcomes:
        options.append(max(outcomes))
    if fresh and (k > 0 or p > 1):
        options.append(1 + minimax_turns(k, m, p))
    return min(options)


@cache
def minimax_mid_single(k: int, m: int, p: int, fresh: bool) -> int:
    """Turns left (this one included) when the 1st card is a single letter (counted in k)."""
    outcomes = [1 + minimax_turns(k - 1, m, p)]  # an unseen card: the partner, the pair leaves
    if k > 1:  # the partner of another single letter
        outcomes.append(1 + minimax_turns(k - 1, m, p + 1))
    if m > 0:  # a fresh letter
        outcomes.append(1 + minimax_turns(k + 1, m - 1, p))
    options = [max(outcomes)]
    if fresh and (k > 1 or p > 0):
        options.append(1 + minimax_turns(k, m, p))
    return min(options)


@cache
def greedy_expected_turns(k: int, m: int, p: int) -> float:
    """Expected turns left for the reference strategy on a uniformly random layout."""
    if p > 0:
        return 1 + greedy_expected_turns(k, m, p - 1)
    unseen = k + 2 * m
    if unseen == 0:
        return 0.0
    value = 0.0
    if k > 0:  # the 1st card completes a single letter: take the pair
        value += k / unseen * (1 + greedy_expected_turns(k - 1, m, p))
    if m > 0:
        value += 2 * m / unseen * _second_unseen(k, m, p, greedy_expected_turns)
    return value


def _second_unseen(k: int, m: int, p: int, f: Callable[[int, int, int], float]) -> float:
    """Expected turns when the 1st card was fresh and the 2nd is an unseen card (k, m before the 1st)."""
    rest = k + 2 * m - 1
    value = 1 / rest * (1 + f(k, m - 1, p))  # the partner
    if k > 0:
        value += k / rest * (1 + f(k, m - 1, p + 1))
    if m > 1:
        value += (2 * m - 2) / rest * (1 + f(k + 2, m - 2, p))
    return value


@cache
def optimal_expected_turns(k: int, m: int, p: int) -> float:
    """The least expected number of turns of any strategy (every move considered) on a random layout."""
    if k == 0 and m == 0 and p == 0:
        return 0.0
    f = optimal_expected_turns
    unseen = k + 2 * m
    options = []
    if p > 0:
        options.append(1 + f(k, m, p - 1))
    if unseen > 0:
        value = 0.0
        if k > 0:
            value += k / unseen * (1 + f(k - 1, m, p))
        if m > 0:
            second = _second_unseen(k, m, p, f)
            if k > 0 or p > 0:  # or waste the 2nd flip on a known card
                second = min(second, 1 + f(k + 1, m - 1, p))
            value += 2 * m / unseen * second
        options.append(value)
    if k > 0 and unseen > 0:  # a single card first, then an unseen card
        value = 1 / unseen * (1 + f(k - 1, m, p))
        if k > 1:
            value += (k - 1) / unseen * (1 + f(k - 1, m, p + 1))
        if m > 0:
            value += 2 * m / unseen * (1 + f(k + 1, m - 1, p))
        options.append(value)
    return min(options)
