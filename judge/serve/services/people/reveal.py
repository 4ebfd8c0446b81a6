"""Passwords shown once, across the redirect after the form that made them (the people page: a reset, a new
account's generated password, an import's): a POST answers 303 to the page (a reload re-posts nothing), and
the page shows what the POST made, once. Kept in memory only (never stored, never in a URL): under a random
token that the redirect's URL carries, for the session that made them, at most ``TTL_S`` seconds; the first
page view takes them. A restart loses them (reset the password again). Thread-safe."""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import dataclass

TTL_S = 300.0
LIMIT = 100  # held at once; beyond, the oldest go


@dataclass(frozen=True)
class _Held:
    session: str  # the SHA-256 of the session cookie that made them
    until_s: float
    passwords: tuple[tuple[str, str], ...]  # (username, password)


def _digest(cookie: str) -> str:
    return hashlib.sha256(cookie.encode()).hexdigest()


class Reveals:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, _Held] = {}

    def put(self, cookie: str, passwords: tuple[tuple[str, str], ...], now: float) -> str:
        """Hold ``passwords`` for the session of ``cookie``; returns the token that takes them."""
        token = secrets.token_urlsafe(16)
        with self._lock:
            for key in [k for k, h in self._held.items() if h.until_s <= now]:
                del self._held[key]
            while len(self._held) >= LIMIT:
                del self._held[next(iter(self._held))]
            self._held[token] = _Held(_digest(cookie), now + TTL_S, passwords)
        return token

    def take(self, cookie: str, token: str | None, now: float) -> tuple[tuple[str, str], ...]:
        """What ``token`` holds, once, for the session that made it (nothing for another, or after the TTL)."""
        if not token:
            return ()
        with self._lock:
            held = self._held.get(token)
            if held is None or held.session != _digest(cookie):
                return ()
            del self._held[token]
        return held.passwords if now < held.until_s else ()
