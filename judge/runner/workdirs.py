"""The judge's own temporary folders: each held (``flock``ed) by the process that made it for as long as it
exists, and those of judges that are gone swept when a judge starts (docs/sandbox.md, "Folders left behind").

A judge killed mid-judgement (SIGKILL, the OOM killer, a worker's power cut) never runs its ``finally``: its
submission's work folder and its scratch folder (on /dev/shm: memory, until a reboot) stay. The next judge
that starts on the machine (``make_runner`` with ``RunnerConfig.sweep_dirs``, set at the edge) removes them.
A folder is a judge's when its name is one of ``PREFIXES``, eight of ``mkdtemp``'s random characters and
``MARK`` (a folder of a judge older than this scheme holds no lock: it is never touched), it is a folder (not
a symbolic link) directly in the swept folder, and this uid owns it. Its owner is alive when the ``flock`` on
the folder is held: the lock belongs to the open folder, not to a pid, so it is right across PID namespaces
(a judge in a container sharing /tmp or /dev/shm) and against reused pids, and the kernel lets go of it when
its owner dies however it dies. Between ``mkdtemp`` and ``flock`` a folder is not locked yet: one modified
(``st_mtime``) less than ``GRACE_S`` ago is left alone.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

PREFIXES = ("judge-", "judge-packages-", "judge-fuzz-", "judge-verify-", "judge-job-")
MARK = ".held"
GRACE_S = 60.0
_NAME = re.compile(f"(?:{'|'.join(re.escape(p) for p in PREFIXES)})[a-z0-9_]{{8}}{re.escape(MARK)}")
_OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW  # and non-inheritable (PEP 446): no child keeps the lock

log = logging.getLogger(__name__)


class HeldDir:
    """A new folder (``mkdtemp`` in ``parent``, the system's temporary folder by default), locked by this process
    until ``remove()`` (or the process's end); a context manager giving its path."""

    def __init__(self, prefix: str, parent: Path | None = None) -> None:
        if prefix not in PREFIXES:
            raise ValueError(f"not a prefix of the judge's folders: {prefix!r}")
        self.path = Path(tempfile.mkdtemp(prefix=prefix, suffix=MARK, dir=parent))
        self._fd = -1
        try:
            self._fd = os.open(self.path, _OPEN)
            fcntl.flock(self._fd, fcntl.LOCK_EX)  # only a sweep testing a stale folder holds it, for a moment
        except OSError:
            self.remove()
            raise

    def remove(self) -> None:
        """The folder and all in it gone (errors ignored), then its lock let go."""
        shutil.rmtree(self.path, ignore_errors=True)
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *exc: object) -> None:
        self.remove()


def held_or_given(prefix: str, given: Path | None) -> AbstractContextManager[Path]:
    """``given`` as it is (the caller's folder: not removed), or a new ``HeldDir`` removed at the end."""
    return nullcontext(given) if given is not None else HeldDir(prefix)


def is_judge_folder_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None


def sweep_stale(folders: Iterable[Path], *, grace_s: float = GRACE_S) -> tuple[Path, ...]:
    """Remove the judge's folders directly in each of ``folders`` whose owner is gone (the module's docstring);
    the ones removed. Never raises: a folder that cannot be read or removed is a line in the log."""
    uid, cutoff = os.geteuid(), time.time() - grace_s
    removed = []
    for folder in dict.fromkeys(folders):
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            log.warning("judge: cannot look for stale folders in %s: %s", folder, exc.strerror)
            continue
        for name in filter(is_judge_folder_name, names):
            path = folder / name
            try:
                if _remove_if_stale(path, uid, cutoff):
                    removed.append(path)
            except OSError as exc:
                log.warning("judge: cannot remove the stale folder %s: %s", path, exc.strerror or exc)
    if removed:
        log.info("judge: removed %d folder(s) of judges that are gone", len(removed))
    return tuple(removed)


def _remove_if_stale(path: Path, uid: int, cutoff: float) -> bool:
    try:
        st = os.lstat(path)
    except FileNotFoundError:  # its owner removed it meanwhile
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mtime > cutoff:
        return False
    try:
        fd = os.open(path, _OPEN)
    except FileNotFoundError:
        return False
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):  # not the folder looked at
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # its owner is alive (or another judge's sweep is removing it)
            return False
        try:
            again = os.lstat(path)
        except FileNotFoundError:  # another judge starting at the same time removed it first
            return False
        if (again.st_dev, again.st_ino) != (st.st_dev, st.st_ino):
            return False
        shutil.rmtree(path)  # never follows a symbolic link inside (rmtree.avoids_symlink_attacks on Linux)
        return True
    finally:
        os.close(fd)
