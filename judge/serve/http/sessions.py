"""Sessions of the HTML pages: a signed cookie, and the CSRF token of every form.

The cookie (``judge_session``) holds a random session id, the account's username (none: the public) and when
it was issued, signed with HMAC-SHA256 under a key kept in the contest's database (made once, so a restarted
server keeps its sessions: services.accounts.session_secret). It is ``HttpOnly`` (no script reads it),
``SameSite=Lax`` (other sites' forms do not carry it), ``Secure`` when the request came over HTTPS (behind a
TLS proxy), and valid for ``SESSION_S``. Every visitor gets one, the public too, so the login form has a
CSRF token.

The CSRF token of a form is HMAC(key, "csrf:" + session id): every POST must carry it in the ``csrf``
field, else 403. A login starts a new session id (no session fixation); a logout ends it.

Passwords are checked by the API's ``Authenticator`` (argon2, the same login throttle).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

COOKIE = "judge_session"
SESSION_S = 12 * 3600.0


@dataclass(frozen=True)
class Session:
    sid: str
    username: str | None
    issued_s: float


class Sessions:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def _sign(self, payload: bytes) -> str:
        return hmac.new(self._key, payload, hashlib.sha256).hexdigest()

    def new(self, username: str | None, now: float) -> Session:
        return Session(secrets.token_urlsafe(18), username, now)

    def encode(self, s: Session) -> str:
        payload = base64.urlsafe_b64encode(json.dumps([s.sid, s.username, s.issued_s]).encode()).decode()
        return f"{payload}.{self._sign(payload.encode())}"

    def decode(self, cookie: str | None, now: float) -> Session | None:
        """The session of a cookie; None when absent, forged, malformed or expired."""
        if not cookie or "." not in cookie or len(cookie) > 1024:
            return None
        payload, _, mac = cookie.rpartition(".")
        if not hmac.compare_digest(mac, self._sign(payload.encode())):
            return None
        try:
            sid, username, issued = json.loads(base64.urlsafe_b64decode(payload.encode()))
        except (binascii.Error, ValueError, TypeError):
            return None
        if not isinstance(sid, str) or not isinstance(issued, int | float) or now - issued > SESSION_S:
            return None
        return Session(sid, username if isinstance(username, str) else None, float(issued))

    def csrf(self, s: Session) -> str:
        return self._sign(f"csrf:{s.sid}".encode())

    def csrf_ok(self, s: Session, token: str | None) -> bool:
        return token is not None and hmac.compare_digest(token, self.csrf(s))


def cookie_header(value: str, *, secure: bool, max_age_s: float = SESSION_S) -> str:
    flags = f"{COOKIE}={value}; Path=/; Max-Age={int(max_age_s)}; HttpOnly; SameSite=Lax"
    return flags + ("; Secure" if secure else "")


def basic_header(username: str, password: str) -> str:
    """The form's credentials as the API's Basic header, so the same Authenticator checks them."""
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
