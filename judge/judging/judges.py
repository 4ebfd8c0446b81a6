"""Who judges a grading's jobs: threads of this process (``LocalJudges``, the default) or the workers of a
Dask cluster (judge/cluster/coordinator.py). Either way `grade` keeps its one loop (workloop.run_all): it
asks for the identity its results are keyed under, how many jobs may run at once, and a blocking
``judge(job)`` that its worker threads call."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from judge.judging.environment import Environment
from judge.judging.identity import judge_version
from judge.judging.jobs import JudgeJob, judge_job
from judge.judging.prepared import Packages
from judge.judging.results import SubmissionResult
from judge.languages.fingerprint import Fingerprints
from judge.package.problem import Problem

JudgeFn = Callable[[JudgeJob, Packages, Environment], SubmissionResult]


class NotJudged(Exception):
    """The job could not be judged this time, for a reason that is no verdict (listed as skipped, judged
    again next time): e.g. every worker that took it died."""


class Judges(Protocol):
    """Judges jobs for `grade`. ``judge`` is called from several threads at once."""

    @property
    def judge_version(self) -> str:
        """The judging code, its interpreter and sandbox backend (identity.judge_version) of the judges."""
        ...

    @property
    def warnings(self) -> tuple[str, ...]:
        """The sandbox's warnings (shown on the board)."""
        ...

    def fingerprint(self, language: str) -> str:
        """The language's fingerprint (fingerprint.Fingerprints) where it is judged."""
        ...

    def slots(self) -> int:
        """How many jobs may run at once now (at least 1)."""
        ...

    def judge(self, job: JudgeJob, toolchain: str) -> SubmissionResult:
        """Judge ``job`` (its results are keyed with ``toolchain``, identity.toolchain_hash). Raises
        build.SkipLanguage, like jobs.judge_job, or NotJudged."""
        ...

    def close(self) -> None: ...


class LocalJudges:
    """Threads of this process, ``jobs`` at a time, on this machine's sandbox."""

    def __init__(
        self, problems: Mapping[str, Problem], env: Environment, *, jobs: int = 1, judge_fn: JudgeFn | None = None
    ) -> None:
        self._env = env
        self._jobs = max(1, jobs)
        self._judge_fn = judge_fn or judge_job
        self._fingerprints = Fingerprints(env.languages, env.tools, env.runner)
        self._packages = Packages(problems, env)
        self.judge_version = judge_version(env)
        self.warnings = tuple(env.runner.info.warnings)

    def fingerprint(self, language: str) -> str:
        return self._fingerprints.of(language)

    def slots(self) -> int:
        return self._jobs

    def judge(self, job: JudgeJob, toolchain: str) -> SubmissionResult:
        return self._judge_fn(job, self._packages, self._env)

    def close(self) -> None:
        self._packages.close()
