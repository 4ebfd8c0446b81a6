"""The contest's phases at a moment: started, running, frozen, ended, thawed. A frozen record of the
times in force (the freeze an admin may have brought forward, the thaw an admin may have scheduled, when
the board did thaw); every question about "now" is a pure function of it and the time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.serve.model.contest import ContestInfo
from judge.serve.model.times import format_reltime, format_time


@dataclass(frozen=True)
class Phase:
    info: ContestInfo
    freeze_s: float | None  # when the board freezes (or froze); None: never
    thaw_s: float | None  # when the board thaws (or thawed); None: not set
    thawed_at: float | None = None  # when it did thaw; None: not yet
    finalized_at: float | None = None  # when an admin finalized the results; None: not (the board may be frozen)

    @property
    def start_s(self) -> float | None:
        return self.info.start_s

    @property
    def end_s(self) -> float | None:
        return self.info.end_s

    def started(self, now: float) -> bool:
        return self.info.start_s is not None and now >= self.info.start_s

    def running(self, now: float) -> bool:
        end = self.info.end_s
        return self.started(now) and end is not None and now < end

    def in_contest(self, time_s: float) -> bool:
        """Whether a submission made at ``time_s`` was made during the contest (others are staff's tests)."""
        start, end = self.info.start_s, self.info.end_s
        return start is not None and end is not None and start <= time_s < end

    def board_frozen(self, now: float) -> bool:
        """Whether public and teams see the frozen board now."""
        return self.freeze_s is not None and now >= self.freeze_s and self.thawed_at is None

    def frozen_from(self, now: float) -> float | None:
        """The freeze time while public and teams see the frozen board; None when they see it live."""
        return self.freeze_s if self.board_frozen(now) else None

    def hidden_by_freeze(self, submission_time_s: float, now: float) -> bool:
        """A submission whose result public and other teams do not see yet."""
        return self.freeze_s is not None and submission_time_s >= self.freeze_s and self.board_frozen(now)

    def freeze_duration_s(self) -> float:
        """The contest's scoreboard_freeze_duration, as it is now (after an early freeze: longer), in the
        contest's time (a removed interval in the freeze does not lengthen it)."""
        end = self.info.end_s
        if self.freeze_s is None or end is None:
            return self.info.freeze_duration_s
        return self.info.contest_time_s(end) - self.info.contest_time_s(self.freeze_s)

    def thaw_due(self, now: float) -> bool:
        return (
            self.freeze_s is not None
            and self.thawed_at is None
            and self.thaw_s is not None
            and now >= self.thaw_s
            and now >= self.freeze_s
        )

    @property
    def end_of_updates_s(self) -> float | None:
        """When nothing changes any more (the spec's ``end_of_updates``): once the results are finalized and
        the board is thawed, or was never frozen. The spec lets the two come in either order; the ICPC's is
        finalize, the resolver's ceremony on the frozen board, then the thaw. None: not yet."""
        if self.finalized_at is None:
            return None
        if self.freeze_s is None:
            return self.finalized_at
        if self.thawed_at is None:
            return None
        return max(self.finalized_at, self.thawed_at)

    def results_public(self, now: float) -> bool:
        """Whether the final results are everyone's: the contest has ended and the board is not frozen for
        the public (thawed, or never frozen). The awards page and the medals on the board wait for it."""
        return self.end_s is not None and now >= self.end_s and not self.board_frozen(now)

    def state_json(self, now: float) -> dict[str, Any]:
        """The Contest API's state object at ``now``."""

        def at(t: float | None) -> str | None:
            return format_time(t) if t is not None and now >= t else None

        frozen = at(self.freeze_s)
        state: dict[str, Any] = {
            "started": at(self.info.start_s),
            "frozen": frozen,
            "ended": at(self.info.end_s),
            "thawed": format_time(self.thawed_at) if self.thawed_at is not None and frozen else None,
            "finalized": at(self.finalized_at),
            "end_of_updates": at(self.end_of_updates_s),  # unless an admin un-finalizes (to rejudge)
        }
        if self.info.removed:  # the spec's optional array: only when an admin removed some (issue 43)
            state["removed_intervals"] = [
                {
                    "start": format_time(begin),
                    "end": format_time(end),
                    "contest_time": format_reltime(self.info.contest_time_s(begin)),
                }
                for begin, end in self.info.removed
            ]
        return state

    def finalize_refusal(self, now: float, unjudged: int) -> str | None:
        """Why the contest cannot be finalized now (one line), or None."""
        if self.finalized_at is not None:
            return f"the contest was finalized at {format_time(self.finalized_at)}"
        end = self.info.end_s
        if end is None or now < end:
            return "the contest has not ended yet" + ("" if end is None else f" (it ends at {format_time(end)})")
        if unjudged:
            return f"{unjudged} submission(s) made during the contest are not judged yet: wait for them, then finalize"
        return None

    def freeze_refusal(self, now: float) -> str | None:
        """Why the board cannot be frozen now (one line), or None: the contest is running and the board
        is neither frozen nor thawed yet."""
        if not self.running(now):
            return "the contest is not running: there is nothing to freeze"
        if self.thawed_at is not None:
            return f"the scoreboard was thawed at {format_time(self.thawed_at)}"
        if self.freeze_s is not None and now >= self.freeze_s:
            return f"the scoreboard is frozen since {format_time(self.freeze_s)}"
        return None
