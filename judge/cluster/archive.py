"""A problem package as bytes that can travel to a cluster worker, and its unpacking into the worker's
cache, keyed by the package's content hash (no shared file system is assumed).

The archive holds what judging reads: the package's files that can change a verdict (packagedeps:
problem.yaml, data/, validators, include/, ...; not its statement, submissions or generators), plus the
modules outside the package that its Python programs import from the coordinator's project (the
``reference`` package), each copied beside the programs that import it. A Python program's own folder
comes first on its ``sys.path``, so on the worker ``from reference import x`` finds exactly the bytes the
package hash covers, whatever ``reference`` the worker has installed (this is how ``judge export`` makes a
package portable, too). Third-party libraries (numpy, ...) are not shipped: the worker has its own.
"""

from __future__ import annotations

import compileall
import gzip
import hashlib
import io
import os
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from judge.package.deps import ExternalModule, external_modules, is_verdict_file, program_sources, verdict_files
from judge.package.problem import Problem, load_problem

COMPLETE = ".complete"  # written last into an unpacked package: the folder is whole


class ArchiveError(Exception):
    """An archive that does not unpack (damaged, or not what it says it is)."""


@dataclass(frozen=True)
class PackageArchive:
    problem: str  # the problem's id
    content_hash: str  # Problem.content_hash on the coordinator: which version of the package
    digest: str  # SHA-256 of ``data``
    data: bytes  # a gzipped tar of the package folder's files, paths relative to the folder

    @property
    def name(self) -> str:
        """The cache folder's name."""
        return f"{self.problem}-{self.content_hash}"


def pack(problem: Problem) -> PackageArchive:
    """The archive of ``problem``'s package as it is on disk now."""
    root = problem.path
    files: dict[PurePosixPath, Path] = {PurePosixPath(p.relative_to(root).as_posix()): p for p in verdict_files(root)}
    for source in program_sources(root):
        rel = source.relative_to(root)
        if not is_verdict_file(rel):
            continue
        for module in external_modules([source], root):
            target = _module_file(module)
            if target is None or module.path is None:
                continue
            dest = PurePosixPath(rel.parent.as_posix()) / target
            files.setdefault(dest, module.path)  # a file of the package's own wins
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for dest in sorted(files):
            path = files[dest]
            data = path.read_bytes()
            info = tarfile.TarInfo(str(dest))
            info.size = len(data)
            info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
            tar.addfile(info, io.BytesIO(data))
    data = gzip.compress(buffer.getvalue(), mtime=0)
    return PackageArchive(problem.id, problem.content_hash, hashlib.sha256(data).hexdigest(), data)


def _module_file(module: ExternalModule) -> PurePosixPath | None:
    """Where a module of the project goes beside a program that imports it (None: not shipped)."""
    if module.kind != "local" or module.path is None:
        return None
    parts = module.name.split(".")
    if module.is_package:
        return PurePosixPath(*parts, "__init__.py")
    return PurePosixPath(*parts[:-1], module.path.name)


def precompile(folder: Path) -> None:
    """Byte-compile the package's Python modules once, as they are unpacked: its Python programs run with
    PYTHONDONTWRITEBYTECODE (languages.toml), so a module they import (a validator's ``reference``) would
    otherwise be compiled again on every test. A module that does not compile is left to fail where it is
    run, as it would without this."""
    data = re.compile(re.escape(str(folder / "data")) + r"[/\\]")  # test data is not code
    compileall.compile_dir(str(folder), quiet=2, rx=data, workers=1)


def cached(cache: Path, problem: str, content_hash: str) -> Path | None:
    """The package folder of that version of ``problem`` if it was unpacked into ``cache`` before."""
    folder = cache / f"{problem}-{content_hash}"
    return folder / problem if (folder / COMPLETE).is_file() else None


def unpack(archive: PackageArchive, cache: Path) -> Path:
    """The package folder of ``archive`` in ``cache`` (``cache/<id>-<hash>/<id>``), unpacked on first use;
    several processes may share ``cache``. Raises ArchiveError."""
    found = cached(cache, archive.problem, archive.content_hash)
    if found is not None:
        return found
    folder = cache / archive.name
    if hashlib.sha256(archive.data).hexdigest() != archive.digest:
        raise ArchiveError(f"package {archive.problem}: the archive is damaged (its SHA-256 differs)")
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{archive.name}-", dir=cache))
    try:
        try:
            with tarfile.open(fileobj=io.BytesIO(gzip.decompress(archive.data)), mode="r:") as tar:
                tar.extractall(tmp / archive.problem, filter="data")
        except (OSError, EOFError, tarfile.TarError) as exc:
            raise ArchiveError(f"package {archive.problem}: the archive does not unpack: {exc}") from None
        precompile(tmp / archive.problem)
        tmp.chmod(0o755)
        (tmp / COMPLETE).write_text(archive.digest + "\n")
        try:
            tmp.rename(folder)
        except OSError:
            if not (folder / COMPLETE).is_file():  # not another process that was quicker
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder / archive.problem


def load_unpacked(folder: Path, problem_id: str, content_hash: str) -> Problem:
    """The problem unpacked in ``folder``. Its content hash is the one the coordinator keyed the archive with
    (the copy here holds the project's modules inside the package, so a hash worked out here would differ).
    Raises ArchiveError, problem.PackageError."""
    problem = load_problem(folder)
    if problem.id != problem_id:
        raise ArchiveError(f"the archive of package {problem_id} holds package {problem.id}")
    return replace(problem, content_hash=content_hash)
