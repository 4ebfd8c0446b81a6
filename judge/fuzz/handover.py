"""The submission runs of one fuzzing run: how many may be under way at once, and a prompt handover.

With one run at a time and a spare search (``pipeline``), the next search's example is usually ready
when a run ends. The search whose run ended then has its own work to do (collecting the run's result,
``accepts()``, Hypothesis' next draw: milliseconds of Python); were it to go on at once, the next search
would wait for the interpreter lock before it could start its program, and the submission's runs would
have gaps. So:

- a run gives its slot back as soon as its program has ended (``Turn.ended``), before its result is
  collected: the runner's cleanup after a run overlaps the next run, not the gap between them;
- a search that gives its slot back while another waits for one blocks (without the lock) until that
  search's program has started (or its run has ended, or ``HANDOVER_WAIT_S`` has passed).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

HANDOVER_WAIT_S = 0.05  # at most this long; a run that cannot start is over sooner than that


class Turn:
    """One run's hold on a slot, from ``RunSlots.run``.

    Call it once the program has started: the search that handed its slot over may go on.
    ``ended()`` once the program has ended: the slot is given back then. Each takes effect once; the
    end of the ``with`` block does what was not done (a run that never started hands over too).
    """

    def __init__(self, slots: RunSlots, handed: threading.Event | None) -> None:
        self._slots: RunSlots | None = slots
        self._handed = handed

    def __call__(self) -> None:
        if self._handed is not None:
            self._handed.set()
            self._handed = None

    def ended(self) -> None:
        slots, self._slots = self._slots, None
        if slots is not None:
            self()
            slots._give_back()


class RunSlots:
    """At most ``slots`` runs at once; thread-safe."""

    def __init__(self, slots: int = 1) -> None:
        self._cond = threading.Condition()
        self._free = max(1, slots)
        self._waiting = 0
        self._handovers: deque[threading.Event] = deque()  # slots given back to a waiting search

    @property
    def waiting(self) -> int:
        """Searches waiting for a slot now."""
        with self._cond:
            return self._waiting

    @property
    def free(self) -> int:
        """Slots free now."""
        with self._cond:
            return self._free

    @contextmanager
    def run(self) -> Iterator[Turn]:
        """Hold a slot for one run (see ``Turn``)."""
        with self._cond:
            self._waiting += 1
            try:
                while self._free == 0:
                    self._cond.wait()
            finally:
                self._waiting -= 1
            self._free -= 1
            turn = Turn(self, self._handovers.popleft() if self._handovers else None)
        try:
            yield turn
        finally:
            turn.ended()

    def _give_back(self) -> None:
        """A slot is free again (only ``Turn.ended`` calls it); blocks while handing it over, see the module."""
        with self._cond:
            self._free += 1
            handed = threading.Event() if self._waiting > len(self._handovers) else None
            if handed is not None:
                self._handovers.append(handed)
            self._cond.notify()
        if handed is not None:
            handed.wait(HANDOVER_WAIT_S)
