"""The live scoreboard, as the Contest API's scoreboard object: ranked by the same code as `judge grade`
(model/board.py) from the stored judgements, frozen or live as visibility.board_view says, and cached."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from judge.serve.model.board import attempts, scoreboard_json, scoreboard_rows
from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused
from judge.serve.storage import Reader
from judge.serve.visibility import Sight, board_view

if TYPE_CHECKING:
    from judge.serve.services.server import Server


class BoardCache:
    """The last boards computed, keyed on all they depend on (the caller's key: the newest event, since
    every change to a submission or judgement publishes one in the same transaction; the freeze in force;
    the contest's times; the group; whether problems are shown). Under load every poll of the board asks
    for the same one: it is ranked once per change, not once per request. Thread-safe. The rows given out
    are shared: read them, do not change them."""

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._rows: OrderedDict[Hashable, list[dict[str, Any]]] = OrderedDict()

    def rows(self, key: Hashable, compute: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        with self._lock:
            if key in self._rows:
                self._rows.move_to_end(key)
                return self._rows[key]
        rows = compute()  # outside the lock: two threads may compute the same board once each, never wrong
        with self._lock:
            self._rows[key] = rows
            while len(self._rows) > self._size:
                self._rows.popitem(last=False)
        return rows


def group_contest(contest: Contest, group_id: str | None) -> Contest:
    """The contest as the spec's group scoreboard sees it: ranked among the group's teams only."""
    if group_id is None:
        return contest
    if all(g["id"] != group_id for g in contest.groups):
        raise Refused(400, f"no group {group_id!r}")
    return replace(contest, teams=tuple(t for t in contest.teams if group_id in t.group_ids))


def ranked_rows(r: Reader, contest: Contest, frozen_from: float | None, show_problems: bool) -> list[dict[str, Any]]:
    info = contest.info
    window = None if info.start_s is None or info.end_s is None else (info.start_s, info.end_s)
    counted = r.counted(window) if window is not None else []
    return scoreboard_rows(contest, attempts(counted, frozen_from=frozen_from), show_problems=show_problems)


def scoreboard(server: Server, sight: Sight, group_id: str | None = None) -> dict[str, Any]:
    """The scoreboard object for whoever looks (frozen for public and teams during the freeze)."""
    view = board_view(sight)
    contest = group_contest(server.contest, group_id)
    info = contest.info
    with server.storage.read() as r:
        key = (r.latest_event(), view.frozen_from, info.start_s, info.end_s, group_id, view.show_problems)
        rows = server.boards.rows(key, lambda: ranked_rows(r, contest, view.frozen_from, view.show_problems))
    return scoreboard_json(contest, rows, sight.phase.state_json(sight.now), sight.now)
