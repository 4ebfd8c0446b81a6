"""One judging pool for a site's contests (issue 44, services/judging/pool.py): the highest judging priority
first, the oldest job between contests of one priority, and the reserved slot: with two or more slots, a
lower-priority contest's job starts only while one slot stays free for the higher-priority contests that are
running, so a busy practice never starves the main contest. No timing: every wait is for an event, and each
check holds whatever the threads' order (a broken rule makes a wait time out, the test fail)."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import T0, FakeClock, ScriptedJudge, fake_result
from serve_site_fixtures import open_test_site, write_site
from test_serve_site import SiteApi

from judge.judging.jobs import JudgeJob
from judge.judging.results import SubmissionResult
from judge.serve.http.site_app import create_site_app
from judge.serve.model.site import load_site
from judge.serve.services.judging.pool import JudgingPool, Lane
from judge.serve.site.site import Site

WAIT_S = 20.0


@dataclass(frozen=True)
class Sub:
    id: int
    time_s: float


@dataclass(frozen=True)
class Job:
    job_id: int
    submission: Sub


@dataclass
class Queue:
    """A contest's job queue as the pool asks it; a job's judging waits for its ``release``."""

    name: str
    log: list[str]
    lock: threading.Lock
    waiting: list[Job] = field(default_factory=list)
    started: dict[int, threading.Event] = field(default_factory=dict)
    release: dict[int, threading.Event] = field(default_factory=dict)
    blocking: bool = True

    def add(self, sid: int, time_s: float | None = None) -> None:
        with self.lock:
            self.waiting.append(Job(sid, Sub(sid, float(sid) if time_s is None else time_s)))
            self.started[sid] = threading.Event()
            self.release[sid] = threading.Event()

    def now(self) -> float:
        return 0.0

    def head(self, exclude: Collection[int] = frozenset()) -> tuple[bool, float] | None:
        with self.lock:
            return None if not self.waiting else (False, self.waiting[0].submission.time_s)

    def claim(self, limit: int, exclude: Collection[int] = frozenset()) -> list[Job]:
        with self.lock:
            taken, self.waiting = self.waiting[:limit], self.waiting[limit:]
        return taken

    def judge(self, c: Job) -> str:
        with self.lock:
            self.log.append(f"{self.name}{c.job_id}")
        self.started[c.job_id].set()
        if self.blocking:
            assert self.release[c.job_id].wait(WAIT_S), "never released"
        return "AC"

    def complete(self, c: Job, result: str) -> bool:
        return True

    def running(self) -> int:
        return sum(1 for sid, e in self.started.items() if e.is_set() and not self.release[sid].is_set())


def two_lanes(workers: int, main_running: bool = True) -> tuple[JudgingPool, Queue, Queue, list[str]]:
    log: list[str] = []
    lock = threading.Lock()
    main, practice = Queue("main", log, lock), Queue("practice", log, lock)
    lanes = [Lane("main", main, 0, main_running), Lane("practice", practice, -1, True)]
    return JudgingPool(lanes=lambda: lanes, workers=workers, now=lambda: 0.0), main, practice, log


def release_all(*queues: Queue) -> None:
    for q in queues:
        for e in q.release.values():
            e.set()


def test_a_busy_practice_keeps_a_slot_free_for_the_main_contest() -> None:
    pool, main, practice, _ = two_lanes(workers=2)
    for sid in range(1, 11):
        practice.add(sid)
    pool.start()
    try:
        assert practice.started[1].wait(WAIT_S)
        main.add(1)
        pool.wake()
        # the main contest's submission starts at once, while the practice's first job still runs: the
        # practice never had both slots
        assert main.started[1].wait(WAIT_S), "the main contest waited behind the practice"
        assert practice.running() == 1 and not practice.started[2].is_set()
        main.release[1].set()
        practice.release[1].set()
        # with the main contest's queue empty, the practice goes on, one slot at a time
        assert practice.started[2].wait(WAIT_S)
        assert practice.running() == 1 and not practice.started[3].is_set()
    finally:
        release_all(main, practice)
        pool.stop()


def test_the_practice_takes_every_slot_when_no_higher_contest_runs() -> None:
    pool, main, practice, _ = two_lanes(workers=2, main_running=False)
    for sid in (1, 2, 3):
        practice.add(sid)
    pool.start()
    try:
        assert practice.started[1].wait(WAIT_S) and practice.started[2].wait(WAIT_S)  # both slots
    finally:
        release_all(main, practice)
        pool.stop()


def test_with_one_slot_the_higher_priority_goes_first_and_a_running_job_finishes() -> None:
    pool, main, practice, log = two_lanes(workers=1)
    main.blocking = practice.blocking = False
    for sid in (1, 2):
        practice.add(sid)
        main.add(sid)
    pool.start()
    try:
        assert practice.started[2].wait(WAIT_S)
        assert log == ["main1", "main2", "practice1", "practice2"]
    finally:
        pool.stop()


def test_contests_of_one_priority_are_judged_oldest_first() -> None:
    log: list[str] = []
    lock = threading.Lock()
    a, b = Queue("a", log, lock, blocking=False), Queue("b", log, lock, blocking=False)
    a.add(1, 10.0)
    a.add(2, 30.0)
    b.add(1, 20.0)
    b.add(2, 40.0)
    lanes = [Lane("a", a, 0), Lane("b", b, 0)]
    pool = JudgingPool(lanes=lambda: lanes, workers=1, now=lambda: 0.0)
    pool.start()
    try:
        assert b.started[2].wait(WAIT_S)
        assert log == ["a1", "b1", "a2", "b2"]
    finally:
        pool.stop()


# ------------------------------------------------------------------------------------------ a real site


class HeldJudge(ScriptedJudge):
    """The scripted judge (no runner, no process): a job of problem ``sum`` (the practice's) waits for
    ``release``; the others are judged at once."""

    def __init__(self, problems: Any) -> None:
        super().__init__(problems)
        self.release = threading.Event()
        self.held = threading.Semaphore(0)

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        if job.problem == "sum":
            self.held.release()
            assert self.release.wait(WAIT_S), "never released"
        return fake_result(job, self.problems[job.problem])


@pytest.fixture
def busy_site(tmp_path: Path) -> Iterator[tuple[Site, HeldJudge]]:
    contests = {
        "practice": {"problems": ("sum",), "priority": -1, "start": "2030-01-01T09:00:00Z"},
        "main": {"problems": ("divisor",), "start": "2030-01-01T09:30:00Z"},
    }
    root = write_site(tmp_path / "site", contests)
    spec = load_site(root)
    judge = HeldJudge({p.id: p.problem for c in spec.contests for p in c.problems})
    site = open_test_site(root, FakeClock(T0), judge, workers=2)
    site.start()
    yield site, judge
    judge.release.set()
    site.stop()
    site.close()


def test_a_busy_practice_never_delays_the_main_contests_verdicts(busy_site: tuple[Site, HeldJudge]) -> None:
    site, judge = busy_site
    api = SiteApi(create_site_app(site))
    for team in ("team1", "team2", "team3", "team4") * 2:
        assert api.submit_to("practice", team).status_code == 201
    assert judge.held.acquire(timeout=WAIT_S)  # a practice job is being judged (and held)
    assert api.submit_to("main", "team1", problem="divisor").status_code == 201
    main = site.contest("main")
    practice = site.contest("practice")
    assert main is not None and practice is not None
    done = threading.Event()

    def judged() -> None:
        main.server.bus.notify()
        with main.server.storage.read() as r:
            if any(j.verdict is not None for j in r.judgements()):
                done.set()

    for _ in range(int(WAIT_S * 20)):  # polls storage (not time): the verdict is stored, or the wait fails
        judged()
        if done.wait(0.05):
            break
    assert done.is_set(), "the main contest's submission waited behind the practice"
    assert practice.server.judging.pending() == 8  # the practice's eight: one held, seven waiting
    assert not judge.held.acquire(blocking=False)  # the practice never had the second slot
    statuses = site.pool.status().slots if site.pool is not None else ()
    assert sum(1 for s in statuses if s.contest_id == "practice") == 1
