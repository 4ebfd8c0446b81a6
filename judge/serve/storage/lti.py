"""The queries of LTI 1.3 (issue 48; storage/queries.py's reader and writer mix them in, on both engines),
in the site database: the nonces used (each once only), the LMS users and the accounts they log in as, the
assignments' links (the services a launch offered: AGS line items, NRPS), and the scores sent to the LMS.
Every statement is parameterized."""

from __future__ import annotations

from judge.serve.model.lti import LtiLink, LtiScore, LtiUser
from judge.serve.storage.dialect import Conn

_USER = "issuer, sub, account_id, name, email, time_s"
_LINK = "issuer, client_id, contest_id, deployment_id, context_id, lineitems_url, lineitem_url, memberships_url, time_s"
_SCORE = "issuer, client_id, contest_id, sub, score, max_score, status, attempts, message, time_s"


class LtiReads:
    _c: Conn

    def lti_nonce_used(self, issuer: str, nonce: str) -> bool:
        row = self._c.execute("SELECT 1 FROM lti_nonces WHERE issuer = ? AND nonce = ?", (issuer, nonce)).fetchone()
        return row is not None

    def lti_user(self, issuer: str, sub: str) -> LtiUser | None:
        row = self._c.execute(f"SELECT {_USER} FROM lti_users WHERE issuer = ? AND sub = ?", (issuer, sub)).fetchone()
        return None if row is None else LtiUser(*tuple(row))

    def lti_users(self) -> list[LtiUser]:
        return [LtiUser(*tuple(r)) for r in self._c.execute(f"SELECT {_USER} FROM lti_users ORDER BY issuer, sub")]

    def lti_links(self) -> list[LtiLink]:
        rows = self._c.execute(f"SELECT {_LINK} FROM lti_links ORDER BY time_s DESC, contest_id")
        return [LtiLink(*tuple(r)) for r in rows]

    def lti_scores(self) -> list[LtiScore]:
        rows = self._c.execute(f"SELECT {_SCORE} FROM lti_scores ORDER BY contest_id, sub")
        return [LtiScore(*tuple(r)) for r in rows]

    def lti_platforms(self) -> list[str]:
        """The platforms an admin added on /site/lti: each lti.yaml's entry as JSON, oldest first."""
        rows = self._c.execute("SELECT entry FROM lti_platforms ORDER BY time_s, issuer, client_id")
        return [str(r[0]) for r in rows]


class LtiWrites(LtiReads):
    def use_lti_nonce(self, issuer: str, nonce: str, expires_s: float, now: float) -> bool:
        """Record ``nonce`` as used (False when it was already: a replay). Expired ones are swept."""
        self._c.execute("DELETE FROM lti_nonces WHERE expires_s < ?", (now,))
        cur = self._c.execute(
            "INSERT OR IGNORE INTO lti_nonces (issuer, nonce, expires_s) VALUES (?, ?, ?)", (issuer, nonce, expires_s)
        )
        return cur.rowcount == 1

    def add_lti_platform(self, issuer: str, client_id: str, entry: str, now: float) -> bool:
        """Keep a platform added on the page (False: one of that issuer and client id is there already)."""
        cur = self._c.execute(
            "INSERT OR IGNORE INTO lti_platforms (issuer, client_id, entry, time_s) VALUES (?, ?, ?, ?)",
            (issuer, client_id, entry, now),
        )
        return cur.rowcount == 1

    def put_lti_user(self, u: LtiUser) -> None:
        self._c.execute(
            f"INSERT INTO lti_users ({_USER}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(issuer, sub) DO UPDATE SET "
            "account_id = excluded.account_id, name = excluded.name, email = excluded.email, time_s = excluded.time_s",
            (u.issuer, u.sub, u.account_id, u.name, u.email, u.time_s),
        )

    def put_lti_link(self, k: LtiLink) -> None:
        self._c.execute(
            f"INSERT INTO lti_links ({_LINK}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(issuer, client_id, contest_id) DO UPDATE SET deployment_id = excluded.deployment_id, "
            "context_id = excluded.context_id, lineitems_url = excluded.lineitems_url, "
            "lineitem_url = excluded.lineitem_url, memberships_url = excluded.memberships_url, "
            "time_s = excluded.time_s",
            (
                k.issuer,
                k.client_id,
                k.contest_id,
                k.deployment_id,
                k.context_id,
                k.lineitems_url,
                k.lineitem_url,
                k.memberships_url,
                k.time_s,
            ),
        )

    def put_lti_score(self, s: LtiScore) -> None:
        self._c.execute(
            f"INSERT INTO lti_scores ({_SCORE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(issuer, client_id, contest_id, sub) DO UPDATE SET score = excluded.score, "
            "max_score = excluded.max_score, status = excluded.status, attempts = excluded.attempts, "
            "message = excluded.message, time_s = excluded.time_s",
            (s.issuer, s.client_id, s.contest_id, s.sub, s.score, s.max_score, s.status, s.attempts, s.message)
            + (s.time_s,),
        )
