"""The scoreboard's cache (services/board/board.py uses it): the boards ranked once per change and what is made
of them (the API's JSON, the page's table), served within the bound of `judge serve --board-interval`
(docs/serve.md): a board misses no change older than the interval, and is never another key's."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from judge.scoreboard.passfail import Standings

CLAIM_S = 10.0  # BoardCache.claim: a claim lapses after this long (and a board being made counts that long)


@dataclass(frozen=True)
class Ranked:
    """A ranked board: the spec's rows, and for a pass-fail contest the standings they were written from
    (the pages draw their cells, first to solve among them, and the awards read them). ``memo``: what is
    made of this board once for every request that gets it (the rows as JSON, the pages' table as HTML:
    ``derived``, or the cache's ``BoardCache.item``), dropped with it when a change makes another board."""

    rows: list[dict[str, Any]]
    standings: Standings | None = None
    memo: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)
    _making: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)
    # while one of ``memo``'s items is being made: since when (the cache's clock; BoardCache.item)
    _making_since: list[float] = field(default_factory=list, compare=False, repr=False)
    # the cache's entry of this board, once kept (BoardCache): its key, changes, age, the board it replaced
    _entry: list[_Entry] = field(default_factory=list, compare=False, repr=False)

    def derived(self, key: Hashable, make: Callable[[], Any], since: Callable[[], float] | None = None) -> Any:
        """``make()``, once per board and key: made by the first request that asks (100 board polls a second
        right after a change would otherwise each make it at once: issue 32); the others wait for it (the
        cache's ``item`` may give them the board before's instead). ``since``: the clock, to say since when."""
        if key in self.memo:
            return self.memo[key]
        with self._making:
            if key not in self.memo:
                self._making_since[:] = [since()] if since is not None else []
                try:
                    self.memo[key] = make()
                finally:
                    self._making_since.clear()
            return self.memo[key]


@dataclass(eq=False)
class _Entry:
    """A board the cache keeps: for ``key`` as of ``changes`` (the newest board events when it was asked
    for), made at ``made_s``; ``previous``, the one it replaced (its items are served while this one's are
    made, within the bound); ``behind_s``, once it is known to miss a change: since when (``_behind``)."""

    key: Hashable
    board: Ranked
    changes: tuple[int, ...]
    made_s: float
    previous: _Entry | None = None
    behind_s: float | None = None


@dataclass(frozen=True, eq=False)
class Claim:
    """BoardCache.claim: a thread brings ``what`` (a key of the cache and an item) up to date."""

    what: tuple[Hashable, Hashable]
    since_s: float


