"""The live scoreboard, as the Contest API's scoreboard object: ranked by the same code as `judge grade`
(model/board.py; a pass-fail contest by scoreboard/passfail.py) from the stored judgements, frozen or live
as visibility.board_view says, and cached (the awards it decides: services/awards.py). The main board ranks
the teams of ``main_scoreboard_group_id`` (all when unset) that are in no hidden group."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from judge.scoreboard.passfail import Standings
from judge.serve.model.board import (
    attempts,
    passfail_rows,
    passfail_standings,
    scoreboard_json,
    scoreboard_rows,
)
from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused
from judge.serve.services.events import RECHECK_S
from judge.serve.storage import Reader
from judge.serve.visibility import Sight, board_view, sees_group, sees_hidden_teams

if TYPE_CHECKING:
    from judge.serve.services.server import Server


@dataclass(frozen=True)
class Ranked:
    """A ranked board: the spec's rows, and for a pass-fail contest the standings they were written from
    (the pages draw their cells, first to solve among them, and the awards read them). ``memo``: what is
    made of this board once for every request that gets it (the rows as JSON, the pages' table as HTML:
    ``derived``), dropped with it when a change makes another board."""

    rows: list[dict[str, Any]]
    standings: Standings | None = None
    memo: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)
    _making: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)
    # the board this one replaced, when a board may lag (BoardCache's interval): what it made is served
    # while this one makes the same (at most one: BoardCache drops the older link)
    previous: list[Ranked] = field(default_factory=list, compare=False, repr=False)

    def derived(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``, once per board and key: made by the first request that asks (100 board polls a second
        right after a change would otherwise each make it at once: issue 32); the others get the previous
        board's meanwhile when there is one, else wait for it."""
        if key in self.memo:
            return self.memo[key]
        if not self._making.acquire(blocking=False):
            before = self.previous[0] if self.previous else None
            if before is not None and key in before.memo:
                return before.memo[key]
            self._making.acquire()
        try:
            if key not in self.memo:
                self.memo[key] = make()
            return self.memo[key]
        finally:
            self._making.release()

    def ready(self, key: Hashable) -> tuple[Any, bool] | None:
        """What ``derived(key)`` gives, without making it (for the event loop): this board's and False, else
        the board it replaced's and True (behind, as ``Made.behind``), else None."""
        if key in self.memo:
            return self.memo[key], False
        before = self.previous[:1]  # a copy: BoardCache may clear the link meanwhile
        if before and key in before[0].memo:
            return before[0].memo[key], True
        return None


@dataclass(frozen=True, eq=False)
class Claim:
    """BoardCache.claim: a thread brings ``what`` up to date."""

    what: Hashable
    since_s: float


