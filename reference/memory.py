"""Memory (IOI 2010 "Memory", as the seed's Pascal unit ``CardGiver`` defines it): rules and strategies.

Rules (problem ``memory``): 50 cards at positions 1..50, letters A..Y, each letter on exactly two cards.
Cards are turned one at a time and turns pair up (1st, 2nd, 1st, 2nd, ...). Turning a card shows its
letter; when the 2nd card of a turn shows the same letter as the 1st, both cards leave the game. Turning a
card that has left the game, a position outside 1..50, or the 1st card of the current turn again is
*invalid*: it shows nothing (``''`` here, ``#0`` in Pascal, ``0`` on the wire) and does not count. Only
valid flips count. A letter earns a candy the first time both of its cards have been seen.

Who decides the letters is a :class:`Dealer`: a fixed layout (:class:`FixedDealer`), or the adaptive
adversary of :mod:`reference.memory_adversary`, which picks a card's letter the first time it is turned.

Strategies take ``turn_card(position) -> letter`` (``''`` when invalid), the Python stub's interface:

* :func:`play`, the reference: turn unseen cards left to right; when the 1st card's partner is known,
  turn the partner; otherwise turn the next unseen card as 2nd card; a pair completed by a 2nd card is
  taken in the next turn. Its mean over random layouts is 79.66 flips, the optimum (see
  :mod:`reference.memory_values`), and it never needs more than 98 flips, which is also optimal.
* :func:`naive_play` and :func:`improved_play`: faithful ports of the two ``Memory`` units printed in the
  seed (for tests and the benchmark; the Pascal originals are judged unchanged as submissions).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

CARDS = 50
PAIRS = 25
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"
FLIP_TARGET = 100  # subtask 2: game over in at most this many (valid) flips
REQUEST_LIMIT = 1000  # card numbers a program may send in all, valid or not
SEED_WORST = "AYBACBDCEDFEGFHGIHJIKJLKMLNMONPOQPRQSRTSUTVUWVXWYX"  # the seed's worst case for its strategy
TIEBREAKS = ("oldest", "newest", "random")  # the adversary's choice among known single cards

TurnCard = Callable[[int], str]
Strategy = Callable[[TurnCard], object]


class Dealer(Protocol):
    """Decides the letter of a card the first time it is turned (validly)."""

    def reveal(self, game: Game, position: int) -> str: ...


@dataclass(frozen=True)
class TestSpec:
    """One test's hidden data: a fixed layout, or the adversary with its parameters."""

    kind: str  # "random" | "fixed" | "adversary"
    name: str  # random: the seed that shuffled it; fixed: a name; adversary: the tie-break rule
    layout: str = ""  # 50 letters (random, fixed)
    seed: int = 0  # adversary: seeds the names of new letters (and the "random" tie-break)

    def render(self) -> str:
        if self.kind == "adversary":
            return f"adversary {self.name} {self.seed}\n"
        return f"{self.kind} {self.name}\n{self.layout}\n"


def check_layout(layout: str) -> None:
    """Raise ValueError unless ``layout`` is 50 letters A..Y, each exactly twice."""
    if len(layout) != CARDS:
        raise ValueError(f"a layout has {CARDS} letters, not {len(layout)}")
    for letter in layout:
        if letter not in LETTERS:
            raise ValueError(f"{letter!r} is not a letter A..Y")
    for letter in LETTERS:
        if layout.count(letter) != 2:
            raise ValueError(f"letter {letter} appears {layout.count(letter)} times, not twice")


def parse_spec(text: str) -> TestSpec:
    """A test's .in text -> TestSpec; raises ValueError when it is not exactly in the format."""
    if not text.endswith("\n"):
        raise ValueError("the file must end with a newline")
    lines = text[:-1].split("\n")
    head = lines[0].split(" ")
    if head[0] == "adversary":
        if len(lines) != 1 or len(head) != 3:
            raise ValueError("expected one line: adversary <tiebreak> <seed>")
        if head[1] not in TIEBREAKS:
            raise ValueError(f"unknown tie-break {head[1]!r}; one of {', '.join(TIEBREAKS)}")
        if not head[2].isdigit() or len(head[2]) > 9 or (head[2] != "0" and head[2][0] == "0"):
            raise ValueError("the seed is a decimal number 0..999999999 without leading zeros")
        return TestSpec("adversary", head[1], seed=int(head[2]))
    if head[0] not in ("random", "fixed") or len(head) != 2 or len(lines) != 2:
        raise ValueError("expected 'random <seed>' or 'fixed <name>' and a layout line, or 'adversary ...'")
    name = head[1]
    if not name or len(name) > 40 or not all(c in "abcdefghijklmnopqrstuvwxyz0123456789-" for c in name):
        raise ValueError("a name is 1..40 characters a-z, 0-9, '-'")
    if head[0] == "random" and not name.isdigit():
        raise ValueError("a random layout is named by its seed (decimal)")
    check_layout(lines[1])
    return TestSpec(head[0], name, layout=lines[1])


def random_layout(rng: random.Random) -> str:
    cards = list(LETTERS * 2)
    rng.shuffle(cards)
    return "".join(cards)


class FixedDealer:
    """A layout fixed in advance."""

    def __init__(self, layout: str) -> None:
        check_layout(layout)
        self.layout = layout

    def reveal(self, game: Game, position: int) -> str:
        return self.layout[position - 1]


