"""The pages' session cookie and the CSRF token of every form (the sessions themselves are kept on the server:
services/people/sessions.py, docs/security.md).

The cookie (``judge_session``) is ``<selector>.<verifier>``, random. It is ``HttpOnly`` (no script reads it),
``SameSite=Lax`` (other sites' forms do not carry it), ``Secure`` when the request came over HTTPS (behind a
TLS proxy named by ``--forwarded-allow-ips``), and lasts ``SESSION_S``. Every visitor gets one, the public
too, so the login form has a CSRF token, except on the public's scoreboard page (no form there: a spectator's
browser without one keeps being answered on the event loop, http/pages/web.py); only a login stores one (and the
logout deletes it).

The CSRF token of a form is HMAC-SHA256 keyed by the cookie: a page shows it, another site can neither read
it nor compute it. Every POST must carry it in the ``csrf`` field, else 403. A login starts a new cookie (no
session fixation); a logout ends the session and gives a new, public cookie.

Passwords are checked by the API's ``Authenticator`` (argon2, the same login throttle).
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from judge.serve.services.people.sessions import SESSION_S

COOKIE = "judge_session"


def csrf(cookie: str) -> str:
    return hmac.new(cookie.encode("ascii"), b"csrf", hashlib.sha256).hexdigest()


def csrf_ok(cookie: str, token: str | None) -> bool:
    return token is not None and hmac.compare_digest(token.encode("utf-8", "replace"), csrf(cookie).encode("ascii"))


def cookie_header(value: str, *, secure: bool, max_age_s: float = SESSION_S) -> str:
    flags = f"{COOKIE}={value}; Path=/; Max-Age={int(max_age_s)}; HttpOnly; SameSite=Lax"
    return flags + ("; Secure" if secure else "")


def basic_header(username: str, password: str) -> str:
    """The form's credentials as the API's Basic header, so the same Authenticator checks them."""
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
