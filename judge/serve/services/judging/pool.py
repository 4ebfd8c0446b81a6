"""The threads that run the judging queue: a dispatcher that claims as many jobs as there are free
workers (``capacity``, when given, says how many may judge now: a cluster's judge slots, which come and
go), and a pool of workers that judge and store them (judging.JobQueue).

A site of contests (issue 44) has one pool for all of them: each contest is a ``Lane`` (its own job queue,
in its own database, its judging priority, whether it is running now, its idle work). The fair order:

- the contest with the highest ``judging_priority`` first; between contests of one priority, the oldest
  job first (new submissions before rejudges, then by submission time: ``JobQueue.head``);
- **the reserved slot**: with 2 or more slots, a job of a lower-priority contest is started only while at
  least one slot stays free for the higher-priority contests that are running, so a main contest's
  submission never waits behind a practice one; with one slot, strict priority (a practice job already
  running finishes first: judging is never interrupted);
- idle work (rejudge previews, counterexamples, similar submissions, live fuzzing: idle.py) only when no lane
  has a real job to start, the lanes' idle queues in the order of their priority.

A single contest is a pool of one lane, as before sites.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Protocol

from judge.cluster.workers import ClusterWorker
from judge.serve.services.core.outage import Outage
from judge.serve.services.judging.idle import IdleJob, IdleQueue
from judge.serve.services.judging.judge_fn import NOT_NOW

THREAD_PREFIX = "judge-worker"


class PoolQueue(Protocol):
    """What the pool asks of a contest's job queue (judging.JobQueue)."""

    def now(self) -> float: ...

    def claim(self, limit: int, exclude: Collection[int] = frozenset()) -> list[Any]:
        """Up to ``limit`` jobs (``Claimed``: a ``job_id``, a ``submission``), none of ``exclude``'s ids."""
        ...

    def judge(self, c: Any) -> Any: ...

    def complete(self, c: Any, result: Any) -> bool: ...

    def head(self, exclude: Collection[int] = frozenset()) -> tuple[bool, float] | None:
        """The order of the job ``claim`` would give first (a rejudge?, its submission's time); None: none."""
        ...


@dataclass(frozen=True)
class Lane:
    """One contest's judging as the pool sees it (issue 44)."""

    key: str  # the contest's id ("" for a single contest's pool)
    queue: PoolQueue
    priority: int = 0  # higher first (contest.yaml's judging_priority, or the site admin's)
    running: bool = True  # the contest is running now: a lower-priority lane leaves a slot free for it
    idle: tuple[IdleQueue, ...] = ()  # its idle work, in its order