class Game:
    """The rules of the seed's ``CardGiver``, with the letters supplied by a dealer.

    ``flip`` never raises: invalid positions are invalid flips, exactly as ``TurnCard``.
    """

    def __init__(self, dealer: Dealer) -> None:
        self.dealer = dealer
        self.letters: list[str] = [""] * (CARDS + 1)  # letters[pos], '' = never turned
        self.removed = [False] * (CARDS + 1)
        self.first = 0  # position of the 1st card of the current turn, 0 = none
        self.flips = 0  # valid flips
        self.requests = 0  # all flips asked for, valid or not
        self.pairs_left = PAIRS
        self.seen: dict[str, list[int]] = {letter: [] for letter in LETTERS}  # positions seen per letter
        self.reveal_order: list[int] = []  # positions in the order they were first turned
        self.candies = 0

    @property
    def over(self) -> bool:
        return self.pairs_left == 0

    def flip(self, position: int) -> str:
        self.requests += 1
        if not 1 <= position <= CARDS or self.removed[position] or position == self.first:
            return ""
        letter = self.letters[position]
        if not letter:
            letter = self.dealer.reveal(self, position)
            if letter not in LETTERS or len(self.seen[letter]) >= 2:
                raise RuntimeError(f"dealer gave {letter!r} to card {position}: not a free letter")
            self.letters[position] = letter
            self.seen[letter].append(position)
            self.reveal_order.append(position)
            if len(self.seen[letter]) == 2:
                self.candies += 1
        self.flips += 1
        if self.first == 0:
            self.first = position
        else:
            if self.letters[self.first] == letter:
                self.removed[self.first] = self.removed[position] = True
                self.pairs_left -= 1
            self.first = 0
        return letter

    def layout_so_far(self) -> str:
        """The letters turned so far, '.' for cards never turned."""
        return "".join(letter or "." for letter in self.letters[1:])


@dataclass(frozen=True)
class Outcome:
    flips: int
    requests: int
    candies: int
    over: bool


class _Stop(Exception):
    """Raised inside a strategy that keeps flipping after the game is over or past the request limit."""


def simulate(strategy: Strategy, dealer: Dealer, request_limit: int = REQUEST_LIMIT) -> tuple[Outcome, Game]:
    """Play ``strategy`` against ``dealer`` in-process (as the oracle would, minus the pipes)."""
    game = Game(dealer)

    def turn_card(position: int) -> str:
        if game.over or game.requests >= request_limit:
            raise _Stop
        return game.flip(position)

    try:
        strategy(turn_card)
    except _Stop:
        pass
    return Outcome(game.flips, game.requests, game.candies, game.over), game


def play(turn_card: TurnCard) -> None:
    """The reference strategy (greedy, which is optimal here both in mean and in the worst case)."""
    single: dict[str, int] = {}  # letter -> position of its only seen card (partner never seen)
    known: list[tuple[int, int]] = []  # pairs seen completely but still in the game
    unseen = 1  # every card before it has been turned; none after it has
    while unseen <= CARDS or known:
        if known:
            a, b = known.pop()
            turn_card(a)
            turn_card(b)
            continue
        first_pos, unseen = unseen, unseen + 1
        first = _must(turn_card(first_pos), first_pos)
        if first in single:  # its partner is known: take the pair now
            turn_card(single.pop(first))
            continue
        second_pos, unseen = unseen, unseen + 1  # exists: the partner of `first` is unseen
        second = _must(turn_card(second_pos), second_pos)
        if second == first:
            continue  # removed
        if second in single:
            known.append((second_pos, single.pop(second)))
        else:
            single[second] = second_pos
        single[first] = first_pos


def _must(letter: str, position: int) -> str:
    if not letter:
        raise RuntimeError(f"card {position} could not be turned: the rules were not as assumed")
    return letter


def naive_play(turn_card: TurnCard) -> None:
    """Port of the seed's first ``Memory`` unit: turn all cards pairwise, then take the pairs."""
    stack = [""] * (CARDS + 1)
    for index in range(1, PAIRS + 1):
        stack[2 * index - 1] = turn_card(2 * index - 1)
        stack[2 * index] = turn_card(2 * index)
        if stack[2 * index - 1] == stack[2 * index]:
            stack[2 * index - 1] = stack[2 * index] = ""
    for index in range(1, CARDS + 1):
        if stack[index]:
            for other in range(index + 1, CARDS + 1):
                if stack[index] == stack[other]:
                    turn_card(index)
                    turn_card(other)
                    stack[index] = stack[other] = ""
                    break


def improved_play(turn_card: TurnCard) -> None:
    """Port of the seed's second ``Memory`` unit (Jan Hendrik Burdinski's idea), statement by statement."""
    stack = {letter: 0 for letter in LETTERS}  # 0 = unseen, 1..50 = position, 255 = done
    index = 1
    while index <= CARDS:
        card_a = turn_card(index)
        if card_a:
            if 1 <= stack[card_a] <= CARDS:
                turn_card(stack[card_a])
                stack[card_a] = 255
            elif stack[card_a] == 0:
                stack[card_a] = index
                index += 1
                if index <= CARDS:
                    card_b = turn_card(index)
                    if card_a == card_b:
                        stack[card_b] = 255
                    elif 1 <= stack[card_b] <= CARDS:
                        turn_card(index)
                        turn_card(stack[card_b])
                        stack[card_b] = 255
                    else:
                        stack[card_b] = index
        index += 1


def flips_on(strategy: Strategy, layouts: Sequence[str]) -> list[int]:
    """Flips ``strategy`` needs on each layout (it must finish the game)."""
    counts = []
    for layout in layouts:
        outcome, _ = simulate(strategy, FixedDealer(layout))
        if not outcome.over:
            raise RuntimeError(f"the strategy did not finish the game on {layout}")
        counts.append(outcome.flips)
    return counts
