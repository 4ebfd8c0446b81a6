"""What the judging's services receive: every service's parts (core/context.py), the judging queue and its
pool, and the problems' package versions (issue 33)."""

from __future__ import annotations

from typing import Protocol

from judge.serve.services.core.context import Served
from judge.serve.services.judging.pool import JudgingPool
from judge.serve.services.judging.queue import JobQueue
from judge.serve.services.judging.versions import CurrentPackages, VersionTools


class ServedJudging(Served, Protocol):
    @property
    def judging(self) -> JobQueue: ...

    @property
    def pool(self) -> JudgingPool: ...

    @property
    def versions(self) -> CurrentPackages:
        """Each problem's package in force."""
        ...

    @property
    def tools(self) -> VersionTools:
        """How new package versions reach the judge."""
        ...
