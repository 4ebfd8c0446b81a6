"""The pages' sessions found, kept in memory (issue 32; sessions.py stores them)."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from judge.serve.model.records import SessionRecord


class SessionCache:
    """The sessions found, in memory, so that a page view (100 a second in a 500-team contest) reads no
    storage (issue 32). Only sessions that exist are kept (a made-up cookie always reads storage), each
    as stored: its expiry and verifier are checked on every use. Whatever ends sessions calls ``forget``
    or ``forget_accounts`` after its commit; a lookup that read storage before that commit does not put
    its (now ended) session back: it sees the epoch moved. Thread-safe."""

    def __init__(self, size: int = 20_000, *, enabled: bool = True) -> None:
        """``enabled`` False: nothing is kept, every lookup reads storage (several processes on one database,
        issue 51: a session ended by another process ends here at once)."""
        self._size = size
        self._enabled = enabled
        self._lock = threading.Lock()
        self._by_selector: dict[str, SessionRecord] = {}
        self.epoch = 0

    def get(self, selector: str) -> SessionRecord | None:
        return self._by_selector.get(selector)

    def put(self, record: SessionRecord, epoch: int) -> None:
        """Keep ``record``, read when the epoch was ``epoch``, unless sessions ended since."""
        with self._lock:
            if epoch != self.epoch or not self._enabled:
                return
            if len(self._by_selector) >= self._size:
                self._by_selector.clear()
            self._by_selector[record.selector] = record

    def forget(self, selector: str) -> None:
        with self._lock:
            self.epoch += 1
            self._by_selector.pop(selector, None)

    def forget_accounts(self, account_ids: Iterable[str]) -> None:
        ended = set(account_ids)
        with self._lock:
            self.epoch += 1
            self._by_selector = {k: v for k, v in self._by_selector.items() if v.account_id not in ended}
