"""The threads that run the judging queue: a dispatcher that claims as many jobs as there are free
workers (``capacity``, when given, says how many may judge now: a cluster's judge slots, which come and
go), and a pool of workers that judge and store them (judging.JobQueue)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from judge.cluster.workers import ClusterWorker
from judge.serve.services.judging.idle import IdleJob, IdleQueue
from judge.serve.services.judging.queue import NOT_NOW, Claimed, JobQueue

THREAD_PREFIX = "judge-worker"


@dataclass(frozen=True)
class Slot:
    """One judging thread as the judges page shows it (issue 30)."""

    name: str
    submission_id: int | None = None  # judging it now; None: idle
    since_s: float | None = None  # when it took it
    judged: int = 0
    last_s: float | None = None  # when it last finished one
    background: str | None = None  # idle work it does now (idle.IdleJob.label), None: none


@dataclass(frozen=True)
class PoolStatus:
    workers: int
    capacity: int | None  # a cluster's judge slots now (None: this machine's threads)
    heartbeat_s: float | None  # the dispatcher's last round (None: not started)
    slots: tuple[Slot, ...]
    cluster: tuple[ClusterWorker, ...] | None = None  # a Dask cluster's judge workers (None: judging here)


class JudgingPool:
    def __init__(
        self,
        queue: JobQueue,
        *,
        workers: int = 1,
        capacity: Callable[[], int] | None = None,
        log: Callable[[str], None] = lambda line: None,
        cluster: Callable[[], list[ClusterWorker]] | None = None,
        idle: Sequence[IdleQueue] = (),
    ) -> None:
        self._queue = queue
        self._idle = tuple(idle)  # asked in this order when no real job waits (idle.py)
        self._idle_busy: set[str] = set()
        # set by the dispatcher when it claimed a real job no slot was free for: idle jobs give theirs back
        self._real_waiting = threading.Event()
        self._maybe_waiting = threading.Event()  # a wake() (or a full claim) since the last claim: look
        self._cluster = cluster
        self.workers = max(1, workers)
        self._capacity = capacity
        self._log = log
        self._lock = threading.Lock()
        self._in_flight: set[int] = set()
        self._threadless: set[int] = set()  # claimed real jobs waiting for a thread idle work gives back
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._slots: dict[str, Slot] = {}
        self._heartbeat_s: float | None = None

    def start(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=THREAD_PREFIX)
        self._thread = threading.Thread(target=self._dispatch, name="judge-dispatch", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Something was queued: look now, not at the next poll. The dispatcher decides whether idle work
        yields: only when a real job is claimed and no slot is free for it (``_preempt``)."""
        self._maybe_waiting.set()
        with self._lock:
            lent = bool(self._idle_busy)
        if lent and self._free() <= 0:  # no slot free: idle work yields now; the dispatcher claims for it
            self._real_waiting.set()
        self._wake.set()

    def cancelled(self) -> bool:
        """What idle jobs ask: a real job waits for their slot, or the server stops."""
        return self._real_waiting.is_set() or self._stopping.is_set()

    def _free(self) -> int:
        with self._lock:
            busy = len(self._in_flight) + len(self._idle_busy)
        limit = self.workers if self._capacity is None else min(self.workers, max(1, self._capacity()))
        return limit - busy

    def _dispatch(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            self._heartbeat_s = self._queue.now()
            try:
                free = self._free()
                if free > 0:
                    self._maybe_waiting.clear()  # this claim sees everything queued before it
                    claimed = self._claim_real(free)
                    if claimed < free:  # the real queue is empty: idle work goes on, and may have what is left
                        self._real_waiting.clear()
                        self._claim_idle(free - claimed)
                    else:  # more may wait: look again, with no slot free (below)
                        self._maybe_waiting.set()
                        self._wake.set()
                elif self._maybe_waiting.is_set():
                    self._preempt()
            except Exception as exc:  # noqa: BLE001 - keep serving; say why
                self._log(f"judging queue: {type(exc).__name__}: {exc}")
            self._wake.wait(1.0)

    def _claim_real(self, limit: int, *, threadless: bool = False) -> int:
        """Claim up to ``limit`` real jobs and hand them to the threads (``threadless``: they wait for a
        thread that idle work gives back); how many were claimed."""
        assert self._pool is not None
        with self._lock:
            busy = set(self._in_flight)
        claimed = self._queue.claim(limit, busy)
        for c in claimed:
            with self._lock:
                self._in_flight.add(c.job_id)
                if threadless:
                    self._threadless.add(c.job_id)
            self._pool.submit(self._work, c)
        return len(claimed)

    def _preempt(self) -> None:
        """No slot is free and real work may wait: when idle jobs hold slots, claim real jobs for those
        slots (they wait for a thread) and ask the idle jobs to give their slots back; when there was none
        (and no claimed job waits for a thread), idle work goes on. A real job that a free slot takes
        leaves idle work running."""
        self._maybe_waiting.clear()
        with self._lock:
            lent, owed = len(self._idle_busy), len(self._threadless)
        if lent <= owed:
            return  # every slot judges (a finished job wakes the dispatcher), or is already asked back
        if self._claim_real(lent - owed, threadless=True) > 0:
            self._real_waiting.set()
        else:
            with self._lock:
                if not self._threadless:
                    self._real_waiting.clear()

    def _claim_idle(self, free: int) -> None:
        assert self._pool is not None
        if self._capacity is not None or self._stopping.is_set():
            return  # a cluster judges elsewhere: its queue is not this pool's threads
        with self._lock:
            room = min(free, max(1, self.workers - 1) - len(self._idle_busy))
            busy = set(self._idle_busy)
        for q in self._idle:
            if room <= 0:
                return
            for job in q.claim_idle(room, busy):
                with self._lock:
                    self._idle_busy.add(job.key)
                busy.add(job.key)
                room -= 1
                self._pool.submit(self._idle_work, job)

    def _idle_work(self, job: IdleJob) -> None:
        name = threading.current_thread().name
        with self._lock:
            self._slots[name] = replace(self._slots.get(name, Slot(name)), background=job.label)
        try:
            job.run(self.cancelled)
        except Exception as exc:  # noqa: BLE001 - idle work never stops judging; it is claimed again later
            self._log(f"{job.label}: {type(exc).__name__}: {exc}")
            self._stopping.wait(1.0)
        finally:
            with self._lock:
                self._slots[name] = replace(self._slots.get(name, Slot(name)), background=None)
                self._idle_busy.discard(job.key)
            self._wake.set()

    def _mark(self, name: str, sid: int | None) -> None:
        now = self._queue.now()
        with self._lock:
            slot = self._slots.get(name, Slot(name))
            if sid is None:
                slot = replace(slot, submission_id=None, since_s=None, judged=slot.judged + 1, last_s=now)
            else:
                slot = replace(slot, submission_id=sid, since_s=now)
            self._slots[name] = slot

    def status(self) -> PoolStatus:
        """Each judging thread: idle or judging which submission since when, how many it judged."""
        names = [f"{THREAD_PREFIX}_{i}" for i in range(self.workers)]
        with self._lock:
            slots = tuple(self._slots.get(n, Slot(n)) for n in names)
        capacity = None if self._capacity is None else self._capacity()
        cluster = None if self._cluster is None else tuple(self._cluster())
        return PoolStatus(self.workers, capacity, self._heartbeat_s, slots, cluster)

    def _work(self, c: Claimed) -> None:
        sid = c.submission.id
        name = threading.current_thread().name
        with self._lock:
            self._threadless.discard(c.job_id)
        self._mark(name, sid)
        try:
            self._queue.complete(c, self._queue.judge(c))
        except NOT_NOW as exc:
            self._log(f"submission {sid}: not judged now, it stays queued: {exc}")
            self._stopping.wait(1.0)
        except Exception as exc:  # noqa: BLE001 - the job stays queued and is taken again
            self._log(f"submission {sid}: storing the result failed: {type(exc).__name__}: {exc}")
            self._stopping.wait(1.0)  # not at once: whatever failed may need a moment
        finally:
            self._mark(name, None)
            with self._lock:
                self._in_flight.discard(c.job_id)
            self._wake.set()

    def stop(self) -> None:
        """Stop taking jobs; wait for the running ones to be judged and stored."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
