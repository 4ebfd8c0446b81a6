"""Who is asking: HTTP Basic authentication against argon2 hashes, and login throttling (the pages' login
form is checked by the same ``Authenticator``).

The argon2id parameters (``password_hasher``; docs/security.md "Passwords"): OWASP's first choice, m = 19 MiB,
t = 2, p = 1, the memory- and time-cost trade-off of RFC 9106's section 4 scaled down for a server that must
verify 500 logins in a few minutes on two cores. A stored hash made with other parameters still verifies,
and is made anew with these on the next successful login (``Authenticator``'s ``on_rehash``, which the
server stores). Verification runs in worker threads, never on the event loop, at most ``verify_at_once``
(the cores) at a time.

Roles (judge/serve/model/viewer.py): public (no credentials), team, judge, admin (the account types of
accounts.yaml). The database
holds argon2 hashes only; accounts.yaml may hold plain passwords (the CCS format) or hashes (what
`judge contest init` writes). Too many failed logins for one username, or from one address, within a
window block further attempts (right or wrong) with 429 until the window has passed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from argon2 import PasswordHasher, extract_parameters
from argon2.exceptions import InvalidHashError, VerificationError

from judge.serve.model.contest import AccountSpec, ContestError
from judge.serve.model.records import AccountRecord
from judge.serve.model.times import Clock
from judge.serve.model.viewer import PUBLIC, Role, Viewer
from judge.serve.storage import Writer

ARGON2_AT_ONCE = 2  # the default of ``verify_at_once``; `judge serve` gives its cores
# OWASP Password Storage Cheat Sheet, argon2id: "a minimum configuration of 19 MiB of memory, an iteration
# count of 2, and 1 degree of parallelism"; RFC 9106 section 4 lets memory and passes be traded this way
ARGON2_TIME_COST = 2
ARGON2_MEMORY_KIB = 19 * 1024
ARGON2_PARALLELISM = 1


def password_hasher() -> PasswordHasher:
    """argon2id with the parameters above (every hash `judge serve` and `judge contest init` make)."""
    return PasswordHasher(time_cost=ARGON2_TIME_COST, memory_cost=ARGON2_MEMORY_KIB, parallelism=ARGON2_PARALLELISM)


class AuthError(Exception):
    def __init__(self, status: int, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after_s = retry_after_s


def is_hash(password: str) -> bool:
    if not password.startswith("$argon2"):
        return False
    try:
        extract_parameters(password)
    except InvalidHashError:
        return False
    return True


REHASH_OF = "rehash-of:"  # meta key + account id: the SHA-256 of the accounts.yaml hash a login's rehash replaced


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rehashed(w: Writer, account_id: str, old: str, new: str) -> None:
    """A login made ``new`` (current parameters) of ``old``: store it, and remember which accounts.yaml hash it
    stands for, so that the next start keeps it (and the account's sessions) rather than going back."""
    w.set_password_hash(account_id, new)
    key = REHASH_OF + account_id
    if w.get_meta(key) is None:
        w.set_meta(key, _sha256(old))


def sync_accounts(w: Writer, accounts: Sequence[AccountSpec], hasher: PasswordHasher) -> list[str]:
    """Make the stored accounts match accounts.yaml (inside the caller's transaction). A plain password that
    still verifies against the stored hash keeps it (made anew if its parameters are not the current ones);
    any other is hashed anew; a hash in accounts.yaml is stored as it is, unless a login already rehashed
    that very hash. Returns the ids of the accounts whose password changed or that are gone (their sessions
    must end)."""
    stored = {a.id: a.password_hash for a in w.accounts()}
    records = []
    for a in accounts:
        if a.password.startswith("$argon2"):
            if not is_hash(a.password):
                raise ContestError(f"accounts: {a.username}: the password looks like an argon2 hash but is malformed")
            digest = a.password
            if a.id in stored and w.get_meta(REHASH_OF + a.id) == _sha256(a.password):
                digest = stored[a.id]
        else:
            digest = stored.get(a.id, "")
            if not digest or not _verifies(hasher, digest, a.password) or hasher.check_needs_rehash(digest):
                digest = hasher.hash(a.password)
        records.append(AccountRecord(a.id, a.username, digest, a.type, a.team_id, a.name))
    w.replace_accounts(records)
    kept = {r.id: r.password_hash for r in records}
    return sorted(aid for aid, digest in stored.items() if kept.get(aid) != digest)


def _verifies(hasher: PasswordHasher, digest: str, password: str) -> bool:
    try:
        return hasher.verify(digest, password)
    except (VerificationError, InvalidHashError):
        return False


@dataclass(frozen=True)
class Lockout:
    """After ``failures`` failed logins for one key (a username, an address) within ``window_s`` seconds, that
    key's logins are refused (429) until the window has passed; ``failures == 0``: never."""

    failures: int
    window_s: float


@dataclass(frozen=True)
class LoginLimits:
    """`judge serve --account-lockout`, `--address-lockout` (docs/security.md: the account lockout lets anyone
    who knows a username keep its Basic-auth logins refused for the window; a page session already open is
    not affected)."""

    account: Lockout = Lockout(5, 60.0)
    address: Lockout = Lockout(20, 60.0)


class LoginThrottle:
    """At most ``max_failures`` failed logins per key within ``window_s`` seconds (0: no limit)."""

    def __init__(self, clock: Clock, max_failures: int = 5, window_s: float = 60.0) -> None:
        self._clock = clock
        self.max_failures = max_failures
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        q = self._failures.setdefault(key, deque())
        while q and q[0] <= now - self.window_s:
            q.popleft()
        return q

    def retry_after(self, key: str) -> float | None:
        """Seconds until ``key`` may try again; None when it may now."""
        now = self._clock.now()
        with self._lock:
            q = self._recent(key, now)
            if self.max_failures <= 0 or len(q) < self.max_failures:
                return None
            return q[-self.max_failures] + self.window_s - now

    def failed(self, key: str) -> None:
        now = self._clock.now()
        with self._lock:
            self._recent(key, now).append(now)

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def window_start(self) -> float:
        """The oldest time a failure counts from now on."""
        return self._clock.now() - self.window_s

    def adopt(self, key: str, times: Sequence[float]) -> None:
        """The failures of ``key`` every process made (the database's: ``FailureLog``, which holds this one's
        too) in place of this process's count."""
        now = self._clock.now()
        with self._lock:
            self._failures[key] = deque(sorted(t for t in times if t > now - self.window_s))


class FailureLog(Protocol):
    """The failed logins of every process on the people's database (people/login_failures.py)."""

    def recent(self, since: Mapping[str, float]) -> dict[str, list[float]]: ...

    def failed(self, keys: Sequence[str], now: float) -> None: ...

    def forget(self, key: str) -> None: ...


@dataclass(frozen=True)
class _Stored:
    viewer: Viewer
    digest: str


class Authenticator:
    """Checks Basic credentials; a password that verified once is remembered (as a SHA-256) so each request
    does not pay for argon2 again."""

    def __init__(
        self,
        accounts: Sequence[AccountRecord],
        hasher: PasswordHasher,
        clock: Clock,
        limits: LoginLimits = LoginLimits(),
        disabled: Collection[str] = frozenset(),
        verify_at_once: int = ARGON2_AT_ONCE,
        on_rehash: Callable[[str, str, str], None] | None = None,
        failures: FailureLog | None = None,
    ) -> None:
        self._hasher = hasher
        self._clock = clock
        # every process's failed logins (the database's), read before each argon2 verification; None: this
        # process's only (a read-only server)
        self._failures = failures
        self._on_rehash = on_rehash  # (account id, old hash, new hash): store it
        self._per_user = LoginThrottle(clock, limits.account.failures, limits.account.window_s)
        self._per_address = LoginThrottle(clock, limits.address.failures, limits.address.window_s)
        self._lock = threading.Lock()
        self._accounts: dict[str, _Stored] = {}
        self._by_id: dict[str, Viewer] = {}
        self._verified: dict[str, bytes] = {}
        # each account's access (its viewer and hash) and a number that changes with it: what an open event
        # feed checks (``access_of``), so that a reset password or a disabled account ends it
        self._access: dict[str, tuple[Viewer, str, int]] = {}
        self._changes = 0
        self.reload(accounts, disabled)
        self._dummy = hasher.hash("not a password")  # unknown users cost the same time as known ones
        # argon2 is slow and takes memory on purpose: a login storm at the start of a contest (every team at
        # once) must not take the memory the judging needs, so at most this many verify at a time, each in
        # one of as many threads of their own: the memory a hash took stays with the thread that freed it
        # (glibc's per-thread arenas), so hashing in any of the 40 request threads would keep ~40 x 19 MiB
        self._argon2 = ThreadPoolExecutor(max(1, verify_at_once), thread_name_prefix="argon2")

    @property
    def hasher(self) -> PasswordHasher:
        return self._hasher

    def reload(self, accounts: Sequence[AccountRecord], disabled: Collection[str]) -> None:
        """The accounts that may log in now (an admin added, changed or disabled some: services/people/roster.py).
        A disabled account is unknown here: it cannot log in, and its page sessions find no viewer."""
        by_name: dict[str, _Stored] = {}
        by_id: dict[str, Viewer] = {}
        for a in accounts:
            if a.id in disabled:
                continue
            viewer = Viewer(Role(a.type), a.id, a.username, a.team_id)
            by_name[a.username] = _Stored(viewer, a.password_hash)
            by_id[a.id] = viewer
        with self._lock:
            before = self._accounts
            # a password verified before stays so only for an account whose hash did not change
            kept = {u for u, new in by_name.items() if u in before and before[u] == new}
            self._verified = {u: fp for u, fp in self._verified.items() if u in kept}
            self._accounts, self._by_id = by_name, by_id
            access: dict[str, tuple[Viewer, str, int]] = {}
            for stored in by_name.values():
                aid = stored.viewer.account_id
                assert aid is not None
                old = self._access.get(aid)
                if old is not None and old[:2] == (stored.viewer, stored.digest):
                    access[aid] = old
                else:  # new, or its password, role, team or username changed: a new number
                    self._changes += 1
                    access[aid] = (stored.viewer, stored.digest, self._changes)
            self._access = access  # a disabled or removed account has none

    def viewer_of_account(self, account_id: str) -> Viewer | None:
        """The viewer of an account (a page session names it); None if it is gone."""
        return self._by_id.get(account_id)

    def access_of(self, account_id: str) -> int | None:
        """A number that stays the same while the account's access does, and changes when its password is
        changed or reset, its role, team or username changes, or it is disabled or removed (None then): an open
        event feed remembers it when it starts, and ends when it changes (http/api/feed.py)."""
        found = self._access.get(account_id)
        return None if found is None else found[2]

    def authenticate(self, header: str | None, address: str) -> Viewer:
        """The viewer for an Authorization header (None: public). Raises AuthError (401, or 429)."""
        if header is None:
            return PUBLIC
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "basic":
            raise AuthError(401, "use HTTP Basic authentication")
        try:
            username, sep, password = base64.b64decode(token.strip(), validate=True).decode("utf-8").partition(":")
        except ValueError:  # binascii.Error, UnicodeDecodeError, and non-ASCII text for b64decode
            raise AuthError(401, "malformed Basic credentials") from None
        if not sep:
            raise AuthError(401, "malformed Basic credentials (expected user:password)")
        user_key, address_key = f"user:{username}", f"address:{address}"
        self._refuse_if_locked(user_key, address_key)  # this process's count: no database read per request
        stored = self._accounts.get(username)
        fingerprint = hashlib.sha256(password.encode("utf-8")).digest()
        with self._lock:
            known = self._verified.get(username)
        if stored is not None and known is not None and hmac.compare_digest(known, fingerprint):
            return stored.viewer
        # a password not verified yet (a guess, maybe): every process's count first (the database's)
        had_failed = self._adopt_stored(user_key, address_key)
        self._refuse_if_locked(user_key, address_key)
        digest = stored.digest if stored else self._dummy
        ok = self._argon2.submit(_verifies, self._hasher, digest, password).result() and stored is not None
        if not ok:
            self._per_user.failed(user_key)
            self._per_address.failed(address_key)
            if self._failures is not None:
                self._failures.failed([k for k in (user_key, address_key) if self._counts(k)], self._clock.now())
            raise AuthError(401, "wrong username or password")
        self._per_user.succeeded(user_key)
        if had_failed and self._failures is not None:  # a login that succeeds writes only then
            self._failures.forget(user_key)
        assert stored is not None
        with self._lock:
            if self._accounts.get(username) is stored:  # not changed by a reload meanwhile
                self._verified[username] = fingerprint
        if self._hasher.check_needs_rehash(stored.digest):
            self._rehash(username, stored, password)
        return stored.viewer

    def _throttle(self, key: str) -> LoginThrottle:
        return self._per_user if key.startswith("user:") else self._per_address

    def _counts(self, key: str) -> bool:
        return self._throttle(key).max_failures > 0

    def _refuse_if_locked(self, user_key: str, address_key: str) -> None:
        for key, what in ((user_key, "this account"), (address_key, "this address")):
            wait = self._throttle(key).retry_after(key)
            if wait is not None:
                raise AuthError(429, f"too many failed logins for {what}; try again in {wait:.0f} s", wait)

    def _adopt_stored(self, user_key: str, address_key: str) -> bool:
        """Every process's failures of the two keys (the database's) laid over this one's count; whether the
        username had any."""
        keys = [k for k in (user_key, address_key) if self._counts(k)]
        if self._failures is None or not keys:
            return False
        found = self._failures.recent({k: self._throttle(k).window_start() for k in keys})
        for key, times in found.items():
            self._throttle(key).adopt(key, times)
        return bool(found.get(user_key))

    def _rehash(self, username: str, stored: _Stored, password: str) -> None:
        """The password verified against a hash made with other parameters: make it anew with ours."""
        digest = self._argon2.submit(self._hasher.hash, password).result()
        with self._lock:
            if self._accounts.get(username) is not stored:
                return
            self._accounts[username] = _Stored(stored.viewer, digest)
            aid = stored.viewer.account_id
            if aid is not None and aid in self._access:  # the same password: the same access
                self._access[aid] = (stored.viewer, digest, self._access[aid][2])
        if self._on_rehash is not None and stored.viewer.account_id is not None:
            self._on_rehash(stored.viewer.account_id, stored.digest, digest)