class BoardCache:
    """The last boards computed, keyed on all they depend on (the caller's key: the newest events of the
    types in BOARD_EVENTS, since
    every change to a submission or judgement publishes one in the same transaction; the freeze in force;
    the contest's times; the group; whether problems are shown). Under load every poll of the board asks
    for the same one: it is ranked once per change, not once per request. Thread-safe. The rows given out
    are shared: read them, do not change them.

    ``interval_s`` (`judge serve --board-interval`; 0: none): a board made less than that long ago (by
    ``clock``) for the same key but older changes is served as it is. In a submission rush every submission
    and every judgement is a change (16 a second at 500 teams), and each new board is ranked, written as
    JSON and drawn as HTML for 500 teams: at most one new board per interval bounds that work, and a board
    is at most one interval behind the event feed (which is exact), plus the time the next takes to make
    (a request thread's wait included).
    With an interval, the requests that ask while a new board is being made get the last one (and its JSON
    and HTML) instead of waiting for it: in a rush 100 polls a second would otherwise each hold a worker
    thread for as long as the ranking and drawing take, and the other requests would queue for a thread.
    On the event loop (``peek``) the last one is answered even before the next is begun: the first such
    request to ``claim`` it has a thread make the next once its answer is sent (``remake``)."""

    def __init__(self, size: int = 8, interval_s: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._size = size
        self._interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._rows: OrderedDict[Hashable, Ranked] = OrderedDict()
        self._recent: dict[Hashable, tuple[float, tuple[int, ...], Ranked]] = {}  # key -> the newest board made
        self._computing: dict[Hashable, threading.Lock] = {}  # one computation per key at a time
        self._busy: set[Hashable] = set()  # with an interval: the keys a board is being made for
        self._claims: dict[Hashable, Claim] = {}  # what a thread is bringing up to date

    def clear(self) -> None:
        """Forget every board (each is computed anew when next asked for)."""
        with self._lock:
            self._rows.clear()
            self._recent.clear()

    def rows(self, key: Hashable, changes: tuple[int, ...], compute: Callable[[], Ranked]) -> Ranked:
        """The board for ``key`` as of ``changes`` (the newest board-changing events): computed by the first
        request that asks; those asking meanwhile wait for it rather than compute it too (single flight: a
        change under 100 polls a second is ranked once), or with an interval get the last one; within
        ``interval_s`` of the last, that one."""
        full = (key, changes)
        with self._lock:
            if full in self._rows:
                self._rows.move_to_end(full)
                return self._rows[full]
            recent = self._recent.get(key)
            if (
                recent is not None
                and self._fresh(recent[0])
                and all(a <= b for a, b in zip(recent[1], changes, strict=True))
            ):
                return recent[2]
            mine = False
            if recent is not None and self._may_lag(recent[0]):
                if key in self._busy:
                    return recent[2]  # being made: the last one meanwhile
                self._busy.add(key)
                mine = True
            computing = self._computing.setdefault(full, threading.Lock())
        try:
            return self._compute(full, computing, compute)
        finally:
            if mine:
                with self._lock:
                    self._busy.discard(key)

    def peek(self, key: Hashable, changes: tuple[int, ...]) -> tuple[Ranked, bool] | None:
        """The board ``rows`` would give now, without making one, for a request answered on the event loop
        (which must not wait for a ranking): the board and False; or, with an interval, the last one and True
        when ``rows`` would make a newer (behind: the caller may answer with it and have a thread make the
        next, ``claim``); None: no board for ``key`` yet, or no interval."""
        with self._lock:
            board = self._rows.get((key, changes))
            if board is not None:
                self._rows.move_to_end((key, changes))
                return board, False
            recent = self._recent.get(key)
            if recent is None or not self._may_lag(recent[0]):
                return None
            if key in self._busy or (
                self._fresh(recent[0]) and all(a <= b for a, b in zip(recent[1], changes, strict=True))
            ):
                return recent[2], False  # what rows gives now, without making one
            return recent[2], True

    @property
    def lags(self) -> bool:
        """Whether a board may be behind the newest changes (an interval), or is always exact."""
        return self._interval_s > 0

    def claim(self, what: Hashable) -> Claim | None:
        """The claim to bring ``what`` up to date (in a thread, then ``release``), or None when another
        caller has it: one at a time; a claim not released within CLAIM_S (its request went away) lapses."""
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

    def _fresh(self, made_s: float) -> bool:
        return self._interval_s > 0 and self._clock() - made_s < self._interval_s

    def _may_lag(self, made_s: float) -> bool:
        """Whether a board made then may be served while a newer one is made: with an interval, and made
        within it and BEHIND_S more (not a board from long ago whose key comes back: the one from before the
        freeze at the thaw, or after a quiet stretch)."""
        return self._interval_s > 0 and 0 <= self._clock() - made_s < self._interval_s + BEHIND_S

    def _compute(
        self, full: tuple[Hashable, tuple[int, ...]], computing: threading.Lock, compute: Callable[[], Ranked]
    ) -> Ranked:
        key, changes = full
        with computing:
            with self._lock:
                if full in self._rows:
                    return self._rows[full]
            try:
                made_s = self._clock()
                rows = compute()
                with self._lock:
                    before = self._recent.get(key)
                    if self._interval_s > 0 and before is not None and before[2] is not rows:
                        rows.previous[:] = [before[2]]  # its JSON and HTML, while this one's are made
                        before[2].previous.clear()
                    self._rows[full] = rows
                    self._recent[key] = (made_s, changes, rows)
                    while len(self._rows) > self._size:
                        self._rows.popitem(last=False)
            finally:
                with self._lock:
                    self._computing.pop(full, None)
        return rows


# what the board is made of publishes these in the transaction that changes it (a submission, ignored or
# not; a judgement started, finished, rejudged, republished at the thaw; a team, hidden or not; a group): a
# newer one means another board, and the other events (a run's, of which a judgement has one per test; a
# clarification's) leave it as it was
BOARD_EVENTS = ("submissions", "judgements", "teams", "groups")
CLAIM_S = 10.0  # BoardCache.claim: a claim lapses after this long
BEHIND_S = 10.0  # BoardCache: a board made longer ago than the interval and this is never served behind


def main_contest(contest: Contest) -> Contest:
    """The contest as its main scoreboard ranks it: the teams ``Contest.on_main_board``."""
    if contest.info.main_scoreboard_group_id is None and not contest.hidden_groups:
        return contest
    return replace(contest, teams=tuple(t for t in contest.teams if contest.on_main_board(t)))


def group_contest(contest: Contest, group_id: str | None, sight: Sight | None = None) -> Contest:
    """The contest as the spec's group scoreboard sees it: ranked among the group's teams only (a hidden
    group's: staff only); None: the main board."""
    if group_id is None:
        return main_contest(contest)
    if all(g["id"] != group_id for g in contest.groups) or (
        sight is not None and not sees_group(sight, group_id in contest.hidden_groups)
    ):
        raise Refused(400, f"no group {group_id!r}")
    return replace(contest, teams=tuple(t for t in contest.teams if group_id in t.group_ids))


def ranked_rows(r: Reader, contest: Contest, whole: Contest, frozen_from: float | None, show_problems: bool) -> Ranked:
    """``contest``'s board (``whole``: the contest it is a group of, whose teams may be first to solve)."""
    info = contest.info
    window = None if info.start_s is None or info.end_s is None else (info.start_s, info.end_s)
    counted = r.counted(window) if window is not None else []
    tries = attempts(counted, frozen_from=frozen_from)
    if info.pass_fail:
        st = passfail_standings(contest, tries, [t.id for t in whole.teams])
        return Ranked(passfail_rows(st, show_problems=show_problems), st)
    return Ranked(scoreboard_rows(contest, tries, show_problems=show_problems))


def board_changes(server: Server) -> tuple[int, ...]:
    """The newest events of the types in BOARD_EVENTS: from the event log's copy in memory (which every
    commit through the server refreshes before it is acknowledged; a write from another process is read
    within RECHECK_S), so a board served from the cache reads no storage at all (issue 32: 100 board
    requests a second during a submission rush)."""
    log = server.bus.log
    if log is None:
        with server.storage.read() as r:
            return r.latest_events_of(BOARD_EVENTS)
    log.refresh_if_older(RECHECK_S)
    return log.newest(BOARD_EVENTS)


@dataclass(frozen=True)
class _Asked:
    """Which board a viewer gets (what visibility.py lets them see), and its key in the cache."""

    contest: Contest  # ranked among these teams (the group's, without the hidden ones)
    whole: Contest  # the contest it is a group of (first to solve)
    frozen_from: float | None
    show_problems: bool
    key: Hashable


def _asked(server: Server, sight: Sight, group_id: str | None) -> _Asked:
    view = board_view(sight)
    base = server.contest
    hidden = frozenset[str]() if sees_hidden_teams(sight) else base.hidden_team_ids
    if hidden:  # off the board for whoever may not see them: ranked without them
        base = replace(base, teams=tuple(t for t in base.teams if t.id not in hidden))
    contest = group_contest(base, group_id, sight)
    info = contest.info
    key = (view.frozen_from, info.start_s, info.end_s, group_id, view.show_problems, hidden)
    return _Asked(contest, main_contest(base), view.frozen_from, view.show_problems, key)


def ranked_in(r: Reader, server: Server, sight: Sight) -> Ranked:
    """The main board ``sight`` sees, ranked from ``r`` (inside a transaction: not from the cache)."""
    asked = _asked(server, sight, None)
    return ranked_rows(r, asked.contest, asked.whole, asked.frozen_from, asked.show_problems)


def ranked(server: Server, sight: Sight, group_id: str | None = None) -> tuple[dict[str, Any], Ranked]:
    """The scoreboard object for whoever looks (frozen for public and teams during the freeze), and the
    ranking it shows."""
    asked = _asked(server, sight, group_id)

    def compute() -> Ranked:
        with server.storage.read() as r:
            return ranked_rows(r, asked.contest, asked.whole, asked.frozen_from, asked.show_problems)

    board = server.boards.rows(asked.key, board_changes(server), compute)
    return scoreboard_json(asked.contest, board.rows, sight.phase.state_json(sight.now), sight.now), board


@dataclass(frozen=True)
class Made:
    """A board answered on the event loop (``made``): the scoreboard object and the ranking it shows."""

    doc: dict[str, Any]
    board: Ranked
    key: Hashable  # its key in the cache (BoardCache.claim)
    behind: bool  # ``ranked`` would give a newer one now (BoardCache.peek, or the event log's copy is old)


def made(server: Server, sight: Sight, group_id: str | None = None) -> Made | None:
    """What ``ranked`` gives, or with an interval the last board when that would need a new one (then
    ``behind``), without storage and without ranking: for the event loop (http/app.py: a public board poll
    answered without a trip to a request thread, which a rush keeps busy). None: a thread makes the board
    (none made for this viewer yet, or the last from too long ago, or without an interval one not exact)."""
    log = server.bus.log
    if log is None or not (server.boards.lags or log.fresh(RECHECK_S)):
        return None  # without an interval, exact: the copy of the event log read anew first (a thread)
    asked = _asked(server, sight, group_id)
    found = server.boards.peek(asked.key, log.newest(BOARD_EVENTS))
    if found is None:
        return None
    board, behind = found
    doc = scoreboard_json(asked.contest, board.rows, sight.phase.state_json(sight.now), sight.now)
    return Made(doc, board, asked.key, behind or not log.fresh(RECHECK_S))


def claim_next(server: Server, found: Made, item: Hashable, item_behind: bool) -> Claim | None:
    """When what is answered from ``found`` is behind (the board, or ``item`` made of it: ``Ranked.ready``),
    the claim to have a thread make the next (``remake``); None when it is not behind or another has it."""
    return server.boards.claim((found.key, item)) if found.behind or item_behind else None


def remake(server: Server, claim: Claim, answer: Callable[[], object]) -> None:
    """In a thread, after an answer from the event loop that was behind (``Made.behind``, ``Ranked.ready``):
    ``answer()`` (the request's answer from a thread, thrown away) makes the newer board and what is made of
    it, for the next requests; then ``claim`` is released."""
    try:
        answer()
    except Exception as exc:  # the thread path answers the same request, which did not fail on the loop
        server.log(f"scoreboard: making the next board: {type(exc).__name__}: {exc}")
    finally:
        server.boards.release(claim)


def scoreboard(server: Server, sight: Sight, group_id: str | None = None) -> dict[str, Any]:
    """The scoreboard object for whoever looks."""
    return ranked(server, sight, group_id)[0]


def scoreboard_bytes(server: Server, sight: Sight, group_id: str | None = None) -> bytes:
    """The scoreboard object as the API sends it (compact JSON, the same bytes ``json.dumps`` of
    ``scoreboard`` gives): the rows are serialized once per board, not once per request (issue 32)."""
    doc, board = ranked(server, sight, group_id)
    return _joined(doc, board.derived("rows.json", lambda: _dumps(doc["rows"])))


def scoreboard_bytes_made(
    server: Server, sight: Sight, group_id: str | None = None
) -> tuple[bytes, Claim | None] | None:
    """``scoreboard_bytes`` when the board and its JSON are made (``made``; None otherwise), and a claim
    (BoardCache.claim) when it is behind: the caller then has ``remake`` run in a thread."""
    found = made(server, sight, group_id)
    rows = None if found is None else found.board.ready("rows.json")
    if found is None or rows is None:
        return None
    return _joined(found.doc, rows[0]), claim_next(server, found, "rows.json", rows[1])


def _joined(doc: dict[str, Any], rows: str) -> bytes:
    head = _dumps({k: v for k, v in doc.items() if k != "rows"})
    return f'{head[:-1]},"rows":{rows}}}'.encode()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))
