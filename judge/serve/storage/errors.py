"""The storage layer's errors (storage/__init__.py re-exports them): a database that cannot be opened, or
one that cannot be reached just now."""

from __future__ import annotations

from judge.serve.model.errors import Refused


class StorageError(Exception):
    """The database cannot be opened, or belongs to something else (one line)."""


class StorageUnavailable(StorageError, Refused):
    """The database server cannot be reached now (PostgreSQL: down, restarting, or a standby being promoted;
    docs/deploy.md): nothing was done, or, when the connection broke at the commit, perhaps done. A request
    that meets it is refused with 503 and ``Retry-After`` (the client's message names no server); ``str()``
    is the one line for the log."""

    def __init__(self, detail: str) -> None:
        Refused.__init__(self, 503, UNAVAILABLE, {"Retry-After": str(UNAVAILABLE_RETRY_S)})
        self.args = (detail,)

    def __str__(self) -> str:
        return str(self.args[0])


UNAVAILABLE_RETRY_S = 5
UNAVAILABLE = (
    "the contest's database cannot be reached just now (it may be switching to its standby): try again in a few "
    "seconds; something sent just now may have been stored all the same: look before sending it again"
)