@dataclass(frozen=True)
class Slot:
    """One judging thread as the judges page shows it (issue 30)."""

    name: str
    submission_id: int | None = None  # judging it now; None: idle
    since_s: float | None = None  # when it took it
    judged: int = 0
    last_s: float | None = None  # when it last finished one
    background: str | None = None  # idle work it does now (idle.IdleJob.label), None: none
    contest_id: str | None = None  # the contest of ``submission_id`` (a site's pool: issue 44; "" alone)


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
        queue: PoolQueue | None = None,
        *,
        workers: int = 1,
        capacity: Callable[[], int] | None = None,
        log: Callable[[str], None] = lambda line: None,
        cluster: Callable[[], list[ClusterWorker]] | None = None,
        idle: Sequence[IdleQueue] = (),
        lanes: Callable[[], Sequence[Lane]] | None = None,
        now: Callable[[], float] | None = None,
    ) -> None:
        """One contest's pool (``queue`` and its ``idle`` queues, asked in this order when no real job waits:
        idle.py), or a site's (``lanes``: every contest's, asked at each round; ``now``: the site's clock)."""
        if lanes is None:
            assert queue is not None, "a pool judges one queue, or the lanes of a site"
            one = (Lane("", queue, idle=tuple(idle)),)
            lanes = lambda: one  # noqa: E731 - one lane, always the same
        self._lanes = lanes
        self._now = now if now is not None else queue.now if queue is not None else None
        assert self._now is not None, "a site's pool is given its clock"
        self._idle_busy: set[str] = set()
        # set by the dispatcher when it claimed a real job no slot was free for: idle jobs give theirs back
        self._real_waiting = threading.Event()
        self._maybe_waiting = threading.Event()  # a wake() (or a full claim) since the last claim: look
        self._cluster = cluster
        self.workers = max(1, workers)
        self._capacity = capacity
        self._log = log
        self._outage = Outage("judging queue", log, self.now)
        self._lock = threading.Lock()
        self._in_flight: set[tuple[str, int]] = set()  # (lane, job id): job ids are per contest
        self._threadless: set[tuple[str, int]] = set()  # claimed real jobs waiting for a thread idle work gives back
        self._held_back = False  # the last claim left real jobs waiting (the reserved slot): no idle work then
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

    def now(self) -> float:
        assert self._now is not None
        return self._now()

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

    def _limit(self) -> int:
        return self.workers if self._capacity is None else min(self.workers, max(1, self._capacity()))

    def _free(self) -> int:
        with self._lock:
            busy = len(self._in_flight) + len(self._idle_busy)
        return self._limit() - busy

    def _dispatch(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            self._heartbeat_s = self.now()
            try:
                free = self._free()
                if free > 0:
                    self._maybe_waiting.clear()  # this claim sees everything queued before it
                    claimed = self._claim_real(free)
                    self._outage.ok()  # the claim reached every lane's database
                    if claimed < free and not self._held_back:
                        # the real queues are empty: idle work goes on, and may have what is left
                        self._real_waiting.clear()
                        self._claim_idle(free - claimed)
                    elif claimed >= free:  # more may wait: look again, with no slot free (below)
                        self._maybe_waiting.set()
                        self._wake.set()
                elif self._maybe_waiting.is_set():
                    self._preempt()
            except Exception as exc:  # noqa: BLE001 - keep serving; say why
                self._outage.failed(exc)  # an outage of the database: once, and its end once
            self._wake.wait(1.0)

    def _claim_real(self, limit: int, *, threadless: bool = False) -> int:
        """Claim up to ``limit`` real jobs in the fair order (the module's docstring) and hand them to the
        threads (``threadless``: they wait for a thread that idle work gives back); how many were claimed.
        Sets ``_held_back`` when the reserved slot left a lower-priority contest's job waiting."""
        lanes = list(self._lanes())
        total = self._limit()
        claimed = 0
        self._held_back = False
        for priority in sorted({lane.priority for lane in lanes}, reverse=True):
            level = [lane for lane in lanes if lane.priority == priority]
            room = limit - claimed
            reserved = total >= 2 and any(lane.running and lane.priority > priority for lane in lanes)
            if reserved:
                room -= 1  # one slot stays free for the higher-priority contests that are running
            got = self._claim_level(level, room, threadless) if room > 0 else 0
            claimed += got
            if got < room:
                continue  # this level is empty: the next one may have what is left
            if reserved:  # the slot kept free leaves this level's jobs (or a lower one's) waiting: no idle work
                lower = [lane for lane in lanes if lane.priority <= priority]
                self._held_back = any(self._head(lane) is not None for lane in lower)
            break
        return claimed

    def _busy(self, lane: Lane) -> set[int]:
        with self._lock:
            return {job_id for key, job_id in self._in_flight if key == lane.key}

    def _head(self, lane: Lane) -> tuple[bool, float] | None:
        return lane.queue.head(self._busy(lane))

    def _claim_level(self, level: list[Lane], room: int, threadless: bool) -> int:
        """Claim up to ``room`` jobs of contests of one priority: from the one lane, or the oldest first."""
        claimed = 0
        while claimed < room:
            if len(level) == 1:
                lane, want = level[0], room - claimed
            else:
                heads = [(h, i) for i, lane in enumerate(level) if (h := self._head(lane)) is not None]
                if not heads:
                    return claimed
                lane, want = level[min(heads)[1]], 1
            got = self._hand_out(lane, lane.queue.claim(want, self._busy(lane)), threadless)
            claimed += got
            if got == 0:
                if len(level) == 1:
                    return claimed
                level = [other for other in level if other is not lane]  # a race: look at the others
            elif len(level) == 1 and got < want:
                return claimed
        return claimed

    def _hand_out(self, lane: Lane, claimed: list[Any], threadless: bool) -> int:
        assert self._pool is not None
        for c in claimed:
            key = (lane.key, c.job_id)
            with self._lock:
                self._in_flight.add(key)
                if threadless:
                    self._threadless.add(key)
            self._pool.submit(self._work, lane, c)
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
        lanes = sorted(self._lanes(), key=lambda lane: -lane.priority)  # stable: the site's order in a priority
        for q in (q for lane in lanes for q in lane.idle):
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

    def _mark(self, name: str, sid: int | None, contest_id: str | None = None) -> None:
        now = self.now()
        with self._lock:
            slot = self._slots.get(name, Slot(name))
            if sid is None:
                slot = replace(
                    slot, submission_id=None, since_s=None, judged=slot.judged + 1, last_s=now, contest_id=None
                )
            else:
                slot = replace(slot, submission_id=sid, since_s=now, contest_id=contest_id)
            self._slots[name] = slot

    def status(self) -> PoolStatus:
        """Each judging thread: idle or judging which submission since when, how many it judged."""
        names = [f"{THREAD_PREFIX}_{i}" for i in range(self.workers)]
        with self._lock:
            slots = tuple(self._slots.get(n, Slot(n)) for n in names)
        capacity = None if self._capacity is None else self._capacity()
        cluster = None if self._cluster is None else tuple(self._cluster())
        return PoolStatus(self.workers, capacity, self._heartbeat_s, slots, cluster)

    def _work(self, lane: Lane, c: Any) -> None:
        sid = c.submission.id
        name = threading.current_thread().name
        key = (lane.key, c.job_id)
        with self._lock:
            self._threadless.discard(key)
        self._mark(name, sid, lane.key)
        which = f"contest {lane.key!r}: submission {sid}" if lane.key else f"submission {sid}"
        try:
            lane.queue.complete(c, lane.queue.judge(c))
        except NOT_NOW as exc:
            self._log(f"{which}: not judged now, it stays queued: {exc}")
            self._stopping.wait(1.0)
        except Exception as exc:  # noqa: BLE001 - the job stays queued and is taken again
            self._log(f"{which}: storing the result failed: {type(exc).__name__}: {exc}")
            self._stopping.wait(1.0)  # not at once: whatever failed may need a moment
        finally:
            self._mark(name, None)
            with self._lock:
                self._in_flight.discard(key)
            self._wake.set()

    def stop(self) -> None:
        """Stop taking jobs; wait for the running ones to be judged and stored."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
