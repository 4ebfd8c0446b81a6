"""The event feed for one viewer: where a (re)connecting client starts, and the next lines it may see."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services.events import lines_after

if TYPE_CHECKING:
    from judge.serve.services.server import Server


def start_after(server: Server, token: str | None) -> int:
    """The token a feed starts after: 0 (the beginning), or one this server issued (else a 400)."""
    if token is None:
        return 0
    with server.storage.read() as r:
        latest = r.latest_event()
    if not token.isdigit() or len(token) > 18 or int(token) > latest:
        raise Refused(400, f"unknown since_token {token!r} (use a token from this server's event feed)")
    return int(token)


def next_lines(server: Server, viewer: Viewer, after: int, limit: int) -> tuple[list[str], int, bool]:
    """The viewer's lines after ``after``, the last token read, and whether more may be waiting."""
    sight = server.sight(viewer, server.clock.now())
    with server.storage.read() as r:
        return lines_after(r, after, sight, limit)
