"""What an endpoint handler gets: the server, who is asking, the request's parameters and body; and the
checks handlers share (the contest id, the role)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.serve.auth import REALM, Role, Viewer
from judge.serve.upload import Refused

if TYPE_CHECKING:
    from judge.serve.server import Server


@dataclass(frozen=True)
class Ctx:
    server: Server
    viewer: Viewer
    params: Mapping[str, str]
    query: Mapping[str, str]
    body: bytes
    now: float

    def contest(self) -> None:
        """404 unless the URL names our contest."""
        cid = self.params.get("cid")
        if cid != self.server.contest.info.id:
            raise Refused(404, f"no contest {cid!r}")

    def param(self, name: str) -> str:
        return self.params[name]

    def authenticated(self, what: str) -> None:
        if self.viewer.role is Role.PUBLIC:
            raise Refused(401, f"log in to {what}", {"WWW-Authenticate": REALM})

    def staff(self, what: str) -> None:
        self.authenticated(what)
        if not self.viewer.staff:
            raise Refused(403, f"only judges and admins may {what}")

    def admin(self, what: str) -> None:
        self.authenticated(what)
        if self.viewer.role is not Role.ADMIN:
            raise Refused(403, f"only admins may {what}")

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise Refused(400, "the body must be JSON") from None


def number_id(value: str) -> int | None:
    """A numeric id from the URL (ours are 1, 2, ...); None for anything else (a 404, never a 500)."""
    if not value.isdigit() or len(value) > 18:
        return None
    return int(value)
