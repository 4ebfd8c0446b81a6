"""What the problems' services receive: every service's parts (core/context.py) and the statements."""

from __future__ import annotations

from typing import Protocol

from judge.serve.services.core.context import Served
from judge.serve.services.problems.statements import Statements


class ServedProblems(Served, Protocol):
    @property
    def statements(self) -> Statements: ...
