"""The live scoreboard, as the Contest API's scoreboard object: ranked by the same code as `judge grade`
(model/board.py; a pass-fail contest by scoreboard/passfail.py) from the stored judgements, frozen or live
as visibility.board_view says, and cached (the awards it decides: services/lifecycle/awards.py). The main board ranks
the teams of ``main_scoreboard_group_id`` (all when unset) that are in no hidden group."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any

from judge.serve.model.board import (
    attempts,
    passfail_rows,
    passfail_standings,
    scoreboard_json,
    scoreboard_rows,
)
from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused
from judge.serve.model.records import Counted, JudgementRecord
from judge.serve.services.board import course_board
from judge.serve.services.board.boardcache import Claim, Ranked
from judge.serve.services.board.context import ServedBoard
from judge.serve.services.core.events import RECHECK_S, EventBus
from judge.serve.storage import Reader
from judge.serve.visibility import (
    Sight,
    awaits_verification,
    board_view,
    published_judgements,
    sees_group,
    sees_hidden_teams,
)

# what the board is made of publishes these in the transaction that changes it (a submission, ignored or
# not; a judgement started, finished, rejudged, republished at the thaw; a team, hidden or not; a group; an
# award, whose medals the final board's page draws): a newer one means another board, and the other events
# (a run's, of which a judgement has one per test; a clarification's) leave it as it was
BOARD_EVENTS = ("submissions", "judgements", "teams", "groups", "awards")


def without_hidden(contest: Contest) -> Contest:
    """The contest as the public's board ranks it: without the hidden teams (judged, but off the board)."""
    hidden = contest.hidden_team_ids
    return replace(contest, teams=tuple(t for t in contest.teams if t.id not in hidden)) if hidden else contest


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


def verified_counted(r: Reader, counted: list[Counted]) -> list[Counted]:
    """``counted`` with each judgement that awaits verification (issue 47) replaced by the one the teams
    and the public are shown as current instead (visibility.published_judgements; None: pending)."""
    waiting = [c.submission.id for c in counted if c.judgement is not None and awaits_verification(c.judgement)]
    if not waiting:
        return counted
    by_sub: dict[int, list[JudgementRecord]] = {}
    for j in r.judgements(submission_ids=waiting):
        by_sub.setdefault(j.submission_id, []).append(j)
    shown = {
        sid: next((j for j in published_judgements(js) if j.current and j.done), None) for sid, js in by_sub.items()
    }
    return [Counted(c.submission, shown[c.submission.id]) if c.submission.id in shown else c for c in counted]


def ranked_rows(
    r: Reader,
    contest: Contest,
    whole: Contest,
    frozen_from: float | None,
    show_problems: bool,
    verified_only: bool = False,
) -> Ranked:
    """``contest``'s board (``whole``: the contest it is a group of, whose teams may be first to solve);
    ``verified_only``: judgements awaiting verification count as the public is shown them (issue 47)."""
    info = contest.info
    window = None if info.start_s is None or info.end_s is None else (info.start_s, info.end_s)
    counted = r.counted(window) if window is not None else []
    if verified_only:
        counted = verified_counted(r, counted)
    tries = attempts(counted, frozen_from=frozen_from)
    if info.pass_fail:
        st = passfail_standings(contest, tries, [t.id for t in whole.teams])
        return Ranked(passfail_rows(st, show_problems=show_problems), st)
    return Ranked(scoreboard_rows(contest, tries, show_problems=show_problems))


def first_change(bus: EventBus) -> Callable[[tuple[int, ...]], float | None]:
    """BoardCache's ``since``: the time of the first board event newer than a board's ``changes``, from the
    bus's copy of the event log (None without one: the cache then counts from when the board was made)."""

    def since(changes: tuple[int, ...]) -> float | None:
        log = bus.log
        return None if log is None else log.first_after(BOARD_EVENTS, changes)

    return since


def board_changes(server: ServedBoard) -> tuple[int, ...]:
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
    verified_only: bool = False


def _asked(server: ServedBoard, sight: Sight, group_id: str | None) -> _Asked:
    view = board_view(sight)
    base = server.contest
    hidden = frozenset[str]() if sees_hidden_teams(sight) else base.hidden_team_ids
    if hidden:  # off the board for whoever may not see them: ranked without them
        base = without_hidden(base)
    contest = group_contest(base, group_id, sight)
    info = contest.info
    # the phase's freeze too (staff's view is live either way): a key's boards never cross a freeze or a
    # thaw, so that none made for one audience is served to another (staff's live board during the freeze
    # is not the public's after the thaw, even when their keys would otherwise be equal)
    phase = sight.phase.frozen_from(sight.now)
    key: Hashable = (
        view.frozen_from,
        phase,
        info.start_s,
        info.end_s,
        info.removed,
        group_id,
        view.show_problems,
        hidden,
        view.verified_only,  # issue 47: the verified results only
    )
    return _Asked(contest, main_contest(base), view.frozen_from, view.show_problems, key, view.verified_only)


