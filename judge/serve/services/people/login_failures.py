"""The failed logins of every process on the people's database (issue 51: several `judge serve --shared`
processes count them together; one process alone the same way): ``Authenticator`` reads them before each
argon2 verification (a password it has not verified yet) and writes each failure; a login that succeeds
writes only when its username had failures (it forgets them). The keys are stored as their SHA-256 (a
password typed as a username is not kept as it is); the rows older than the lockouts' longest window are
deleted with each new failure (storage/logins.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from judge.serve.storage import Storage


def _stored(key: str) -> str:
    return hashlib.sha256(f"judge login {key}".encode()).hexdigest()


class StoredFailures:
    """The failed logins in ``storage`` (the people's database), kept ``keep_s`` seconds (the longest window)."""

    def __init__(self, storage: Storage, keep_s: float) -> None:
        self._storage = storage
        self._keep_s = keep_s

    def recent(self, since: Mapping[str, float]) -> dict[str, list[float]]:
        """When each key (``user:NAME``, ``address:IP``) failed after its time, oldest first (every process's)."""
        stored = {_stored(k): k for k in since}
        with self._storage.read() as r:
            found = r.login_failures({s: since[k] for s, k in stored.items()})
        return {stored[s]: times for s, times in found.items()}

    def failed(self, keys: Sequence[str], now: float) -> None:
        with self._storage.write() as w:
            w.add_login_failure([_stored(k) for k in keys], now, now - self._keep_s)

    def forget(self, key: str) -> None:
        with self._storage.write() as w:
            w.forget_login_failures(_stored(key))
