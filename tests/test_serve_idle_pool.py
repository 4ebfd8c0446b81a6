"""The judging pool's idle work (issue 33, services/judging/idle.py): it runs only when no real job waits, on at
most ``workers - 1`` slots, and gives its slot back as soon as a real job is queued."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from judge.serve.services.judging.idle import IdleJob
from judge.serve.services.judging.pool import JudgingPool

WAIT_S = 10.0


@dataclass
class FakeQueue:
    """The three calls the pool makes of judging.JobQueue, over a list of submission ids."""

    waiting: list[int] = field(default_factory=list)
    judged: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: threading.Event = field(default_factory=threading.Event)

    def now(self) -> float:
        return 0.0

    def claim(self, limit: int, exclude: Collection[int] = frozenset()) -> list:  # type: ignore[type-arg]
        with self.lock:
            taken, self.waiting = self.waiting[:limit], self.waiting[limit:]
        return [Job(sid) for sid in taken]

    def judge(self, c: Job) -> str:
        return "AC"

    def complete(self, c: Job, result: str) -> bool:
        with self.lock:
            self.judged.append(c.job_id)
        self.done.set()
        return True

    def add(self, sid: int) -> None:
        with self.lock:
            self.waiting.append(sid)


@dataclass(frozen=True)
class Sub:
    id: int


@dataclass(frozen=True)
class Job:
    job_id: int

    @property
    def submission(self) -> Sub:
        return Sub(self.job_id)


@dataclass
class Spinner:
    """An idle job that runs until cancelled (then it is queued again), counting its runs."""

    key: str
    label: str = "spinning"
    started: threading.Event = field(default_factory=threading.Event)
    yielded: threading.Event = field(default_factory=threading.Event)
    runs: int = 0

    def run(self, cancelled: Callable[[], bool]) -> None:
        self.runs += 1
        self.started.set()
        while not cancelled():
            threading.Event().wait(0.005)
        self.yielded.set()


@dataclass
class Idle:
    jobs: list[Spinner]
    asked: int = 0

    def claim_idle(self, limit: int, busy: Collection[str]) -> list[IdleJob]:
        self.asked += 1
        return [j for j in self.jobs if j.key not in busy][:limit]


def make(queue: FakeQueue, idle: Idle, workers: int) -> JudgingPool:
    pool = JudgingPool(queue, workers=workers, idle=[idle])  # type: ignore[arg-type]
    pool.start()
    return pool


def test_idle_work_yields_its_slot_to_a_real_submission_at_once() -> None:
    queue, spin = FakeQueue(), Spinner("fuzz:1")
    pool = make(queue, Idle([spin]), workers=1)
    try:
        assert spin.started.wait(WAIT_S)  # nothing to judge: the one slot is lent to idle work
        assert not pool.cancelled()
        queue.add(7)
        pool.wake()
        assert spin.yielded.wait(WAIT_S)
        assert queue.done.wait(WAIT_S)
        assert queue.judged == [7]
    finally:
        pool.stop()


def test_real_jobs_are_claimed_before_idle_work() -> None:
    queue, spin = FakeQueue(waiting=[1, 2, 3]), Spinner("fuzz:1")
    pool = make(queue, Idle([spin]), workers=2)
    try:
        assert spin.started.wait(WAIT_S)
        assert queue.waiting == []  # every real job was claimed before idle work started
        for _ in range(int(WAIT_S / 0.01)):
            if len(queue.judged) == 3:
                break
            threading.Event().wait(0.01)
        assert sorted(queue.judged) == [1, 2, 3]
    finally:
        pool.stop()


def test_one_slot_always_stays_free_for_real_judging() -> None:
    queue = FakeQueue()
    spinners = [Spinner(f"fuzz:{i}") for i in range(3)]
    pool = make(queue, Idle(spinners), workers=3)
    try:
        assert spinners[0].started.wait(WAIT_S) and spinners[1].started.wait(WAIT_S)
        threading.Event().wait(0.2)
        assert not spinners[2].started.is_set()
        assert sum(s.background is not None for s in pool.status().slots) == 2
    finally:
        pool.stop()
    assert all(s.yielded.is_set() for s in spinners[:2])  # stopping cancels idle work


def test_a_failing_idle_job_is_logged_and_judging_goes_on() -> None:
    lines: list[str] = []

    @dataclass
    class Broken:
        key: str = "fuzz:9"
        label: str = "fuzzing submission 9"

        def run(self, cancelled: Callable[[], bool]) -> None:
            raise RuntimeError("fuzz.py is broken")

    queue = FakeQueue()
    pool = JudgingPool(queue, workers=1, idle=[Idle([Broken()])], log=lines.append)  # type: ignore[arg-type, list-item]
    pool.start()
    try:
        for _ in range(int(WAIT_S / 0.01)):
            if lines:
                break
            threading.Event().wait(0.01)
        assert lines and lines[0] == "fuzzing submission 9: RuntimeError: fuzz.py is broken"
        queue.add(4)
        pool.wake()
        assert queue.done.wait(WAIT_S) and queue.judged == [4]
    finally:
        pool.stop()


@dataclass
class SlowQueue(FakeQueue):
    """Judging takes until ``release`` is set, so the dispatcher's rounds run while a real job is judged."""

    release: threading.Event = field(default_factory=threading.Event)

    def judge(self, c: Job) -> str:
        self.release.wait(WAIT_S)
        return "AC"


def wait_judged(queue: FakeQueue, count: int) -> None:
    for _ in range(int(WAIT_S / 0.01)):
        if len(queue.judged) >= count:
            return
        threading.Event().wait(0.01)


def test_a_free_slot_takes_the_real_job_and_the_idle_job_is_not_cancelled() -> None:
    queue, spin = SlowQueue(), Spinner("fuzz:1")
    pool = make(queue, Idle([spin]), workers=2)
    try:
        assert spin.started.wait(WAIT_S)  # one slot fuzzes, one is free
        queue.add(7)
        pool.wake()
        for _ in range(int(WAIT_S / 0.01)):  # the free slot took 7
            if any(s.submission_id == 7 for s in pool.status().slots):
                break
            threading.Event().wait(0.01)
        threading.Event().wait(0.2)  # the dispatcher's rounds while 7 is judged
        assert not pool.cancelled()
        assert not spin.yielded.is_set()
        queue.release.set()
        assert queue.done.wait(WAIT_S) and queue.judged == [7]
        assert not spin.yielded.is_set() and spin.runs == 1
    finally:
        queue.release.set()
        pool.stop()


def test_idle_work_yields_when_real_jobs_outnumber_the_free_slots() -> None:
    queue, spin = SlowQueue(), Spinner("fuzz:1")
    pool = make(queue, Idle([spin]), workers=2)
    try:
        assert spin.started.wait(WAIT_S)
        queue.add(7)
        queue.add(8)
        pool.wake()  # the free slot takes 7; 8 has no slot: the idle job gives its own back
        assert spin.yielded.wait(WAIT_S)
        queue.release.set()
        wait_judged(queue, 2)
        assert sorted(queue.judged) == [7, 8]
    finally:
        queue.release.set()
        pool.stop()
