"""The adaptive adversary of problem ``memory``, and the check that it stayed consistent.

The adversary decides a card's letter the first time the card is turned. Only the *kind* of letter matters
to a player who remembers everything (see :mod:`reference.memory_values`):

* as the 1st card of a turn: a *fresh* letter (none of its cards seen yet), or the partner of a *single*
  letter (one card seen);
* as the 2nd card: a fresh letter, the partner of another single letter, or the partner of the 1st card
  (then the pair leaves the game).

It picks the kind after which the minimax number of turns left is largest, that is the letter that costs
the program the most flips if it plays best from then on. Since that value can only be reached by every
program, any program needs at least 98 flips against it (the minimax value of the whole game). On ties it
prefers, in this order, to complete another single letter, to show a fresh letter, and only last to give
the 1st card's partner: a pair completed by a 2nd card costs an extra turn, and the 1st card's partner
never helps the adversary. This is what drives the seed's naive strategy to 100 flips, the maximum, and the
seed's improved strategy to 98, its maximum over all layouts.

Which single letter to complete is the tie-break rule of the test (``oldest``: the one seen longest ago,
``newest``, or ``random`` from the seed); fresh letters are taken in an order shuffled by the seed.

Every answer is a letter with a free card, so a layout matching all answers always exists; the oracle
still checks it at the end with :func:`consistent_layout` (it completes the layout and replays the whole
transcript on it as a fixed layout).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from reference.memory import LETTERS, TIEBREAKS, Dealer, FixedDealer, Game, TestSpec, check_layout
from reference.memory_values import minimax_mid_known, minimax_mid_single, minimax_turns


class AdversaryDealer:
    """A :class:`reference.memory.Dealer` that chooses letters against the player."""

    def __init__(self, tiebreak: str, seed: int) -> None:
        if tiebreak not in TIEBREAKS:
            raise ValueError(f"unknown tie-break {tiebreak!r}")
        self.tiebreak = tiebreak
        self.rng = random.Random(seed)
        order = list(LETTERS)
        self.rng.shuffle(order)
        self.fresh_order = order

    def reveal(self, game: Game, position: int) -> str:
        kind = self.choose_kind(game)
        if kind == "fresh":
            return next(letter for letter in self.fresh_order if not game.seen[letter])
        first_letter = game.letters[game.first] if game.first else ""
        if kind == "partner":
            return first_letter
        singles = [letter for letter in LETTERS if len(game.seen[letter]) == 1 and letter != first_letter]
        return self._pick_single(game, singles)

    def choose_kind(self, game: Game) -> str:
        """'fresh', 'single' (the partner of another single letter) or 'partner' (of the 1st card)."""
        k = sum(1 for seen in game.seen.values() if len(seen) == 1)
        m = sum(1 for seen in game.seen.values() if not seen)
        p = sum(1 for seen in game.seen.values() if len(seen) == 2 and not game.removed[seen[0]])
        options: list[tuple[int, str]] = []  # (turns left, kind) in order of preference on ties
        if game.first == 0:
            if m > 0:
                options.append((minimax_mid_single(k + 1, m - 1, p, fresh=True), "fresh"))
            if k > 0:
                options.append((minimax_mid_known(k - 1, m, p + 1, fresh=True), "single"))
        else:
            first_single = len(game.seen[game.letters[game.first]]) == 1
            if k > (1 if first_single else 0):
                options.append((1 + minimax_turns(k - 1, m, p + 1), "single"))
            if m > 0:
                options.append((1 + minimax_turns(k + 1, m - 1, p), "fresh"))
            if first_single:
                options.append((1 + minimax_turns(k - 1, m, p), "partner"))
        best = max(value for value, _ in options)
        return next(kind for value, kind in options if value == best)

    def _pick_single(self, game: Game, singles: list[str]) -> str:
        if self.tiebreak == "random":
            return self.rng.choice(singles)
        age = {position: index for index, position in enumerate(game.reveal_order)}
        by_age = sorted(singles, key=lambda letter: age[game.seen[letter][0]])
        return by_age[0] if self.tiebreak == "oldest" else by_age[-1]


def dealer_for(spec: TestSpec) -> Dealer:
    """The dealer a test describes: its fixed layout, or the adversary with its parameters."""
    if spec.kind == "adversary":
        return AdversaryDealer(spec.name, spec.seed)
    return FixedDealer(spec.layout)


def consistent_layout(game: Game, requests: Sequence[int], answers: Sequence[str]) -> tuple[str, bool]:
    """A full layout matching every answer given, and whether replaying ``requests`` on it reproduces
    ``answers`` exactly. Cards never turned get the missing letters in alphabetical order."""
    missing = [letter for letter in LETTERS for _ in range(2 - len(game.seen[letter]))]
    cards = list(game.letters[1:])
    if len(missing) != cards.count(""):
        return "".join(letter or "." for letter in cards), False
    for index, letter in enumerate(cards):
        if not letter:
            cards[index] = missing.pop(0)
    layout = "".join(cards)
    try:
        check_layout(layout)
    except ValueError:
        return layout, False
    replay = Game(FixedDealer(layout))
    same = len(requests) == len(answers) and all(
        replay.flip(position) == answer
        for position, answer in zip(requests, answers)  # noqa: B905 - lengths checked; Python 3.9 (pypy3) has no strict=
    )
    return layout, same