class BoardCache:
    """The last boards computed, keyed on all they depend on (the caller's key: the viewer's freeze, the
    contest's phase, times, group, whether problems are shown, the hidden teams; and ``changes``, the
    newest events of the types in BOARD_EVENTS, since every change to what the board is made of publishes
    one in the same transaction). Under load every poll of the board asks for the same one: it is ranked
    once per change, not once per request. Thread-safe. The rows given out are shared: read them, do not
    change them.

    ``interval_s`` (`judge serve --board-interval`; 0: none, every change makes a new board): a board may
    be served behind the newest changes, so that in a rush (16 changes a second at 500 teams, and each new
    board is ranked, written as JSON and drawn as HTML for 500 teams) a new board is made at most once per
    interval. **The bound**: a board served at time t misses no change made before t - interval, except
    while its successor is being made (since b, for at most CLAIM_S): then none made before b - interval.
    When a board became behind is the time of the first change it misses (``since``: the event log's copy,
    EventLog.first_after; unknown: the time the board was made, which is earlier). A board is never served
    for another key, and a key's boards never cross a freeze or a thaw (the caller's key holds the phase).

    Within the bound, the requests that ask while a new board (or its JSON, its HTML) is being made get the
    last one instead of waiting for it (``rows``, ``item``): in a rush 100 polls a second would otherwise
    each hold a worker thread for as long as the ranking and drawing take. On the event loop (``peek``,
    ``ready``) the last one is answered, within the bound, without waiting for anything; the first such
    request once a new one may be made ``claim``s it and has a thread make it after its answer is sent
    (services/board/board.remake)."""

    def __init__(
        self,
        size: int = 8,
        interval_s: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        since: Callable[[tuple[int, ...]], float | None] | None = None,
    ) -> None:
        self._size = size
        self._interval_s = interval_s
        self._clock = clock
        self._since = since if since is not None else lambda changes: None
        self._lock = threading.Lock()
        self._rows: OrderedDict[tuple[Hashable, tuple[int, ...]], _Entry] = OrderedDict()
        self._recent: dict[Hashable, _Entry] = {}  # key -> the newest board made
        self._computing: dict[Hashable, threading.Lock] = {}  # one computation per key and changes at a time
        self._busy: dict[Hashable, float] = {}  # with an interval: the keys a board is being made for, since
        self._claims: dict[tuple[Hashable, Hashable], Claim] = {}  # what a thread is bringing up to date

    def clear(self) -> None:
        """Forget every board (each is computed anew when next asked for)."""
        with self._lock:
            self._rows.clear()
            self._recent.clear()

    @property
    def lags(self) -> bool:
        """Whether a board may be behind the newest changes (an interval), or is always exact."""
        return self._interval_s > 0

    # ------------------------------------------------------------------------------------ the bound

    def _behind(self, e: _Entry) -> float:
        """Since when ``e`` misses a change (it is known to: a newer one was asked for). Under the lock."""
        if e.behind_s is None:
            first = self._since(e.changes)
            e.behind_s = e.made_s if first is None else max(e.made_s, first)
        return e.behind_s

    def _making(self, key: Hashable, now: float, claims: bool = True) -> float | None:
        """Since when the next board of ``key`` (or one of its items) is being made: a thread computing it,
        or (``claims``) a claim, whose thread makes it (``rows`` asks without them: it may be that thread);
        None: nothing is. Under the lock."""
        times = [t for k, t in self._busy.items() if k == key]
        if claims:
            times += [c.since_s for (k, _), c in self._claims.items() if k == key and 0 <= now - c.since_s < CLAIM_S]
        return min(times) if times else None

    def _within(self, e: _Entry, now: float, making: float | None) -> bool:
        """Whether ``e``, behind the newest, may be served now (the bound, above). Under the lock."""
        if self._interval_s <= 0:
            return False
        behind = self._behind(e)
        if now - behind < self._interval_s:
            return True
        return making is not None and making - behind < self._interval_s and 0 <= now - making < CLAIM_S

    @staticmethod
    def _current(e: _Entry, changes: tuple[int, ...]) -> bool:
        """Whether ``e`` was made as of ``changes`` or later (then it is what a new board would be, or newer)."""
        return all(a >= b for a, b in zip(e.changes, changes, strict=True))

    # ------------------------------------------------------------------------------------ boards

    def rows(self, key: Hashable, changes: tuple[int, ...], compute: Callable[[], Ranked]) -> Ranked:
        """The board for ``key`` as of ``changes`` (the newest board-changing events): computed by the first
        request that asks; those asking meanwhile for the same wait for it rather than compute it too
        (single flight: a change under 100 polls a second is ranked once). With an interval, the last board
        while it is within the bound and either made less than an interval ago or being replaced."""
        full = (key, changes)
        mine = False
        with self._lock:
            hit = self._rows.get(full)
            if hit is not None:
                self._rows.move_to_end(full)
                return hit.board
            recent = self._recent.get(key)
            if recent is not None and self._interval_s > 0:
                if self._current(recent, changes):
                    return recent.board
                now = self._clock()
                making = self._making(key, now, claims=False)
                if self._within(recent, now, making) and (making is not None or now - recent.made_s < self._interval_s):
                    return recent.board
                if key not in self._busy:
                    self._busy[key] = now
                    mine = True
            computing = self._computing.setdefault(full, threading.Lock())
        try:
            return self._compute(full, computing, compute)
        finally:
            if mine:
                with self._lock:
                    self._busy.pop(key, None)

    def peek(self, key: Hashable, changes: tuple[int, ...]) -> tuple[Ranked, bool] | None:
        """For a request answered on the event loop (which must not wait for a ranking): the board ``rows``
        would give now, or the last one when that is within the bound, without making one; with True when a
        new board may be made now and nobody is making it (the caller then ``claim``s it: ``claim_next``).
        None: a thread makes (or waits for) the board: none for ``key`` yet, or the last is past the bound."""
        with self._lock:
            hit = self._rows.get((key, changes))
            if hit is not None:
                self._rows.move_to_end((key, changes))
                return hit.board, False
            recent = self._recent.get(key)
            if recent is None or self._interval_s <= 0:
                return None
            if self._current(recent, changes):
                return recent.board, False
            now = self._clock()
            making = self._making(key, now)
            if not self._within(recent, now, making):
                return None
            return recent.board, making is None and now - recent.made_s >= self._interval_s

    def _compute(
        self, full: tuple[Hashable, tuple[int, ...]], computing: threading.Lock, compute: Callable[[], Ranked]
    ) -> Ranked:
        key, changes = full
        with computing:
            with self._lock:
                hit = self._rows.get(full)
                if hit is not None:
                    return hit.board
            try:
                made_s = self._clock()
                rows = compute()
                with self._lock:
                    before = self._recent.get(key)
                    entry = _Entry(key, rows, changes, made_s)
                    rows._entry[:] = [entry]
                    self._rows[full] = entry
                    if before is None or not self._current(before, changes):  # the newest (computations overlap)
                        if self._interval_s > 0 and before is not None:
                            entry.previous = before  # its JSON and HTML while this one's are made (within the bound)
                            before.previous = None
                        self._recent[key] = entry
                    while len(self._rows) > self._size:
                        self._rows.popitem(last=False)
            finally:
                with self._lock:
                    self._computing.pop(full, None)
        return rows

    # ------------------------------------------------------------------------------------ what is made of them

    def item(self, board: Ranked, kind: Hashable, make: Callable[[], Any]) -> Any:
        """``board.derived(kind, make)`` (the board's JSON, its table): while another request makes it, the
        board before's when that is within the bound (not waiting for it), else wait for it."""
        if kind in board.memo:
            return board.memo[kind]
        if board._making.locked():
            before = self._before(board, kind)
            if before is not None:
                return before
        return board.derived(kind, make, since=self._clock)

    def ready(self, board: Ranked, kind: Hashable) -> tuple[Any, bool] | None:
        """For the event loop: what ``item`` gives without making it: the board's own and False; or the board
        before's (within the bound) and True when the caller should have a thread make this one's (nobody is:
        ``claim_next``); None: a thread makes it (or waits for it)."""
        if kind in board.memo:
            return board.memo[kind], False
        before = self._before(board, kind)
        if before is None:
            return None
        with self._lock:
            making = self._making_item(board)
        return before, making is None

    def _making_item(self, board: Ranked) -> float | None:
        """Since when an item of ``board``, or its key's next board, is being made. Under the lock."""
        times = board._making_since[:1]
        if board._entry:
            key_making = self._making(board._entry[0].key, self._clock())
            if key_making is not None:
                times.append(key_making)
        return min(times) if times else None

    def _before(self, board: Ranked, kind: Hashable) -> Any | None:
        """The item ``kind`` of the board ``board`` replaced, when it is made and within the bound."""
        with self._lock:
            entry = board._entry[:1]
            previous = entry[0].previous if entry else None
            if previous is None or kind not in previous.board.memo:
                return None
            if not self._within(previous, self._clock(), self._making_item(board)):
                return None
            return previous.board.memo[kind]

    # ------------------------------------------------------------------------------------ claims

    def claim(self, what: tuple[Hashable, Hashable]) -> Claim | None:
        """The claim to bring ``what`` (a key and an item) up to date (in a thread, then ``release``), or None
        when another caller has it: one at a time; a claim not released within CLAIM_S (its request went
        away) lapses."""
        now = self._clock()
        with self._lock:
            held = self._claims.get(what)
            if held is not None and 0 <= now - held.since_s < CLAIM_S:
                return None
            self._claims[what] = claim = Claim(what, now)
            return claim

    def release(self, claim: Claim) -> None:
        """Ends ``claim`` (not a newer one for the same thing, made after it lapsed)."""
        with self._lock:
            if self._claims.get(claim.what) is claim:
                del self._claims[claim.what]
