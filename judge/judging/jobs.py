"""A submission to judge as a value that can travel (``JudgeJob``), and the one way to judge it (``judge_job``).

`judge run`, `judge verify`, `judge grade` and fuzzing all make a ``JudgeJob`` and call ``judge_job``; so will
cluster workers and the contest server. A job holds the submission's bytes (not a path: the contestant may
edit the file meanwhile, and another machine has no such path), the language id, and the problem by id and
package hash (the machine judging it resolves that to a package of exactly that content, see packages.py).
It is frozen and picklable.
"""

from __future__ import annotations

import hashlib
import os
import stat
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from judge.judging.build import RefusedByProblem, SkipLanguage
from judge.judging.environment import Environment
from judge.judging.prepared import PackageMismatch, Packages
from judge.judging.results import CaseResult, SubmissionResult
from judge.judging.submission import JudgeOptions, judge_submission, unjudged
from judge.judging.verdict import Verdict
from judge.package.problem import Problem
from judge.runner.workdirs import HeldDir

MAX_SOURCE_BYTES = 1024 * 1024  # a bigger "source file" is reported, not judged
MAX_FOLDER_FILES = 64


class Unreadable(Exception):
    """A submission's bytes cannot be read (or it is not a regular file, or it points elsewhere)."""


@dataclass(frozen=True)
class SourceFile:
    name: str
    data: bytes


@dataclass(frozen=True)
class JudgeJob:
    problem: str  # the problem's id
    package_hash: str  # Problem.content_hash: which version of the package (packages.py)
    language: str  # a language id of languages.toml
    files: tuple[SourceFile, ...]  # the submission: one file, or the files of its folder
    folder: str | None = None  # a folder submission's name (None: a single file)
    label: str = ""  # what results call the source (e.g. "ann/sum.py")
    all_tests: bool = False  # judge tests past where the contest stops too (`judge verify --all-tests`)
    stop_at_failure: bool = False  # stop at the first failed test (a pass-fail contest's lazy judging)
    entry_point: str | None = None  # the file (or class) a folder submission runs (2025-09 ``entrypoint``)
    time_factor: float = 1.0  # the problem's time limit times this (a contest's language factor, DOMjudge's)
    keep_bytes: int = 0  # keep each test's output and stderr, their first this many bytes (issue 47; 0: none)

    def source_hash(self) -> str:
        return source_hash(self.files)

    def stage(self, dest: Path) -> Path:
        """Write the submission into ``dest``; returns what to judge (the file, or the folder)."""
        if self.folder is None:
            (only,) = self.files
            path = dest / only.name
            path.write_bytes(only.data)
            return path
        folder = dest / self.folder
        folder.mkdir()
        for f in self.files:
            (folder / f.name).write_bytes(f.data)
        return folder


def source_hash(files: Sequence[SourceFile]) -> str:
    """Content hash of a submission: its file names and bytes."""
    h = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.name):
        h.update(f.name.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(f.data).digest())
    return h.hexdigest()[:20]


def read_submission(path: Path, within: Path) -> tuple[tuple[SourceFile, ...], str | None]:
    """The files of a submission (a file, or a folder of files) that lies inside ``within``, and the
    folder's name (None for a file). Raises Unreadable."""
    if path.is_dir() and not path.is_symlink():
        files = sorted(p for p in path.iterdir() if not is_hidden(p))
        if not files:
            raise Unreadable("an empty folder")
        if len(files) > MAX_FOLDER_FILES:
            raise Unreadable(f"{len(files)} files: more than {MAX_FOLDER_FILES}")
        # sub-folders are not part of a submission (the build copies files only)
        plain = [f for f in files if not (f.is_dir() and not f.is_symlink())]
        return tuple(SourceFile(f.name, read_source(f, within)) for f in plain), path.name
    if path.is_dir():
        raise Unreadable("a symbolic link to a folder")
    return (SourceFile(path.name, read_source(path, within)),), None


