"""The login throttle counts every process's failed logins (issue 51): the failures are rows of the people's
database (storage/logins.py, people/login_failures.py), read before each argon2 verification, so that N
`judge serve --shared` processes do not give an attacker N times the attempts; a login that succeeds writes
nothing (unless its username had failures, which it forgets). Both engines; two real processes in
tests/test_serve_shared.py."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import CHEAP_HASHER, T0, FakeClock

from judge.serve.model.records import AccountRecord
from judge.serve.services.people.accounts import Authenticator, AuthError, Lockout, LoginLimits
from judge.serve.services.people.login_failures import StoredFailures
from judge.serve.storage import Engine

LIMITS = LoginLimits(account=Lockout(5, 60.0), address=Lockout(8, 120.0))


def _header(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


class Counted:
    """A storage whose write transactions are counted."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage
        self.writes = 0

    def read(self) -> Any:
        return self.storage.read()

    @contextmanager
    def write(self) -> Iterator[Any]:
        self.writes += 1
        with self.storage.write() as w:
            yield w


@pytest.fixture
def storage(tmp_path: Path, engine: Engine) -> Iterator[Any]:
    opened = engine.open(tmp_path / "site.sqlite", "site_login")
    try:
        yield opened
    finally:
        opened.close()


def _process(storage: Any, clock: FakeClock) -> tuple[Authenticator, Counted]:
    """One process's logins over the shared people's database."""
    counted = Counted(storage)
    account = AccountRecord("team1", "team1", CHEAP_HASHER.hash("right"), "team", "team1")
    failures = StoredFailures(counted, 120.0)  # type: ignore[arg-type]
    return Authenticator([account], CHEAP_HASHER, clock, LIMITS, failures=failures), counted


def _status(auth: Authenticator, password: str, address: str = "10.0.0.1", user: str = "team1") -> int:
    try:
        auth.authenticate(_header(user, password), address)
    except AuthError as exc:
        return exc.status
    return 200


def test_the_failures_of_two_processes_add_up_to_one_lockout(storage: Any) -> None:
    clock = FakeClock(T0)
    a, _ = _process(storage, clock)
    b, _ = _process(storage, clock)
    assert [_status(a, "guess") for _ in range(3)] == [401] * 3
    assert [_status(b, "guess") for _ in range(2)] == [401] * 2  # 5 in all: locked on both
    assert _status(b, "guess") == 429 and _status(a, "guess") == 429
    assert _status(b, "right") == 429  # the right password too, until the window has passed
    clock.advance(61)
    assert _status(b, "right") == 200 and _status(a, "right") == 200


def test_a_login_that_succeeds_writes_nothing_and_forgets_its_usernames_failures(storage: Any) -> None:
    clock = FakeClock(T0)
    a, counted = _process(storage, clock)
    b, _ = _process(storage, clock)
    assert _status(a, "right") == 200 and _status(a, "right") == 200
    assert counted.writes == 0  # verified, then remembered: no write either time
    assert [_status(a, "guess") for _ in range(4)] == [401] * 4
    assert counted.writes == 4
    assert _status(b, "right") == 200  # its username's failures forgotten, on every process
    again = [_status(a, "guess", address="10.0.0.2") for _ in range(4)]  # (the first address has 8 now)
    assert again == [401] * 4  # 4 again, not 8
    assert _status(b, "guess", address="10.0.0.2") == 401 and _status(a, "guess", address="10.0.0.2") == 429


def test_the_address_lockout_counts_every_process_and_unknown_usernames(storage: Any) -> None:
    clock = FakeClock(T0)
    a, _ = _process(storage, clock)
    b, _ = _process(storage, clock)
    got = [_status(a if i % 2 else b, "x", user=f"nobody{i}") for i in range(8)]
    assert got == [401] * 8
    assert _status(a, "right") == 429 and _status(b, "x", user="other") == 429
    assert _status(a, "right", address="10.0.0.2") == 200  # another address


def test_failures_are_kept_hashed_and_only_within_the_window(storage: Any) -> None:
    clock = FakeClock(T0)
    a, _ = _process(storage, clock)
    _status(a, "guess", user="hunter2-typed-as-a-name")
    clock.advance(121)  # out of the longest window
    _status(a, "guess")
    with storage.read() as r:
        assert r.login_failures({}) == {}
    raw = _rows(storage)
    assert len(raw) == 2 and all(t == T0 + 121 for _, t in raw)  # the first failure's rows deleted
    assert not any("hunter2" in k or "team1" in k or "10.0.0.1" in k for k, _ in raw)


def _rows(storage: Any) -> list[tuple[str, float]]:
    """Every row of login_failures (read through the storage's own connection: its engine's)."""
    with storage.read() as r:
        rows = r._c.execute("SELECT key_sha256, time_s FROM login_failures ORDER BY id").fetchall()
    return [(str(row[0]), float(row[1])) for row in rows]
