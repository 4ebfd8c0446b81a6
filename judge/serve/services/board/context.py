"""What the board's services receive: every service's parts (core/context.py) and the boards made
(boardcache.py)."""

from __future__ import annotations

from typing import Protocol

from judge.serve.services.board.boardcache import BoardCache
from judge.serve.services.core.context import Served


class ServedBoard(Served, Protocol):
    @property
    def boards(self) -> BoardCache: ...