def make_job(
    path: Path,
    problem: Problem,
    language: str,
    *,
    within: Path | None = None,
    label: str = "",
    all_tests: bool = False,
) -> JudgeJob:
    """A job for the submission at ``path`` (read now). Raises Unreadable.

    An example submission of the package (under its ``submissions/``) gets the package's 2025-09 constants
    substituted here: the job holds (and its source hash covers) exactly what is judged."""
    files, folder = read_submission(path, within if within is not None else path.parent)
    if problem.constants and path.resolve().is_relative_to(problem.path / "submissions"):
        files = tuple(SourceFile(f.name, problem.constants.substitute_bytes(f.data, f"{path}")) for f in files)
    return JudgeJob(problem.id, problem.content_hash, language, files, folder, label or str(path), all_tests)


def refusal(job: JudgeJob, problem: Problem, lang_code: str) -> str | None:
    """Why the problem's own rules refuse the submission without judging it (problem.yaml ``languages``, the
    2025-09 ``code`` limit), or None."""
    if not problem.allows(lang_code):
        allowed = ", ".join(sorted(problem.languages or ()))
        return f"refused, not judged: {lang_code} is not a language of problem {problem.id} (languages: {allowed})"
    size = sum(len(f.data) for f in job.files)
    limit = problem.limits.code_bytes
    if limit is not None and size > limit:
        return f"refused, not judged: {size} bytes of source, over problem {problem.id}'s code limit ({limit} bytes)"
    return None


def read_source(path: Path, folder: Path) -> bytes:
    """The bytes of a regular file that lies (after symlinks) inside ``folder``."""
    if path.is_symlink() and not _inside(path, folder):
        raise Unreadable("a symbolic link that leads outside the contestant's folder (or nowhere)")
    try:
        st = os.stat(path)
    except OSError as exc:
        raise Unreadable(f"cannot stat: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise Unreadable("not a regular file")
    if st.st_size > MAX_SOURCE_BYTES:
        raise Unreadable(f"{st.st_size} bytes: larger than {MAX_SOURCE_BYTES} bytes")
    try:
        with open(path, "rb") as f:
            return f.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise Unreadable(f"cannot read: {exc.strerror}") from None


def is_hidden(path: Path) -> bool:
    """Dot files and __pycache__: never part of a submission."""
    return path.name.startswith(".") or path.name == "__pycache__"


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve(strict=True).relative_to(folder.resolve())
    except (OSError, ValueError, RuntimeError):
        return False
    return True


def judge_job(
    job: JudgeJob,
    packages: Packages,
    env: Environment,
    *,
    on_test: Callable[[CaseResult], None] | None = None,
) -> SubmissionResult:
    """Judge one job. Raises build.SkipLanguage for an unknown language or a missing toolchain (a reason,
    not a verdict); the judge's own failures (a bug, a package that changed under the job) are a JE result,
    never an exception."""
    lang = env.languages.get(job.language)
    if lang is None:
        known = ", ".join(sorted(env.languages))
        raise SkipLanguage(f"{job.label}: unknown language {job.language!r}; known: {known}")
    refused = refusal(job, packages.problem(job.problem), lang.code)
    if refused is not None:
        raise RefusedByProblem(refused)
    try:
        prepared = packages.prepared(job.problem, job.package_hash)
    except PackageMismatch as exc:
        return judge_error(packages.problem(job.problem), job, str(exc))
    if job.time_factor != 1.0:
        limits = prepared.problem.limits
        scaled = replace(limits, time_s=limits.time_s * job.time_factor)
        prepared = replace(prepared, problem=replace(prepared.problem, limits=scaled))
    with HeldDir("judge-job-") as tmp:
        try:
            source = job.stage(tmp)
            options = JudgeOptions(
                language=lang,
                all_tests=job.all_tests,
                stop_at_failure=job.stop_at_failure,
                on_test=on_test,
                entry_point=job.entry_point,
                keep_bytes=job.keep_bytes,
            )
            result = judge_submission(prepared, source, env, options=options)
        except SkipLanguage:
            raise
        except Exception as exc:  # noqa: BLE001 - the judge's own bug: a JE, judged again next time
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            return judge_error(prepared.problem, job, f"judge error (not the contestant's fault): {detail}")
    return replace(result, source=job.label)


def judge_error(problem: Problem, job: JudgeJob, message: str) -> SubmissionResult:
    return unjudged(problem, job.label, job.language, Verdict.JE, message)
