"""The one way a request is refused, whatever layer finds out: the HTTP status and one line for the client."""

from __future__ import annotations

from collections.abc import Mapping


class Refused(Exception):
    """A request that is refused: the status (4xx) and one line for the client, and extra headers (e.g.
    ``Retry-After``). Services raise it; the HTTP layer turns it into the answer (JSON or a page)."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})
