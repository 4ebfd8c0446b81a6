"""The garbage collector of a long-running `judge serve` process (issue 32).

A full collection goes through every object the collector tracks and stops every thread meanwhile. In the
500-team rush (bench/serve.py --teams 500) the server holds some 120,000 of them beyond what was frozen at
the start: the open feeds' coroutines, the kept-alive connections, the event log's records. Python ran a
full collection every 4-5 s, 94-143 ms each, and found nothing to collect: a stall that every request
in flight waited out.

So, after each full collection, what survived it is frozen (``gc.freeze``): the next full collections go
through what is newer only (20-30 ms in the same rush). Frozen objects are freed as usual when their last
reference goes; only garbage in a reference cycle among them waits, and for that, now and then, everything
is unfrozen again and the next full collection goes through all of it: when the frozen objects have grown
``growth`` times since the last such pass, or ``every_s`` after it. That bounds what cyclic garbage can be
kept, at the cost of one long collection per interval instead of one every few seconds.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

COMPLETE_EVERY_S = 600.0  # a full collection through everything at least this often (one per 10 minutes)
COMPLETE_GROWTH = 2.0  # or when the frozen objects have doubled since the last one


@dataclass
class FreezingCollector:
    """A ``gc.callbacks`` entry. ``freeze``, ``unfreeze``, ``frozen`` and ``clock`` are the gc module's and
    time.monotonic, passed in for tests. Its state is only touched within the collector's callbacks, which
    the interpreter never runs two at a time."""

    every_s: float = COMPLETE_EVERY_S
    growth: float = COMPLETE_GROWTH
    freeze: Callable[[], None] = gc.freeze
    unfreeze: Callable[[], None] = gc.unfreeze
    frozen: Callable[[], int] = gc.get_freeze_count
    clock: Callable[[], float] = time.monotonic
    complete_passes: int = 0  # how many full collections went through everything (for tests and curiosity)
    _baseline: int = field(default=0, init=False)  # frozen after the last complete pass
    _since: float = field(default=0.0, init=False)  # when that was
    _complete_next: bool = field(default=False, init=False)  # everything is unfrozen: the next pass is complete

    def start(self) -> None:
        """Freeze what is alive now (call it once everything long-lived is loaded)."""
        self.freeze()
        self._baseline, self._since = self.frozen(), self.clock()

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        self.freeze()
        if self._complete_next:
            self._complete_next = False
            self.complete_passes += 1
            self._baseline, self._since = self.frozen(), self.clock()
        elif self.frozen() > self.growth * max(self._baseline, 1) or self.clock() - self._since >= self.every_s:
            self.unfreeze()
            self._complete_next = True


@contextmanager
def frozen_heap(collector: FreezingCollector | None = None) -> Iterator[FreezingCollector]:
    """Within: what is alive at the start, and what survives each full collection, is frozen (see above).
    After: the collector as it was (its callback removed, everything unfrozen)."""
    collector = collector or FreezingCollector()
    gc.collect()  # what is garbage now is not frozen
    collector.start()
    gc.callbacks.append(collector)
    try:
        yield collector
    finally:
        gc.callbacks.remove(collector)
        gc.unfreeze()
