"""One background loop's log of the database's outages (issue 51): a loop that retries every second (the
contest clock, the judging queue's dispatcher) says once that the database cannot be reached and that it
keeps retrying, then nothing until the database answers again, then once how long it was away. Every other
error is logged at each failure, as before (docs/deploy.md, "When the primary dies").

The loop calls ``failed(exc)`` when a round raised, and ``answered()`` after a round that reached the
database; a round that may not have reached it (the clock's ticks mostly do not) calls ``ok()``, and the
``probe`` (a read transaction) says whether the database is back."""

from __future__ import annotations

import threading
from collections.abc import Callable

from judge.serve.storage import StorageUnavailable


class Outage:
    def __init__(
        self,
        what: str,
        log: Callable[[str], None],
        now: Callable[[], float],
        probe: Callable[[], object] | None = None,
    ) -> None:
        """``what``: the loop, the start of its log lines; ``now``: its clock (seconds); ``probe``: reaches the
        database or raises StorageUnavailable (None: every round that calls ``ok`` reached it)."""
        self._what = what
        self._log = log
        self._now = now
        self._probe = probe
        self._lock = threading.Lock()
        self._since_s: float | None = None  # when the current outage began (None: no outage)

    @property
    def down(self) -> bool:
        return self._since_s is not None

    def failed(self, exc: Exception) -> None:
        """A round raised ``exc``: an outage's first StorageUnavailable is logged, its others are not."""
        if not isinstance(exc, StorageUnavailable):
            self._log(f"{self._what}: {type(exc).__name__}: {exc}")
            return
        with self._lock:
            first = self._since_s is None
            if first:
                self._since_s = self._now()
        if first:
            self._log(
                f"{self._what}: the database is unreachable ({exc}); it keeps retrying every second, "
                "and logs nothing more until the database answers"
            )

    def ok(self) -> None:
        """A round ended without an error: during an outage, the probe says whether the database is back."""
        if self._since_s is None:
            return
        if self._probe is not None:
            try:
                self._probe()
            except StorageUnavailable:
                return  # still away: quiet
            except Exception as exc:  # noqa: BLE001 - reached, but something else is wrong: say it
                self._log(f"{self._what}: {type(exc).__name__}: {exc}")
                return
        self.answered()

    def answered(self) -> None:
        """A round reached the database: the end of the outage, if there was one, is logged once."""
        with self._lock:
            since = self._since_s
            self._since_s = None
        if since is not None:
            away_s = max(0.0, self._now() - since)
            self._log(f"{self._what}: the database is reachable again, after {away_s:.0f} s away")
