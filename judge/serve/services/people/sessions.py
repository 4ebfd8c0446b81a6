"""The pages' sessions, kept on the server (F2 of issue 27, docs/security.md "Sessions"): a login stores a
session, every page request looks it up, a logout deletes it, so a cookie copied before "Log out" is
worth nothing afterwards. ``end_all`` ends every session of an account at once: the start of `judge
serve` calls it for an account whose password changed in accounts.yaml or that is gone from it (and so
will a password reset or a disabled account, issue 30).

A cookie is ``<selector>.<verifier>``, both random (128 and 256 bits): the selector finds the stored
session, whose ``verifier_sha256`` must match the verifier (compared in constant time). The database keeps
only that hash and no key of any kind: read from a copy of the database, nothing can be turned into a
cookie. A visitor who is not logged in gets a cookie of the same shape that nothing stores (its only use
is the CSRF token of the login form: http/pages/sessions.py); it is the public.

Sessions are the site's (issue 44, site_people.py: kept in the site database): one login works in every
contest of a site.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from judge.serve.model.records import SessionRecord
from judge.serve.model.viewer import PUBLIC, Viewer
from judge.serve.services.people.site_people import SitePeople
from judge.serve.storage import Writer

SESSION_S = 12 * 3600.0  # a session ends 12 h after the login, or at the logout, whichever comes first
_COOKIE = re.compile(r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")


def _sha256(verifier: str) -> str:
    return hashlib.sha256(verifier.encode("ascii")).hexdigest()


def new_cookie() -> str:
    """A fresh ``<selector>.<verifier>``: of nobody until a login stores it."""
    return f"{secrets.token_urlsafe(16)}.{secrets.token_urlsafe(32)}"


def well_formed(cookie: str | None) -> bool:
    return cookie is not None and _COOKIE.fullmatch(cookie) is not None


def log_in(people: SitePeople, viewer: Viewer, now: float) -> str:
    """A new session for ``viewer`` (a new cookie: no session fixation); expired ones are swept."""
    assert viewer.account_id is not None
    cookie = new_cookie()
    selector, verifier = cookie.split(".")
    with people.storage.write() as w:
        w.end_expired_sessions(now)
        w.add_session(SessionRecord(selector, _sha256(verifier), viewer.account_id, now, now + SESSION_S))
    return cookie


def viewer_of(people: SitePeople, cookie: str | None, now: float) -> Viewer:
    """Who a cookie's session belongs to: PUBLIC unless it is a live session of an existing account."""
    if not well_formed(cookie):
        return PUBLIC
    assert cookie is not None
    selector, verifier = cookie.split(".")
    cache = people.session_cache
    stored = cache.get(selector)
    if stored is None:
        epoch = cache.epoch
        with people.storage.read() as r:
            stored = r.session(selector)
        if stored is not None:
            cache.put(stored, epoch)
    return _viewer(people, stored, verifier, now)


def known_viewer(people: SitePeople, cookie: str | None, now: float) -> Viewer | None:
    """``viewer_of`` when it needs no storage (no cookie, or a session kept in memory); None otherwise.
    For the event loop (http/pages/web.py: a page answered there)."""
    if not well_formed(cookie):
        return PUBLIC
    assert cookie is not None
    selector, verifier = cookie.split(".")
    stored = people.session_cache.get(selector)
    return None if stored is None else _viewer(people, stored, verifier, now)


def _viewer(people: SitePeople, stored: SessionRecord | None, verifier: str, now: float) -> Viewer:
    if stored is None or stored.expires_s <= now or not hmac.compare_digest(stored.verifier_sha256, _sha256(verifier)):
        return PUBLIC
    return people.auth.viewer_of_account(stored.account_id) or PUBLIC


def log_out(people: SitePeople, cookie: str | None) -> None:
    """End the cookie's session (nothing to do for the public's)."""
    if well_formed(cookie):
        assert cookie is not None
        selector = cookie.split(".")[0]
        with people.storage.write() as w:
            w.end_session(selector)
        people.session_cache.forget(selector)


def end_all(w: Writer, account_id: str) -> int:
    """End every session of the account, in the caller's transaction: the one call a password change, a
    reset or a disabled account makes (which then, after its commit, has ``SessionCache.forget_accounts``
    drop them from memory). Returns how many were ended."""
    return w.end_sessions(account_id)
