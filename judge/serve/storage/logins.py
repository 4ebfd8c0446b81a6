"""The queries of the failed logins (issue 51; storage/queries.py's reader and writer call them), in the people's
database (a site's, or a single contest's): one row per failed login and key (a username's, an address's: its
SHA-256, services/people/login_failures.py), kept while a lockout's window may count it. Every statement is
parameterized."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from judge.serve.storage.dialect import Conn


def login_failures(c: Conn, since: Mapping[str, float]) -> dict[str, list[float]]:
    """When each key of ``since`` (key -> a time) failed after its time, oldest first."""
    keys = list(since)
    if not keys:
        return {}
    where = " OR ".join("(key_sha256 = ? AND time_s > ?)" for _ in keys)
    args = [x for k in keys for x in (k, since[k])]
    rows = c.execute(f"SELECT key_sha256, time_s FROM login_failures WHERE {where} ORDER BY time_s, id", args)
    out: dict[str, list[float]] = {k: [] for k in keys}
    for r in rows:
        out[str(r[0])].append(float(r[1]))
    return out


def add_login_failure(c: Conn, keys: Sequence[str], now: float, forget_before_s: float) -> None:
    """A failed login at ``now`` for each of ``keys``; the rows from before ``forget_before_s`` (out of every
    window) are deleted."""
    c.execute("DELETE FROM login_failures WHERE time_s < ?", (forget_before_s,))
    for key in keys:
        c.execute("INSERT INTO login_failures (key_sha256, time_s) VALUES (?, ?)", (key, now))


def forget_login_failures(c: Conn, key: str) -> int:
    return int(c.execute("DELETE FROM login_failures WHERE key_sha256 = ?", (key,)).rowcount)
