"""Problem packages by id and content hash, each prepared (its output validator built) once, on first use.

A ``JudgeJob`` names its problem by id and package hash; ``Packages`` resolves that on the machine that
judges it. Here the packages are the ones loaded from disk; a package that changed on disk since the job
was made is refused (``PackageMismatch``: a JE, judged again) rather than judged against other tests.
A server that makes new versions of a package while it runs (`judge serve`'s rejudge previews, issue 33)
``add``s each: jobs then name any of the versions by hash, and ``problem(id)`` is the newest added.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from judge.judging.environment import Environment
from judge.judging.submission import Prepared, prepare
from judge.package.problem import Problem
from judge.runner.workdirs import HeldDir


class PackageMismatch(Exception):
    """The job was made for another version of the package than the one here."""


class Packages:
    """Thread-safe; ``close()`` removes the built validators."""

    def __init__(self, problems: Mapping[str, Problem], env: Environment) -> None:
        self._problems = dict(problems)
        self._versions = {(p.id, p.content_hash): p for p in problems.values()}
        self._initial = {p.id: p.content_hash for p in problems.values()}  # prepared in workdir/<id>
        self._env = env
        self._held = HeldDir("judge-packages-")  # removed by a judge started after this one died (workdirs.py)
        self.workdir = self._held.path
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._done: dict[tuple[str, str], Prepared] = {}

    def __enter__(self) -> Packages:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def of(cls, prepared: Prepared, env: Environment) -> Packages:
        """Packages holding one problem, already prepared."""
        packages = cls({prepared.problem.id: prepared.problem}, env)
        packages._done[(prepared.problem.id, prepared.problem.content_hash)] = prepared
        return packages

    def problem(self, problem_id: str) -> Problem:
        with self._lock:
            return self._problems[problem_id]

    def add(self, problem: Problem) -> None:
        """Another version of a problem: jobs may name it by its hash, and it is ``problem(id)`` from now on."""
        with self._lock:
            self._versions[(problem.id, problem.content_hash)] = problem
            self._problems[problem.id] = problem

    def prepared(self, problem_id: str, package_hash: str) -> Prepared:
        """The problem with its validator built. Raises KeyError (unknown id), PackageMismatch."""
        key = (problem_id, package_hash)
        with self._lock:
            current = self._problems[problem_id]
            problem = self._versions.get(key)
            lock = self._locks.setdefault(problem_id, threading.Lock())
        if problem is None:
            raise PackageMismatch(
                f"package {problem_id} is at {current.content_hash} here, the job was made for {package_hash}"
            )
        with lock:
            if key not in self._done:
                initial = package_hash == self._initial.get(problem_id)
                work = self.workdir / (problem_id if initial else f"{problem_id}-{package_hash}")
                work.mkdir(parents=True, exist_ok=True)
                try:
                    self._done[key] = prepare(problem, self._env, work)
                except Exception as exc:  # noqa: BLE001 - a judge failure: every submission gets JE
                    self._done[key] = Prepared(problem, None, f"preparing the problem failed: {exc}")
            return self._done[key]

    def close(self) -> None:
        self._held.remove()
