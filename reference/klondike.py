"""Wetherell's solitaire ("Etudes for Programmers", ch. 19): exact optimal scores.

Rules (problem ``klondike``): 52 cards, ranks A=1 .. K=13, suits S H D C. Card ``k`` of a deal (0-based)
is put on pile ``k mod 7``; the top card of each pile is face up, the rest face down; no stock.
A face-up card with everything on it may be moved onto the top card of another pile when it has the same
suit and is one rank lower; a face-up King with everything on it may be moved to an empty pile; a
face-down top card is turned up; pile top cards go to their suit's foundation, A up to K. The score is the
number of cards on the foundations when no move is left; the optimal score is the best over all play.

Cards are ints ``suit * 13 + rank - 1`` (``0`` = AS, ``51`` = KC). Because of the one-suit building rule the
face-up part of a pile is always one run ``base, base-1, .., top`` of one suit, so a pile is stored as
(``down`` = number of face-down cards, ``base``, ``top``), the face-down cards being the first ``down``
cards dealt to it.

Two searches give the same optimal score:

* :func:`search` (the reference): every foundation move and every non-King run move is made at once (the
  "closure"), and only the King-to-empty-pile moves branch. This is exact: a non-King run move joins the run
  based at ``(s, r)`` onto the only card it can ever go on, ``(s, r + 1)``; it disables no other move and
  loses nothing (see the package README for the argument), and it is checked against the plain search in
  the tests. The positions (after closure) are remembered in a transposition table keyed on a canonical
  position: piles whose face-down cards are gone are interchangeable and are sorted.
* :func:`exhaustive` (the seed's method, for tests and statistics): depth-first search over every single
  move, optionally with a table of canonical positions (then it also counts the distinct positions
  reachable: the size of the naive search space).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "SHDC"
N_PILES = 7
KING = 12  # rank index of a King
DECK = tuple(range(52))


class SearchLimitExceeded(RuntimeError):
    """The exhaustive search visited more nodes than it was allowed to."""


def card_name(card: int) -> str:
    suit, rank = divmod(card, 13)
    return RANKS[rank] + SUITS[suit]


def parse_card(text: str) -> int:
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


def parse_deal(line: str) -> tuple[int, ...]:
    """A deal from its text form (52 cards separated by white space); raises ValueError if invalid."""
    cards = tuple(parse_card(tok) for tok in line.split())
    if len(cards) != 52 or len(set(cards)) != 52:
        raise ValueError("a deal is 52 distinct cards")
    return cards


def format_deal(deal: Sequence[int]) -> str:
    return " ".join(card_name(c) for c in deal)


def deal_from_piles(piles: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The deal that lays out these 7 piles (each bottom to top; piles 0-2 hold 8 cards, 3-6 hold 7)."""
    if [len(p) for p in piles] != [8, 8, 8, 7, 7, 7, 7]:
        raise ValueError("piles 0-2 hold 8 cards, piles 3-6 hold 7")
    return tuple(piles[k % N_PILES][k // N_PILES] for k in range(52))


def deal_piles(deal: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The 7 piles, each bottom to top: card k goes on pile k mod 7."""
    return tuple(tuple(deal[p::N_PILES]) for p in range(N_PILES))


def uniform_deal(rng: random.Random) -> tuple[int, ...]:
    """A uniformly random deal (Fisher-Yates, as ``random.shuffle``)."""
    cards = list(DECK)
    rng.shuffle(cards)
    return tuple(cards)


def seed_shuffle_deal(rng: random.Random) -> tuple[int, ...]:
    """The seed's shuffle: for i = 1..52 swap card[i] with card[rand52]. Non-uniform (52^52 equally likely
    paths onto 52! permutations)."""
    cards = list(DECK)
    for i in range(52):
        j = rng.randrange(52)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def deals_for_seed(n: int, seed: int) -> Iterator[tuple[int, ...]]:
    """The reference's own stream of uniform random deals for ``stats n seed``."""
    rng = random.Random(seed)
    for _ in range(n):
        yield uniform_deal(rng)


# ----------------------------------------------------------------------------------------------------
# Positions


@dataclass
class Position:
    """A mutable position. ``base[p] == top[p] == -1`` for an empty pile (then ``down[p] == 0``)."""

    piles: tuple[tuple[int, ...], ...]  # the deal's piles (bottom to top); never changes
    down: list[int]
    base: list[int]
    top: list[int]
    found: list[int]  # cards on each suit's foundation

    @classmethod
    def start(cls, deal: Sequence[int]) -> Position:
        piles = deal_piles(deal)
        return cls(
            piles,
            [len(p) - 1 for p in piles],
            [p[-1] for p in piles],
            [p[-1] for p in piles],
            [0, 0, 0, 0],
        )

    def copy(self) -> Position:
        return Position(self.piles, self.down[:], self.base[:], self.top[:], self.found[:])

    @property
    def score(self) -> int:
        return sum(self.found)

    def key(self) -> tuple[int, ...]:
        """Canonical key: piles that still hold face-down cards keep their place (those cards identify
        them); the others are interchangeable and sorted. The foundations follow from the piles."""
        fixed: list[int] = []
        free: list[tuple[int, int]] = []
        for p in range(N_PILES):
            if self.down[p]:
                fixed += (self.down[p], self.base[p], self.top[p])
            else:
                fixed.append(0)
                free.append((self.base[p], self.top[p]))
        free.sort()
        for b, t in free:
            fixed += (b, t)
        return tuple(fixed)

    def _expose(self, p: int) -> None:
        """Pile p's run is gone: turn up the next face-down card, or leave the pile empty."""
        if self.down[p]:
            self.down[p] -= 1
            card = self.piles[p][self.down[p]]
            self.base[p] = self.top[p] = card
        else:
            self.base[p] = self.top[p] = -1

    # --- the three kinds of move --------------------------------------------------------------------
    def foundation_moves(self) -> list[int]:
        """Piles whose top card can go to its foundation."""
        top, found = self.top, self.found
        return [p for p in range(N_PILES) if top[p] >= 0 and found[top[p] // 13] == top[p] % 13]

    def to_foundation(self, p: int) -> None:
        t = self.top[p]
        self.found[t // 13] += 1
        if t == self.base[p]:
            self._expose(p)
        else:
            self.top[p] = t + 1

    def run_moves(self) -> list[tuple[int, int]]:
        """(source, destination): the run based at (s, r) of the source goes onto the top (s, r+1)."""
        moves = []
        for src in range(N_PILES):
            b = self.base[src]
            if b >= 0 and b % 13 != KING:
                for dst in range(N_PILES):
                    if self.top[dst] == b + 1:
                        moves.append((src, dst))
                        break
        return moves

    def move_run(self, src: int, dst: int) -> None:
        self.top[dst] = self.top[src]
        self._expose(src)

    def king_moves(self) -> list[tuple[int, int]]:
        """(source, empty pile): a King-based run over face-down cards goes to the first empty pile.
        (All empty piles are alike; a King already at the bottom of its pile gains nothing by moving.)"""
        empty = next((p for p in range(N_PILES) if self.base[p] < 0), -1)
        if empty < 0:
            return []
        return [(p, empty) for p in range(N_PILES) if self.down[p] and self.base[p] % 13 == KING]

    def move_king(self, src: int, dst: int) -> None:
        self.base[dst], self.top[dst] = self.base[src], self.top[src]
        self._expose(src)

    def moves(self) -> list[tuple[str, int, int]]:
        """Every legal move: ('F', pile, -1), ('R', src, dst), ('K', src, dst)."""
        out: list[tuple[str, int, int]] = [("F", p, -1) for p in self.foundation_moves()]
        out += [("R", s, d) for s, d in self.run_moves()]
        out += [("K", s, d) for s, d in self.king_moves()]
        return out

    def play(self, move: tuple[str, int, int]) -> None:
        kind, a, b = move
        if kind == "F":
            self.to_foundation(a)
        elif kind == "R":
            self.move_run(a, b)
        else:
            self.move_king(a, b)

    def close(self) -> int:
        """Make every foundation move and every non-King run move until none is left; the number made."""
        made = 0
        progress = True
        while progress:
            progress = False
            for p in range(N_PILES):
                t = self.top[p]
                while t >= 0 and self.found[t // 13] == t % 13:
                    self.to_foundation(p)
                    made += 1
                    progress = True
                    t = self.top[p]
            for src in range(N_PILES):
                b = self.base[src]
                if b >= 0 and b % 13 != KING:
                    for dst in range(N_PILES):
                        if self.top[dst] == b + 1:
                            self.move_run(src, dst)
                            made += 1
                            progress = True
                            break
        return made

    def cards_text(self) -> str:
        """Human-readable piles (face-down cards in brackets) and foundations."""
        rows = []
        for p in range(N_PILES):
            down = " ".join(card_name(c) for c in self.piles[p][: self.down[p]])
            run = range(self.base[p], self.top[p] - 1, -1) if self.base[p] >= 0 else range(0)
            up = " ".join(card_name(c) for c in run)
            rows.append(f"{p}: [{down}] {up}".rstrip())
        rows.append("foundations: " + " ".join(f"{SUITS[s]}{self.found[s]}" for s in range(4)))
        return "\n".join(rows)


def no_move_at_start(deal: Sequence[int]) -> bool:
    return not Position.start(deal).moves()


# ----------------------------------------------------------------------------------------------------
# The reference search


@dataclass(frozen=True)
class SearchResult:
    score: int  # the optimal score
    positions: int  # distinct closed positions visited (the transposition table's size)
    decisions: int  # of those, the positions with two or more King moves to choose from
    moves: int  # single moves on the line found to the optimal score (closure moves counted one by one)


def search(deal: Sequence[int], *, kings: str = "any") -> SearchResult:
    """The optimal score by depth-first search over King choices, all other moves made eagerly.

    ``kings="none"`` never moves a King (only for building and checking tests; the game is ``"any"``).
    Stopping is never better than going on (the score only grows), so a position whose closure is done
    is scored and then only its King moves are tried."""
    if kings not in ("any", "none"):
        raise ValueError(kings)
    seen: set[tuple[int, ...]] = set()
    best = -1
    best_moves = 0
    decisions = 0
    stack = [(Position.start(deal), 0)]
    while stack:
        pos, moves = stack.pop()
        moves += pos.close()
        key = pos.key()
        if key in seen:
            continue
        seen.add(key)
        if pos.score > best:
            best, best_moves = pos.score, moves
        if best == 52:
            break
        options = pos.king_moves() if kings != "none" else []
        if len(options) > 1:
            decisions += 1
        for src, dst in options:
            child = pos.copy()
            child.move_king(src, dst)
            stack.append((child, moves + 1))
    return SearchResult(best, len(seen), decisions, best_moves)


def optimal_score(deal: Sequence[int]) -> int:
    return search(deal).score


# ----------------------------------------------------------------------------------------------------
# Plain searches over every move (for tests and for measuring the naive search space)


@dataclass(frozen=True)
class ExhaustiveResult:
    score: int
    nodes: int  # positions expanded (with a table: distinct canonical positions reachable)


def exhaustive(deal: Sequence[int], *, table: bool = True, node_limit: int | None = None) -> ExhaustiveResult:
    """Depth-first search over every move, one at a time (foundation moves included), as in the seed.

    With ``table`` every canonical position is expanded once and ``nodes`` is the number of distinct
    positions reachable; without it the whole tree of move sequences is walked. Raises
    SearchLimitExceeded after ``node_limit`` expansions. The search always runs to the end (no cut at 52)
    so that ``nodes`` measures the whole space."""
    seen: set[tuple[int, ...]] = set()
    best = 0
    nodes = 0
    stack = [Position.start(deal)]
    while stack:
        pos = stack.pop()
        if table:
            key = pos.key()
            if key in seen:
                continue
            seen.add(key)
        nodes += 1
        if node_limit is not None and nodes > node_limit:
            raise SearchLimitExceeded(f"more than {node_limit} nodes")
        best = max(best, pos.score)
        for move in pos.moves():
            child = pos.copy()
            child.play(move)
            stack.append(child)
    return ExhaustiveResult(best, nodes)


def greedy_score(deal: Sequence[int]) -> int:
    """A plausible but wrong player: every move at once, and an empty pile always takes the first King
    that can go there (no look-ahead). Not optimal; used to build tests that tell it apart."""
    pos = Position.start(deal)
    while True:
        pos.close()
        kings = pos.king_moves()
        if not kings:
            return pos.score
        pos.move_king(*kings[0])


# ----------------------------------------------------------------------------------------------------
# Statistics


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    std: float  # population standard deviation of the optimal score
    mean_se: float  # standard error of the mean
    std_se: float  # standard error of the std (delta method, from the 4th central moment)
    fourth: float  # 4th central moment


def summarize(scores: Sequence[int] | Sequence[float]) -> Summary:
    n = len(scores)
    if n < 2:
        raise ValueError("need at least two values")
    mean = sum(scores) / n
    m2 = sum((x - mean) ** 2 for x in scores) / n
    m4 = sum((x - mean) ** 4 for x in scores) / n
    std = m2**0.5
    mean_se = std / n**0.5
    std_se = (max(m4 - m2 * m2, 0.0) / (4 * m2 * n)) ** 0.5 if m2 > 0 else 0.0
    return Summary(n, mean, std, mean_se, std_se, m4)


def no_move_probability() -> float:
    """Exact share of deals with no move at the start: the 7 face-up cards contain no ace and no two cards
    of one suit a rank apart (no pile is empty yet). Counted over the 7-card sets of the 48 non-aces:
    per suit, k of the 12 ranks 2..K with no two adjacent in C(13 - k, k) ways."""
    from itertools import product
    from math import comb

    count = 0
    for ks in product(range(8), repeat=4):
        if sum(ks) == 7:
            ways = 1
            for k in ks:
                ways *= comb(13 - k, k)
            count += ways
    return count / comb(52, 7)


def stats_tolerance(n: int, ref: Summary, slack: float = 0.01, z: float = 4.0) -> tuple[float, float]:
    """How far an estimate from n deals may be from the reference's (mean, std) and be accepted.

    The estimate's standard error (from the reference's std and 4th central moment) and the reference's
    own standard error add in quadrature; ``z`` of them plus a fixed ``slack``."""
    var = ref.std**2
    mean_tol = z * (var / n + ref.mean_se**2) ** 0.5 + slack
    std_var_n = max(ref.fourth - var * var, 0.0) / (4 * var) if var > 0 else 0.0
    std_tol = z * (std_var_n / n + ref.std_se**2) ** 0.5 + slack
    return mean_tol, std_tol