def ranked_in(r: Reader, server: ServedBoard, sight: Sight) -> Ranked:
    """The main board ``sight`` sees, ranked from ``r`` (inside a transaction: not from the cache)."""
    asked = _asked(server, sight, None)
    return ranked_rows(r, asked.contest, asked.whole, asked.frozen_from, asked.show_problems, asked.verified_only)


def ranked(server: ServedBoard, sight: Sight, group_id: str | None = None) -> tuple[dict[str, Any], Ranked]:
    """The scoreboard object for whoever looks (frozen for public and teams during the freeze), and the
    ranking it shows."""
    asked = _asked(server, sight, group_id)

    def compute() -> Ranked:
        with server.storage.read() as r:
            return ranked_rows(
                r, asked.contest, asked.whole, asked.frozen_from, asked.show_problems, asked.verified_only
            )

    board = server.boards.rows(asked.key, board_changes(server), compute)
    return scoreboard_json(asked.contest, board.rows, sight.phase.state_json(sight.now), sight.now), board


@dataclass(frozen=True)
class Made:
    """A board answered on the event loop (``made``): the scoreboard object and the ranking it shows."""

    doc: dict[str, Any]
    board: Ranked
    key: Hashable  # its key in the cache (BoardCache.claim)
    behind: bool  # ``ranked`` would give a newer one now (BoardCache.peek, or the event log's copy is old)


def made(server: ServedBoard, sight: Sight, group_id: str | None = None) -> Made | None:
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


def claim_next(server: ServedBoard, found: Made, item: Hashable, item_behind: bool) -> Claim | None:
    """When what is answered from ``found`` is behind (the board, or ``item`` made of it: ``BoardCache.ready``),
    the claim to have a thread make the next (``remake``); None when it is not behind or another has it."""
    return server.boards.claim((found.key, item)) if found.behind or item_behind else None


def remake(server: ServedBoard, claim: Claim, answer: Callable[[], object]) -> None:
    """In a thread, after an answer from the event loop that was behind (``Made.behind``, ``BoardCache.ready``):
    ``answer()`` (the request's answer from a thread, thrown away) makes the newer board and what is made of
    it, for the next requests; then ``claim`` is released."""
    try:
        answer()
    except Exception as exc:  # the thread path answers the same request, which did not fail on the loop
        server.log(f"scoreboard: making the next board: {type(exc).__name__}: {exc}")
    finally:
        server.boards.release(claim)


def scoreboard(server: ServedBoard, sight: Sight, group_id: str | None = None) -> dict[str, Any]:
    """The scoreboard object for whoever looks (a course's: course_board.py)."""
    if server.course.state is not None:
        return course_board.scoreboard_json(server, sight, group_id)
    return ranked(server, sight, group_id)[0]


def scoreboard_bytes(server: ServedBoard, sight: Sight, group_id: str | None = None) -> bytes:
    """The scoreboard object as the API sends it (compact JSON, the same bytes ``json.dumps`` of
    ``scoreboard`` gives): the rows are serialized once per board, not once per request (issue 32)."""
    if server.course.state is not None:  # a course's (issue 45): made anew each time
        return _dumps(course_board.scoreboard_json(server, sight, group_id)).encode()
    doc, board = ranked(server, sight, group_id)
    return _joined(doc, server.boards.item(board, "rows.json", lambda: _dumps(doc["rows"])))


def scoreboard_bytes_made(
    server: ServedBoard, sight: Sight, group_id: str | None = None
) -> tuple[bytes, Claim | None] | None:
    """``scoreboard_bytes`` when the board and its JSON are made (``made``; None otherwise), and a claim
    (BoardCache.claim) when it is behind: the caller then has ``remake`` run in a thread."""
    if server.course.state is not None:
        return None  # a course's board is made in a thread (it reads storage)
    found = made(server, sight, group_id)
    rows = None if found is None else server.boards.ready(found.board, "rows.json")
    if found is None or rows is None:
        return None
    return _joined(found.doc, rows[0]), claim_next(server, found, "rows.json", rows[1])


def _joined(doc: dict[str, Any], rows: str) -> bytes:
    head = _dumps({k: v for k, v in doc.items() if k != "rows"})
    return f'{head[:-1]},"rows":{rows}}}'.encode()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))
