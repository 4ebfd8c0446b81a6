"""While the database cannot be reached (docs/deploy.md, "When the primary dies"), the loops that retry every
second (the contest clock, the judging queue's dispatcher) log the outage once and its end once, not a line a
second (services/core/outage.py); other errors are logged each time, as before."""

from __future__ import annotations

import threading
from collections.abc import Collection
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

from serve_fixtures import T0, FakeClock, make_server, write_contest

from judge.serve.services.judging.pool import JudgingPool
from judge.serve.site.server import Server
from judge.serve.storage import Storage, StorageUnavailable

WAIT_S = 60.0  # a bound for a hung test only: the loops end on their own events
OUTAGE = 3  # how many times the fakes raise StorageUnavailable before the database is back


def outage_lines(lines: list[str], what: str) -> tuple[list[str], list[str]]:
    mine = [line for line in lines if line.startswith(f"{what}: ")]
    return [x for x in mine if "unreachable (" in x], [x for x in mine if "reachable again" in x]


class FlakyQueue:
    """The judging queue, as the pool sees it, over a database that is away for its first ``OUTAGE`` claims,
    with one other error in the middle; it counts the claims made after the database is back."""

    def __init__(self) -> None:
        self.calls = 0
        self.after = threading.Event()
        self.pool: JudgingPool | None = None

    def now(self) -> float:
        return T0

    def claim(self, limit: int, exclude: Collection[int] = frozenset()) -> list[Any]:
        self.calls += 1
        assert self.pool is not None
        self.pool.wake()  # the next round now, not in a second
        if self.calls == 2:
            raise RuntimeError("a bug, not an outage")
        if self.calls <= OUTAGE + 1:
            raise StorageUnavailable("db1: the database server cannot be reached: connection refused")
        if self.calls >= OUTAGE + 4:
            self.after.set()
        return []

    def judge(self, c: Any) -> Any:  # pragma: no cover - nothing is claimed
        raise AssertionError

    def complete(self, c: Any, result: Any) -> bool:  # pragma: no cover
        raise AssertionError


def test_the_judging_queue_logs_an_outage_once_and_its_end_once() -> None:
    lines: list[str] = []
    queue = FlakyQueue()
    pool = JudgingPool(queue, log=lines.append)
    queue.pool = pool
    pool.start()
    try:
        assert queue.after.wait(WAIT_S)
    finally:
        pool.stop()
    down, back = outage_lines(lines, "judging queue")
    assert len(down) == 1 and len(back) == 1, lines
    assert lines.index(down[0]) < lines.index(back[0])
    assert "retrying" in down[0] and "connection refused" in down[0]
    assert "judging queue: RuntimeError: a bug, not an outage" in lines  # other errors: as before
    assert len([x for x in lines if x.startswith("judging queue: ")]) == 3, lines


class FlakyStorage:
    """A contest's storage whose first ``OUTAGE`` transactions raise StorageUnavailable (the database away),
    then the real ones."""

    def __init__(self, real: Storage) -> None:
        self.real = real
        self.where = real.where
        self.path = real.path
        self.failures = 0

    def _away(self) -> None:
        if self.failures < OUTAGE:
            self.failures += 1
            raise StorageUnavailable(f"{self.where}: the database server cannot be reached: connection refused")

    def read(self) -> AbstractContextManager[Any]:
        self._away()
        return self.real.read()

    def write(self) -> AbstractContextManager[Any]:
        self._away()
        return self.real.write()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_the_contest_clock_logs_an_outage_once_and_its_end_once(tmp_path: Path, monkeypatch: Any) -> None:
    opened = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + 60))
    lines: list[str] = []
    storage = FlakyStorage(opened.storage)
    server = replace(opened, storage=storage, log=lines.append)
    ticks = 0
    done = threading.Event()

    def tick() -> None:
        """Every other tick uses the database (a phase change, a lease to renew), as the clock's do: a tick
        that does not is no sign that the database is back."""
        nonlocal ticks
        ticks += 1
        if ticks % 2:
            with server.storage.write():
                pass
        if storage.failures >= OUTAGE and ticks >= OUTAGE + 3:
            server.stopping.set()
            done.set()

    monkeypatch.setattr(Server, "tick", lambda self: tick())
    clock = threading.Thread(target=server._tick_loop, daemon=True)
    clock.start()
    try:
        assert done.wait(WAIT_S)
    finally:
        server.stopping.set()
        clock.join()
        opened.close()
    down, back = outage_lines(lines, "contest clock")
    assert len(down) == 1 and len(back) == 1, lines
    assert lines.index(down[0]) < lines.index(back[0])
    assert "retrying" in down[0] and "connection refused" in down[0]
    assert [x for x in lines if x.startswith("contest clock: ")] == [down[0], back[0]]
