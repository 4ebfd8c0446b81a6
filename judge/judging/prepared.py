"""Problem packages by id and content hash, each prepared (its output validator built) once, on first use.

A ``JudgeJob`` names its problem by id and package hash; ``Packages`` resolves that on the machine that
judges it. Here the packages are the ones loaded from disk; a package that changed on disk since the job
was made is refused (``PackageMismatch``: a JE, judged again) rather than judged against other tests.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

from judge.judging.environment import Environment
from judge.judging.submission import Prepared, prepare
from judge.package.problem import Problem


class PackageMismatch(Exception):
    """The job was made for another version of the package than the one here."""


class Packages:
    """Thread-safe; ``close()`` removes the built validators."""

    def __init__(self, problems: Mapping[str, Problem], env: Environment) -> None:
        self._problems = dict(problems)
        self._env = env
        self.workdir = Path(tempfile.mkdtemp(prefix="judge-packages-"))
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._done: dict[str, Prepared] = {}

    def __enter__(self) -> Packages:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def of(cls, prepared: Prepared, env: Environment) -> Packages:
        """Packages holding one problem, already prepared."""
        packages = cls({prepared.problem.id: prepared.problem}, env)
        packages._done[prepared.problem.id] = prepared
        return packages

    def problem(self, problem_id: str) -> Problem:
        return self._problems[problem_id]

    def prepared(self, problem_id: str, package_hash: str) -> Prepared:
        """The problem with its validator built. Raises KeyError (unknown id), PackageMismatch."""
        problem = self._problems[problem_id]
        if package_hash != problem.content_hash:
            raise PackageMismatch(
                f"package {problem_id} is at {problem.content_hash} here, the job was made for {package_hash}"
            )
        with self._lock:
            lock = self._locks.setdefault(problem_id, threading.Lock())
        with lock:
            if problem_id not in self._done:
                work = self.workdir / problem_id
                work.mkdir(parents=True, exist_ok=True)
                try:
                    self._done[problem_id] = prepare(problem, self._env, work)
                except Exception as exc:  # noqa: BLE001 - a judge failure: every submission gets JE
                    self._done[problem_id] = Prepared(problem, None, f"preparing the problem failed: {exc}")
            return self._done[problem_id]

    def close(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)
