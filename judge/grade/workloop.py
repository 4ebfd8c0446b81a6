"""The one reuse-or-run loop of `judge grade`: judging and fuzzing both split their items into those with
a stored result under the current key (reused) and the rest, then run the rest in worker threads, handing
each result to the calling thread (the only one that writes the database) as soon as it is done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Generic, Protocol, TypeVar

from judge.grade.discovery import Entry

T = TypeVar("T")
R = TypeVar("R", bound="Timed")
S = TypeVar("S")

MAX_THREADS = 1024  # items in flight at most, whatever ``jobs`` says
RECHECK_S = 1.0  # how often a ``jobs`` function is asked while nothing finishes


class Queue(Protocol[T]):
    """What to run next."""

    def __bool__(self) -> bool: ...

    def pop(self) -> T: ...

    def finished(self, item: T, duration_s: float) -> None: ...


class InOrder(Generic[T]):
    """The items in the order given."""

    def __init__(self, items: Iterable[T]) -> None:
        self._left = list(items)

    def __bool__(self) -> bool:
        return bool(self._left)

    def pop(self) -> T:
        return self._left.pop(0)

    def finished(self, item: T, duration_s: float) -> None:
        pass


class LongestFirst:
    """Longest expected first. Expected: the last stored run of that submission; else the mean of this
    problem's runs finished so far in this grading; else a guess from the package."""

    def __init__(
        self, entries: list[Entry], guess: Callable[[Entry], float], history: Mapping[tuple[str, str], float]
    ) -> None:
        self._left = list(entries)
        self._guess = guess
        self._history = history
        self._seen: dict[str, list[float]] = {}

    def __bool__(self) -> bool:
        return bool(self._left)

    def _expected(self, e: Entry) -> float:
        if e.key in self._history:
            return self._history[e.key]
        seen = self._seen.get(e.problem)
        return sum(seen) / len(seen) if seen else self._guess(e)

    def pop(self) -> Entry:
        best = max(self._left, key=lambda e: (self._expected(e), e.contestant, e.problem))
        self._left.remove(best)
        return best

    def finished(self, e: Entry, duration_s: float) -> None:
        self._seen.setdefault(e.problem, []).append(duration_s)


def split_reused(
    items: Iterable[T], lookup: Callable[[T], S | None], reusable: Callable[[S], bool]
) -> tuple[list[tuple[T, S]], list[T]]:
    """(items with a reusable stored result, items to run)."""
    reused: list[tuple[T, S]] = []
    todo: list[T] = []
    for item in items:
        stored = lookup(item)
        if stored is not None and reusable(stored):
            reused.append((item, stored))
        else:
            todo.append(item)
    return reused, todo


class Timed(Protocol):
    """What a worker gives back: at least how long it took."""

    @property
    def duration_s(self) -> float: ...


def run_all(
    queue: Queue[Entry],
    work: Callable[[Entry], R],
    done: Callable[[Entry, R], None],
    *,
    jobs: int | Callable[[], int],
    name: str,
) -> None:
    """Run ``work`` on every queued entry, ``jobs`` at a time, taking the next entry only when a worker is
    free (so the queue can still reorder); ``done`` is called in this thread, in the order of the entries'
    keys among those that finish together. ``jobs`` may be a function (a cluster whose workers come and go):
    it is asked again whenever an entry finishes, and at least every ``RECHECK_S`` seconds. The worker
    threads are named ``name``."""
    dynamic = callable(jobs)

    def workers() -> int:
        return max(1, jobs() if callable(jobs) else jobs)

    pool = ThreadPoolExecutor(max_workers=MAX_THREADS if dynamic else workers(), thread_name_prefix=name)
    try:
        pending: dict[Future[R], Entry] = {}
        while queue or pending:
            while queue and len(pending) < min(workers(), MAX_THREADS):
                entry = queue.pop()
                pending[pool.submit(work, entry)] = entry
            finished, _ = wait(pending, timeout=RECHECK_S if dynamic else None, return_when=FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: pending[f].key):
                entry = pending.pop(fut)
                result = fut.result()
                queue.finished(entry, result.duration_s)
                done(entry, result)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
