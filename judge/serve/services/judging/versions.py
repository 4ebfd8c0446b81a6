"""A problem's package versions while the contest runs (issue 33, docs/live-fuzzing.md).

Version 1 of a problem is the package the server was started with (the contest directory's, never written
by the server). Every later version is a copy under the server's data directory (beside the database:
``<data>/packages/<problem>/v<N>/<problem>/``, owner-only), made by "add as test" or a package upload,
stored in ``problem_versions``. One version per problem is *current*: new submissions and rejudges are
judged against it, and a restarted server loads it from there (``restore``).

``CurrentPackages`` holds the current version of each problem that changed, thread-safe; swapping one is
explicit (``set``), done by applying a preview (previews.py) inside the transaction that makes it current,
so a rejudge queued by that transaction can only be claimed after the swap. Every version is also
``register``ed with the judge (``VersionTools``: judging.prepared.Packages.add on this machine), so that a
job names any version by its hash.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from judge.judging.environment import Environment
from judge.judging.prepared import Packages
from judge.package.problem import PackageError, Problem, load_problem
from judge.serve.model.contest import Contest, ContestProblem
from judge.serve.storage import Reader

PACKAGES_DIR = "packages"


class NewTestRefused(Exception):
    """A new test's input is refused (an input validator's message), or no answer can be made for it."""


@dataclass(frozen=True)
class VersionTools:
    """What the server needs from the judging side to make package versions (built at the edge)."""

    register: Callable[[Problem], None]  # a version jobs may name by its hash from now on
    make_answer: Callable[[Problem, bytes], bytes]  # a new test's .ans; raises NewTestRefused (validators first)


def _no_answer(problem: Problem, test_input: bytes) -> bytes:
    raise NewTestRefused("this server makes no test answers (it judges on a cluster, or was started without a sandbox)")


NO_TOOLS = VersionTools(register=lambda problem: None, make_answer=_no_answer)


def local_tools(packages: Packages, env: Environment) -> VersionTools:
    """This machine's: versions go to ``packages``; a new test's input is checked by the package's input
    validators (in ``env``'s sandbox) and its answer is fuzz.py's ``answer`` (the reference's)."""
    from judge.fuzz.hooks import load_hooks
    from judge.fuzz.trial import HookError, input_validators

    def make_answer(problem: Problem, test_input: bytes) -> bytes:
        try:
            hooks = load_hooks(problem)
        except PackageError as exc:
            raise NewTestRefused(str(exc)) from None
        if hooks is None:
            raise NewTestRefused(f"{problem.id} has no fuzz.py: no reference answer can be made")
        with tempfile.TemporaryDirectory(prefix="judge-newtest-") as tmp:
            try:
                validators = input_validators(problem, env, Path(tmp))
            except HookError as exc:
                raise NewTestRefused(str(exc)) from None
            for v in validators:
                reason = v.check(test_input, env.runner, Path(tmp))
                if reason is not None:
                    raise NewTestRefused(f"the input validator refuses the input: {reason}")
        try:
            answer = hooks.answer(test_input)
        except Exception as exc:  # noqa: BLE001 - the package's code: one line
            raise NewTestRefused(f"fuzz.py answer() failed: {type(exc).__name__}: {exc}") from None
        return answer.encode() if isinstance(answer, str) else bytes(answer)

    return VersionTools(register=packages.add, make_answer=make_answer)


class CurrentPackages:
    """The current version of every problem whose package changed while serving (the others: version 1, as
    loaded). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed: dict[str, tuple[int, Problem]] = {}
        self.generation = 0  # bumped by every ``set``: a contest made before is out of date
        # (problem, version) made current by another process whose folder cannot be read here (reload_versions)
        self.unreadable: set[tuple[str, int]] = set()

    def set(self, problem: Problem, version: int) -> None:
        with self._lock:
            self._changed[problem.id] = (version, problem)
            self.generation += 1

    def version(self, problem_id: str) -> int:
        with self._lock:
            return self._changed.get(problem_id, (1, None))[0]

    def problem(self, contest: Contest, problem_id: str) -> ContestProblem | None:
        """``contest``'s problem with its current package (None: no such problem)."""
        cp = contest.problem(problem_id)
        with self._lock:
            changed = self._changed.get(problem_id)
        return cp if cp is None or changed is None else replace(cp, problem=changed[1])

    def of(self, contest: Contest) -> Contest:
        """``contest`` with each problem's current package."""
        with self._lock:
            changed = dict(self._changed)
        if not changed:
            return contest
        problems = tuple(replace(p, problem=changed[p.id][1]) if p.id in changed else p for p in contest.problems)
        return replace(contest, problems=problems)


def packages_root(server_storage_path: Path) -> Path:
    """``<data>/packages``: the versions' files, beside the database (owner-only)."""
    return server_storage_path.parent / PACKAGES_DIR


def version_path_of(root: Path, problem_id: str) -> str:
    """Where a new version's package goes, with ``{version}`` for its number."""
    return str(root / problem_id / "v{version}" / problem_id)


def owner_only_dir(path: Path) -> None:
    """``path`` and every folder made on the way to it: owner-only."""
    for folder in (*reversed(path.parents), path):
        if not folder.exists():
            folder.mkdir(mode=0o700)
            os.chmod(folder, 0o700)  # whatever the umask
    os.chmod(path, 0o700)


def copy_package(source: Path, dest: Path) -> None:
    """A copy of the package folder ``source`` at ``dest`` (its parents owner-only)."""
    owner_only_dir(dest.parent)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(source, dest, symlinks=True)


def remove_version(path: Path) -> None:
    """A discarded version's files (the ``v<N>`` folder)."""
    shutil.rmtree(path.parent, ignore_errors=True)


def restore(r: Reader, contest: Contest, current: CurrentPackages, tools: VersionTools) -> list[str]:
    """At start: every problem's current version from the data directory; returns what to say (a version
    that cannot be read: a WARNING, and the problem is judged against the contest directory's package)."""
    lines = []
    for v in r.problem_versions():
        if v.state != "current" or contest.problem(v.problem_id) is None:
            continue
        try:
            problem = load_problem(Path(v.path))
        except PackageError as exc:
            lines.append(f"WARNING: package {v.problem_id} version {v.version} cannot be read ({exc}): using version 1")
            continue
        tools.register(problem)
        current.set(problem, v.version)
        lines.append(f"package {v.problem_id}: version {v.version}, from {v.path} (made while serving: {v.reason})")
    return lines


def reload_versions(r: Reader, contest: Contest, current: CurrentPackages, tools: VersionTools) -> list[str]:
    """The versions another process on the database made current since (issue 51, ``--shared``: when it
    commits), read from their folders as at the start (``restore``); what to say. A version's folder is on
    the disk of the machine that made it: processes on one machine share it, another machine's process says
    it cannot read it and goes on judging against the version it has (docs/serve.md)."""
    lines = []
    for v in r.problem_versions():
        if v.state != "current" or contest.problem(v.problem_id) is None or current.version(v.problem_id) >= v.version:
            continue
        if (v.problem_id, v.version) in current.unreadable:
            continue  # said once
        try:
            problem = load_problem(Path(v.path))
        except PackageError as exc:
            current.unreadable.add((v.problem_id, v.version))
            lines.append(
                f"WARNING: package {v.problem_id} version {v.version}, made by another process, cannot be read "
                f"here ({exc}): still judged against version {current.version(v.problem_id)}"
            )
            continue
        tools.register(problem)
        current.set(problem, v.version)
        lines.append(f"package {v.problem_id}: version {v.version}, made by another process, in force here")
    return lines
