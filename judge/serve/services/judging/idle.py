"""Work that runs only on the judging pool's idle slots (issue 33): rejudge previews, counterexamples for
rejected submissions (issue 46), similar submissions, live fuzzing.

The pool (pool.py) claims real judging first (new submissions, then rejudges). Only when that queue is
empty and a slot is still free does it ask its idle queues, in their order of priority, for jobs; at most
``workers - 1`` slots do idle work at once (one always stays free for a new submission; a pool of one
worker lends its one slot). An idle job is handed ``cancelled``: true as soon as a real job waits for its
slot (the dispatcher claimed real work that no free slot could take) or the server stops; a real job that
a free slot takes leaves idle work running. A job asks it between its steps (the fuzz engine before every
example) and, when it turns true, stops soon, leaving itself queued with what it has done so far, to be
claimed again later.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol


class IdleJob(Protocol):
    @property
    def key(self) -> str:
        """Unique while in flight (e.g. ``fuzz:12``): a job whose key is busy is not claimed twice."""
        ...

    @property
    def label(self) -> str:
        """What the judges page shows for the slot (e.g. ``fuzzing submission 12``)."""
        ...

    def run(self, cancelled: Callable[[], bool]) -> None:
        """Do (part of) the job and store what it did; return early when ``cancelled()`` turns true.
        Exceptions are logged by the pool and the job is claimed again later."""
        ...


class IdleQueue(Protocol):
    def claim_idle(self, limit: int, busy: Collection[str]) -> list[IdleJob]:
        """Up to ``limit`` jobs whose key is not in ``busy``, most urgent first."""
        ...


class LedIdle:
    """An idle queue asked only while ``leads()`` (several processes on one database, issue 51: the idle jobs'
    claims are in memory, so one process at a time does a database's idle work: ``Storage.leads``)."""

    def __init__(self, queue: IdleQueue, leads: Callable[[], bool]) -> None:
        self.queue = queue
        self._leads = leads

    def claim_idle(self, limit: int, busy: Collection[str]) -> list[IdleJob]:
        return self.queue.claim_idle(limit, busy) if self._leads() else []
