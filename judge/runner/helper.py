"""Build (once) and locate the C launcher ``judge-helper`` (sources: ``helper.c``, ``boxserver.c``).

The binary is cached in the runner's cache folder (``RunnerConfig.cache_dir``), named
after a hash of the source, built with ``gcc -static`` (dynamic if static linking
is not possible). Building is atomic (temp file + rename) and serialized with a
file lock, so parallel judges may race for it safely.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("helper.c")
SOURCES = (SOURCE, SOURCE.with_name("boxserver.c"), SOURCE.with_name("helper.h"))


class HelperUnavailable(RuntimeError):
    """The launcher cannot be built here (no C compiler)."""


def _build(target: Path) -> None:
    cc = shutil.which("gcc") or shutil.which("cc") or shutil.which("clang")
    if cc is None:
        raise HelperUnavailable("no C compiler (gcc) to build the runner's launcher; install gcc")
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    errors = []
    for extra in (["-static"], []):
        proc = subprocess.run(
            [cc, "-O2", *extra, "-o", str(tmp), *(str(s) for s in SOURCES if s.suffix == ".c")],
            capture_output=True,
            text=True,
        )
        if proc.returncode == 0:
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
            return
        errors.append(proc.stderr.strip()[-500:])
    raise HelperUnavailable("cannot build the runner's launcher: " + " | ".join(errors))


def helper_path(directory: Path) -> Path:
    """The launcher binary in the cache ``directory``, building it there on first use.
    Raises HelperUnavailable."""
    digest = hashlib.sha256(b"".join(s.read_bytes() for s in SOURCES)).hexdigest()[:16]
    target = directory / f"judge-helper-{digest}"
    try:
        if not target.exists():
            directory.mkdir(parents=True, exist_ok=True)
            with open(directory / ".build.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not target.exists():
                    _build(target)
    except OSError as exc:
        raise HelperUnavailable(f"cannot build the runner's launcher in {directory}: {exc}") from exc
    return target
