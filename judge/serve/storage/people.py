"""The people's queries (storage/queries.py's reader and writer inherit them), in the people's database (a
site's, or a single contest's): the accounts, the pages' sessions, the audit log, the site's registry of
contests (storage/site.py) and the failed logins (storage/logins.py). Every statement parameterized."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from judge.serve.model.records import AccountRecord, AuditRecord, SessionRecord, SiteContestRecord
from judge.serve.storage import live, logins
from judge.serve.storage import site as site_rows
from judge.serve.storage.dialect import Conn


class PeopleReads:
    """The Reader's queries of this module (storage/queries.py's reader inherits them)."""

    _c: Conn

    def accounts(self) -> list[AccountRecord]:
        rows = self._c.execute("SELECT id, username, password_hash, type, team_id, name FROM accounts ORDER BY id")
        return [AccountRecord(*tuple(r)) for r in rows]

    def session(self, selector: str) -> SessionRecord | None:
        row = self._c.execute(
            "SELECT selector, verifier_sha256, account_id, created_s, expires_s FROM sessions WHERE selector = ?",
            (selector,),
        ).fetchone()
        return None if row is None else SessionRecord(*tuple(row))

    def audit(self, limit: int) -> list[AuditRecord]:
        return live.audit(self._c, limit)

    def site_contests(self) -> list[SiteContestRecord]:
        return site_rows.site_contests(self._c)

    def login_failures(self, since: Mapping[str, float]) -> dict[str, list[float]]:
        return logins.login_failures(self._c, since)


class PeopleWrites:
    """The Writer's statements of this module (storage/queries.py's writer inherits them)."""

    _c: Conn

    def replace_accounts(self, accounts: Sequence[AccountRecord]) -> None:
        self._c.execute("DELETE FROM accounts")
        self._c.executemany(
            "INSERT INTO accounts (id, username, password_hash, type, team_id, name) VALUES (?, ?, ?, ?, ?, ?)",
            [(a.id, a.username, a.password_hash, a.type, a.team_id, a.name) for a in accounts],
        )

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        self._c.execute("UPDATE accounts SET password_hash = ? WHERE id = ?", (password_hash, account_id))

    def add_session(self, new: SessionRecord) -> None:
        self._c.execute(
            "INSERT INTO sessions (selector, verifier_sha256, account_id, created_s, expires_s) VALUES (?, ?, ?, ?, ?)",
            (new.selector, new.verifier_sha256, new.account_id, new.created_s, new.expires_s),
        )

    def end_session(self, selector: str) -> None:
        self._c.execute("DELETE FROM sessions WHERE selector = ?", (selector,))

    def end_sessions(self, account_id: str) -> int:
        return int(self._c.execute("DELETE FROM sessions WHERE account_id = ?", (account_id,)).rowcount)

    def end_expired_sessions(self, now: float) -> int:
        return int(self._c.execute("DELETE FROM sessions WHERE expires_s <= ?", (now,)).rowcount)

    def add_audit(self, entry: AuditRecord) -> None:
        live.add_audit(self._c, entry)

    def put_site_contest(self, record: SiteContestRecord) -> None:
        site_rows.put_site_contest(self._c, record)

    def add_login_failure(self, keys: Sequence[str], now: float, forget_before_s: float) -> None:
        logins.add_login_failure(self._c, keys, now, forget_before_s)

    def forget_login_failures(self, key: str) -> int:
        return logins.forget_login_failures(self._c, key)
