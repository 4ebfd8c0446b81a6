"""Unprivileged uid slots: one uid per concurrent sandboxed run.

Slot ``n`` owns uid ``UID_BASE + n``. A slot is held with an exclusive ``flock`` on
``<lock dir>/slot-<n>.lock`` for as long as this process keeps it, so that several
judge processes on one machine never share a uid (the per-uid process limit and
the kill-by-uid sweep depend on that). Within a process, slots are pooled and
reused by the threads (taking a free one is a lock + list pop).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Slot:
    index: int
    uid: int
    lock_fd: int
    netns_fd: int = -1  # the slot's empty network namespace, made on first use (netns.py)
    zygote: Any = None  # the slot's fork server (zygote.py), made on first use
    boxer: Any = None  # the slot's box server (zygote.py, boxserver.c): the fast bwrap backend

    @property
    def gid(self) -> int:
        return self.uid


class SlotPool:
    """Hands out exclusive uid slots to threads; thread-safe."""

    def __init__(self, directory: Path, uid_base: int, max_slots: int):
        self._dir = directory
        self._uid_base = uid_base
        self._max = max_slots
        self._free: list[Slot] = []
        self._held: set[int] = set()
        self._lock = threading.Lock()

    def _acquire_new(self) -> Slot:
        self._dir.mkdir(parents=True, exist_ok=True, mode=0o755)
        for index in range(self._max):
            if index in self._held:
                continue
            fd = os.open(self._dir / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self._held.add(index)
            return Slot(index, self._uid_base + index, fd)
        raise RuntimeError(f"all {self._max} sandbox uid slots are busy (lock files in {self._dir})")

    def take(self) -> Slot:
        with self._lock:
            if self._free:
                return self._free.pop()
            return self._acquire_new()

    def give_back(self, slot: Slot) -> None:
        with self._lock:
            self._free.append(slot)

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        s = self.take()
        try:
            yield s
        finally:
            self.give_back(s)

    def held_uids(self) -> tuple[int, ...]:
        """The uids of the slots this pool holds."""
        with self._lock:
            return tuple(self._uid_base + i for i in sorted(self._held))

    def close(self) -> None:
        """Stop the free slots' servers and release them (slots still in use are left alone)."""
        with self._lock:
            for s in self._free:
                for server in (s.zygote, s.boxer):
                    if server is not None:
                        server.close()
                if s.netns_fd >= 0:
                    os.close(s.netns_fd)
                os.close(s.lock_fd)
                self._held.discard(s.index)
            self._free.clear()
