"""Reference algorithm of problem ``coins`` (seed 004): moving pairs of unlike coins along a row.

A *row* is a string over ``A``, ``B`` (coins) and ``.`` (an empty cell), trimmed: it starts and ends with
a coin. Rows that differ only by a shift are the same row, so trimming is the only normal form needed.

A *move* takes two adjacent coins with different faces and moves them, in the same order, left or right:
there must be a coin right next to the pair on that side; the pair jumps over that whole contiguous block
of coins and lands on the two cells just beyond it (both must be empty: never the case otherwise when the
game starts from a row without gaps, see :func:`gap_sizes_stay_even`). The *goal* is a row without gaps
whose coins are ``A…AB…B`` or ``B…BA…A`` (one face only counts too).

:func:`solve` is a breadth-first search, so the sequence it returns is as short as possible. From many
starts infinitely many rows are reachable (a group of coins can walk away from a coin left behind, the
gap between them growing by two with each move), so the search alone cannot always prove that no goal
is reachable: the problem's tests only use starts that the search decides (it finds a goal, or it runs
out of rows). :func:`classify` adds a proof for the other starts, used to survey them: an
over-approximation of the game in which wide gaps are only known modulo a period has finitely many
rows; when none of them is a goal, no goal is reachable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

EMPTY = "."
FACES = "AB"
MIN_COINS = 2
MAX_COINS = 9
IMPOSSIBLE = "impossible"
DEFAULT_MAX_ROWS = 2_000_000  # the search gives up (Undecided) after storing this many rows
DEFAULT_MAX_MOVES = 100  # ... or when no goal is this close and rows further away exist
DEFAULT_CLAMPS = ((4, 4), (4, 12))  # (cap, period) of the clamped games classify() tries
DEFAULT_CLAMPED_ROWS = 50_000  # ... each giving up (proving nothing) beyond this many rows
DEFAULT_EXHAUST_ROWS = 5_000  # an impossible start counts as exhausted when at most this many rows
START = re.compile(r"[AB]+")
ROW = re.compile(r"[AB](?:[AB.]*[AB])?")


class Undecided(Exception):
    """The search stored ``max_rows`` rows without finding a goal or running out of rows."""


@dataclass(frozen=True)
class Move:
    """The pair at ``row[first]``, ``row[first + 1]`` moves left (``step = -1``) or right (``+1``)."""

    first: int
    step: int


def trim(row: str) -> str:
    return row.strip(EMPTY)


def is_goal(row: str) -> bool:
    """No gaps, and the faces change at most once along the row."""
    return EMPTY not in row and ("AB" not in row or "BA" not in row)


def gap_sizes(row: str) -> list[int]:
    return [len(gap) for gap in re.findall(r"\.+", trim(row))]


def apply(row: str, move: Move) -> str | None:
    """The row after ``move`` (trimmed), or None when the move is not legal. ``row`` must be trimmed."""
    i, n = move.first, len(row)
    if not 0 <= i < n - 1 or move.step not in (-1, 1):
        return None
    a, b = row[i], row[i + 1]
    if a == EMPTY or b == EMPTY or a == b:
        return None
    if move.step == 1:
        if i + 2 >= n or row[i + 2] == EMPTY:
            return None  # no coin right next to the pair on that side
        j = row.find(EMPTY, i + 2)  # the first cell beyond the block the pair jumps over
        if j == -1:
            return (row[:i] + EMPTY * 2 + row[i + 2 :] + a + b).lstrip(EMPTY)
        if row[j + 1] != EMPTY:
            return None  # the second landing cell holds a coin
        return (row[:i] + EMPTY * 2 + row[i + 2 : j] + a + b + row[j + 2 :]).lstrip(EMPTY)
    if i == 0 or row[i - 1] == EMPTY:
        return None
    j = row.rfind(EMPTY, 0, i)  # the first cell beyond the block, on the left
    if j == -1:
        return (a + b + row[:i] + EMPTY * 2 + row[i + 2 :]).rstrip(EMPTY)
    if row[j - 1] != EMPTY:
        return None
    return (row[: j - 1] + a + b + row[j + 1 : i] + EMPTY * 2 + row[i + 2 :]).rstrip(EMPTY)


_UNLIKE_PAIR = re.compile(r"(?=AB|BA)")


def moves(row: str) -> Iterator[tuple[Move, str]]:
    """Every legal move and its result, pairs from left to right, for each pair left before right."""
    for m in _UNLIKE_PAIR.finditer(row):
        for step in (-1, 1):
            move = Move(m.start(), step)
            after = apply(row, move)
            if after is not None:
                yield move, after


def successors(row: str) -> list[str]:
    return [after for _, after in moves(row)]


def is_move(before: str, after: str) -> bool:
    """Whether one legal move turns row ``before`` into row ``after`` (both compared trimmed)."""
    return trim(after) in successors(trim(before))


def search(
    start: str, max_rows: int = DEFAULT_MAX_ROWS, max_moves: int = DEFAULT_MAX_MOVES
) -> tuple[list[str] | None, int]:
    """Breadth-first search from ``start``: (a shortest sequence of rows to a goal or None, rows stored).

    None means every reachable row was visited and none is a goal. Raises :class:`Undecided` when more
    than ``max_rows`` rows would have to be stored, or no goal is within ``max_moves`` moves but rows
    further away are reachable (a group walking away makes few but ever wider rows: the move limit
    stops that search early).
    """
    start = trim(start)
    parent: dict[str, str | None] = {start: None}
    frontier = [start]
    for depth in range(max_moves + 1):
        for row in frontier:
            if is_goal(row):
                path: list[str] = []
                at: str | None = row
                while at is not None:
                    path.append(at)
                    at = parent[at]
                return path[::-1], len(parent)
        following: list[str] = []
        for row in frontier:
            for after in successors(row):
                if after not in parent:
                    parent[after] = row
                    following.append(after)
            if len(parent) > max_rows:
                raise Undecided(f"{start}: more than {max_rows} rows reachable, no goal among them yet")
        if not following:
            return None, len(parent)
        if depth == max_moves:
            break
        frontier = following
    raise Undecided(f"{start}: no goal within {max_moves} moves, but rows further away are reachable")


def solve(start: str, max_rows: int = DEFAULT_MAX_ROWS) -> list[str] | None:
    """A shortest sequence of rows from ``start`` to a goal (start and goal included), or None."""
    return search(start, max_rows)[0]


def clamp_gaps(row: str, cap: int, period: int) -> str:
    """Every gap of ``cap`` cells or more becomes ``cap + (width - cap) % period`` cells wide."""

    def clamp(m: re.Match[str]) -> str:
        return EMPTY * (cap + (len(m.group()) - cap) % period)

    return re.sub(rf"\.{{{cap},}}", clamp, row)


def abstract_successors(row: str, cap: int, period: int) -> set[str]:
    """Successors in the clamped game, where a gap of ``w >= cap`` cells stands for every gap of
    ``w + k * period`` cells (k >= 0).

    A move lands in at most one gap, and its legality does not depend on the widths of the gaps (all
    even, so at least two cells wide); a gap only closes from exactly 2 cells. So the clamped successors
    of ``row``, plus those of ``row`` with one wide gap widened by ``period`` (a pair lands in a gap that
    stays wide), are the clamped successors of every row that clamps to ``row``.
    """
    versions = [row] + [
        row[: m.start()] + EMPTY * (m.end() - m.start() + period) + row[m.end() :]
        for m in re.finditer(r"\.+", row)
        if m.end() - m.start() >= cap
    ]
    return {clamp_gaps(after, cap, period) for version in versions for after in successors(version)}


def goal_unreachable_in_clamped_game(
    start: str, cap: int = 4, period: int = 4, max_rows: int = DEFAULT_CLAMPED_ROWS
) -> bool:
    """True only if no goal is reachable from ``start`` (a proof); False proves nothing (it is also the
    answer when the clamped game has more than ``max_rows`` rows).

    ``cap`` (even, at least 4, so that a gap of 2 cells, the only gap a move can close, is exact) and
    ``period`` (even, at least 2) define the clamped game: gaps of ``cap`` cells or more are only known
    modulo ``period``. It has finitely many rows (at most ``MAX_COINS`` coins, gaps below
    ``cap + period``). Every row reachable in the real game clamps to a row reachable here, and a goal
    has no gaps, so it clamps to itself. The period matters: a group ``ABBA`` walking away from a lone
    coin alternates with ``BAAB`` as the gap grows by two, so the gap's width modulo 4 is tied to the
    group's face order; a game that forgot it would find a goal that does not exist.
    """
    if cap < 4 or cap % 2 or period < 2 or period % 2:
        raise ValueError("cap must be even and at least 4, period even and at least 2")
    first = clamp_gaps(trim(start), cap, period)
    seen = {first}
    stack = [first]
    while stack:
        row = stack.pop()
        if is_goal(row):
            return False
        for after in abstract_successors(row, cap, period):
            if after not in seen:
                seen.add(after)
                stack.append(after)
        if len(seen) > max_rows:
            return False
    return True


class Kind(str, Enum):  # noqa: UP042 - not StrEnum: validators import this on pypy3 (Python 3.9) too
    SOLVABLE = "solvable"  # a goal is reachable; the search found a shortest sequence
    IMPOSSIBLE_EXHAUSTED = "impossible-exhausted"  # the search visited every reachable row: none is a goal
    # no goal (the clamped-game proof), but more than ``exhaust_rows`` rows are reachable (in practice
    # infinitely many: a group of coins walks away from the rest)
    IMPOSSIBLE_NOT_EXHAUSTED = "impossible-not-exhausted"
    UNDECIDED = "undecided"  # no proof either way within the limits

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Outcome:
    kind: Kind
    path: list[str] | None  # a shortest sequence when SOLVABLE
    rows_stored: int  # rows the breadth-first search stored (or was stopped at)

    @property
    def optimum(self) -> int | None:
        return None if self.path is None else len(self.path) - 1


def classify(
    start: str,
    max_rows: int = DEFAULT_MAX_ROWS,
    exhaust_rows: int = DEFAULT_EXHAUST_ROWS,
    clamps: tuple[tuple[int, int], ...] = DEFAULT_CLAMPS,
) -> Outcome:
    """Decide ``start``: solvable (with a shortest sequence), or impossible, and how that is known.

    First a search of up to ``exhaust_rows`` rows; if it neither finds a goal nor runs out of rows, the
    clamped games ``(cap, period)`` in ``clamps`` try to prove that no goal is reachable (rows that
    walk away grow wide, so a long search is slow and proves nothing); failing that, a search of up to
    ``max_rows`` rows.
    """
    try:
        path, stored = search(start, exhaust_rows)
        return Outcome(Kind.SOLVABLE if path else Kind.IMPOSSIBLE_EXHAUSTED, path, stored)
    except Undecided:
        pass
    if any(goal_unreachable_in_clamped_game(start, cap, period) for cap, period in clamps):
        return Outcome(Kind.IMPOSSIBLE_NOT_EXHAUSTED, None, exhaust_rows)
    try:
        path, stored = search(start, max_rows)
    except Undecided:
        return Outcome(Kind.UNDECIDED, None, max_rows)
    return Outcome(Kind.SOLVABLE if path else Kind.IMPOSSIBLE_EXHAUSTED, path, stored)


def parse_input(data: bytes) -> str:
    """The start row of a test input (one line of A and B)."""
    text = data.decode("ascii").strip()
    if not START.fullmatch(text):
        raise ValueError(f"not a row of A and B: {text[:40]!r}")
    return text


def format_input(start: str) -> bytes:
    return f"{start}\n".encode()


def format_answer(path: list[str] | None) -> bytes:
    """The expected output: the rows of ``path`` one per line, or ``impossible``."""
    lines = [IMPOSSIBLE] if path is None else path
    return "".join(f"{line}\n" for line in lines).encode()


def gap_sizes_stay_even(path: list[str]) -> bool:
    """Along a sequence from a row without gaps every gap is even (so landing cells are never half full).

    A move opens a gap of 2, widens a gap by 2, or fills 2 cells of a gap next to the block it jumped.
    """
    return all(size % 2 == 0 for row in path for size in gap_sizes(row))
