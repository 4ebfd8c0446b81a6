"""Small OS helpers of the runner: waiting, signalling, file modes, temporary files."""

from __future__ import annotations

import os
import select
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import psutil


def chown_tree(root: Path, uid: int, gid: int) -> None:
    os.chown(root, uid, gid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            try:
                os.chown(os.path.join(dirpath, name), uid, gid, follow_symlinks=False)
            except OSError:
                pass


def seal_tree(root: Path) -> None:
    """Make ``root`` read-only for the sandbox uid: owned by the judge, readable by others (and
    executable where its owner could execute it), writable by nobody else."""
    uid, gid = os.geteuid(), os.getegid()
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [None, *dirnames, *filenames]:
            path = dirpath if name is None else os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
                if stat.S_ISLNK(st.st_mode):
                    continue
                if (st.st_uid, st.st_gid) != (uid, gid):  # a box sealed before (the runs' shared one) is left as it is
                    os.chown(path, uid, gid, follow_symlinks=False)
                mode = stat.S_IMODE(st.st_mode) & ~(stat.S_IWGRP | stat.S_IWOTH)
                if stat.S_ISDIR(st.st_mode) or mode & stat.S_IXUSR:
                    mode |= stat.S_IRUSR | stat.S_IXUSR | stat.S_IROTH | stat.S_IXOTH | stat.S_IRGRP | stat.S_IXGRP
                else:
                    mode |= stat.S_IRUSR | stat.S_IROTH | stat.S_IRGRP
                if mode != stat.S_IMODE(st.st_mode) or (st.st_uid, st.st_gid) != (uid, gid):
                    os.chmod(path, mode)
            except OSError:
                pass


def readable(fd: int, timeout_s: float) -> bool:
    """Whether ``fd`` is readable (or at its end) within ``timeout_s``. ``poll``, not ``select``: a server
    with 500 open feeds has descriptors above select's 1024 (FD_SETSIZE), and select refuses them."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(max(0.0, timeout_s) * 1000))


def wait_process(proc: subprocess.Popen[bytes], timeout: float) -> int:
    """Wait for a process without Popen.wait's sleep-polling (a pidfd wakes us at once)."""
    if proc.returncode is None:
        try:
            pidfd = os.pidfd_open(proc.pid)
        except OSError:
            pidfd = -1
        if pidfd >= 0:
            try:
                if not readable(pidfd, timeout):
                    proc.kill()
            finally:
                os.close(pidfd)
        else:
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
    return proc.wait()


def anonymous_file() -> int:
    try:
        return os.open(tempfile.gettempdir(), os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o600)
    except OSError:
        fd, name = tempfile.mkstemp()
        os.unlink(name)
        return fd


def let_others_traverse(box: Path) -> None:
    """rlimits backend: programs open their files by absolute path (Python does), so the box's
    parents (e.g. a 0700 mkdtemp directory) must be traversable by the sandbox uid: add o+x."""
    for d in Path(os.path.abspath(box)).parents:
        try:
            mode = os.stat(d).st_mode
            if not mode & stat.S_IXOTH:
                os.chmod(d, stat.S_IMODE(mode) | stat.S_IXOTH)
        except OSError:
            pass


def not_world_accessible(path: Path) -> Path | None:
    """The first directory on the way to ``path`` that others may not enter (None: all fine)."""
    p = Path(os.path.abspath(path))
    for d in [*reversed(p.parents), p]:
        try:
            st = os.stat(d)
        except OSError:
            return d
        if stat.S_ISDIR(st.st_mode) and not st.st_mode & stat.S_IXOTH:
            return d
    return None


def send_signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def sweep_uid(uid: int) -> int:
    """SIGKILL every process of this uid until none is left (the slot's uid is exclusively ours)."""
    killed = 0
    for _ in range(100):
        found = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
        if not found:
            return killed
        for p in found:
            try:
                p.kill()
                killed += 1
            except psutil.Error:
                pass
        time.sleep(0.002)
    return killed


def read_all(fd: int, timeout: float) -> bytes:
    out = b""
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return out
        if not readable(fd, left):
            return out
        chunk = os.read(fd, 65536)
        if not chunk:
            return out
        out += chunk


def rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _schedstats(pids: set[int]) -> list[tuple[int, int]]:
    """(ns on a CPU, ns waiting, runnable, for one) of every live thread of these processes
    (``/proc/*/task/*/schedstat``); threads that have already ended are gone, as is everything where
    schedstat is missing."""
    out: list[tuple[int, int]] = []
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    fields = f.read().split()
                out.append((int(fields[0]), int(fields[1])))
            except (OSError, ValueError, IndexError):
                pass
    return out


def run_queue_wait_s(pids: set[int]) -> float:
    """The longest time any thread of these processes has waited, runnable, for a CPU (``/proc/*/schedstat``).

    Elapsed time minus this is the time every thread could have run. Threads that have already ended are
    not counted (their figures are gone); 0 where schedstat is missing.
    """
    return max((waited for _, waited in _schedstats(pids)), default=0) / 1e9


def tree_pids(pid: int) -> set[int]:
    """``pid`` and its descendants that are alive (``/proc/*/task/*/children``; cheap, unlike a scan of every
    process)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        if p in found:
            continue
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        found.add(p)
        for tid in tids:
            try:
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except (OSError, ValueError):
                pass
    return found


def busy_total_s(pids: set[int]) -> float:
    """The time all live threads of these processes have spent on a CPU and waiting, runnable, for one."""
    return sum(ran + waited for ran, waited in _schedstats(pids)) / 1e9


def thread_run_queue_wait_s(tid: int) -> float:
    """The time one of the judge's own threads has waited, runnable, for a CPU (0 when the thread is gone or
    schedstat is missing)."""
    try:
        with open(f"/proc/self/task/{tid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0
