"""Cross-site requests (F4 of issue 27, docs/security.md): a state-changing request (POST, PUT, PATCH,
DELETE) whose ``Origin`` header names another site is refused (403), on every route, the API's and the
pages' alike, whatever its body; and an API body must be of a media type its route declares
(``RouteSpec.bodies``, JSON unless said otherwise), else 415.

Why both: a browser that holds a team's Basic credentials (or a page session) sends them with any request
another site makes it send. Another site's HTML form can only send ``application/x-www-form-urlencoded``,
``multipart/form-data`` or ``text/plain`` (the 415 stops those on JSON routes), and every cross-site POST
a browser makes carries ``Origin`` (the 403 stops it, whatever the body type: a route that accepts
multipart, as DOMjudge's submit does, is covered too). Clients that are not browsers (curl, the spec's
tools) send no ``Origin`` and are not affected. The pages also check their CSRF token (sessions.py).

The server's own origin is the request's scheme and ``Host``: behind a TLS proxy, the proxy must pass
``Host`` and ``X-Forwarded-Proto`` and be named by ``--forwarded-allow-ips`` (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Collection

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_PORTS = {"http": "80", "https": "443"}


def normalized(origin: str) -> str:
    """``scheme://host[:port]`` lowercased, without the scheme's default port."""
    origin = origin.strip().lower().rstrip("/")
    scheme, sep, host = origin.partition("://")
    if not sep:
        return origin
    default = DEFAULT_PORTS.get(scheme)
    if default is not None and host.endswith(f":{default}") and not host.endswith("]"):
        host = host[: -len(default) - 1]
    return f"{scheme}://{host}"


def cross_site(method: str, origin: str | None, scheme: str, host: str | None) -> str | None:
    """Why a request is refused as cross-site (one line), or None: it is not state-changing, has no
    ``Origin`` (not a browser), or comes from this server's own origin."""
    if method.upper() not in STATE_CHANGING or origin is None:
        return None
    own = normalized(f"{scheme}://{host}") if host else None
    if own is not None and normalized(origin) == own:
        return None
    return f"a cross-site request is refused: Origin {origin[:100]!r} is not this server ({own or 'no Host header'})"


def media_type(content_type: str | None) -> str | None:
    """The media type of a ``Content-Type`` header (``application/json; charset=utf-8`` -> ``application/json``);
    None when absent or empty."""
    if content_type is None:
        return None
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind or None


def unsupported_body(content_type: str | None, accepted: Collection[str]) -> str | None:
    """Why a body's declared type is refused (415, one line), or None. A body without a ``Content-Type``
    is read as the route's first type (curl and scripts often omit it; a browser always declares one for
    a cross-site form, and what it can send without one carries an ``Origin``)."""
    kind = media_type(content_type)
    if kind is None or kind in accepted:
        return None
    return f"the body must be {' or '.join(accepted)} (its Content-Type), not {kind[:60]}"
