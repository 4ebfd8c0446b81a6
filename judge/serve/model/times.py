"""The Contest API's times (judge/scoreboard/times.py: ``TIME`` and ``RELTIME``, their formats and parsers,
shared with `judge grade`), and the clock the server reads (passed in, so tests can set it)."""

from __future__ import annotations

import time
from typing import Protocol

from judge.scoreboard.times import TimeError, format_reltime, format_time, parse_reltime, parse_time

__all__ = ["Clock", "SystemClock", "TimeError", "format_reltime", "format_time", "parse_reltime", "parse_time"]


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()
