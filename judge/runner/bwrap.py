"""The bubblewrap command line for one sandboxed run.

Inside: new PID, network, IPC, UTS and mount namespaces; an empty root with
read-only ``/usr`` and ``/etc`` (``/bin``, ``/lib*``, ``/sbin`` as on the host:
symlinks on merged-usr systems, read-only binds otherwise), a private ``/proc``,
a minimal ``/dev``, a fresh size-capped tmpfs ``/tmp``, the box read-write at
``/box`` (the working directory), the caller's extra mounts, and the launcher at
``/.judge/helper``. bwrap starts as root (so it can bind paths under ``/root``);
the launcher drops to the slot's uid before running the program.
"""

from __future__ import annotations

import os
import shutil
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from judge.runner.spec import Mount

BOX = "/box"
HELPER_INSIDE = "/.judge/helper"
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
TMP_MIN_BYTES = 16 * 1024 * 1024
_SYSTEM_PREFIXES = ("/usr", "/etc", "/proc", "/dev", "/tmp", "/box", *SYSTEM_DIRS)


def find_bwrap(configured: str | None) -> str | None:
    """bubblewrap: the configured path, else ``bwrap`` on PATH."""
    return configured or shutil.which("bwrap")


@dataclass(frozen=True)
class Layout:
    """The system part of every box, worked out once per runner: bwrap's options for the system
    directories and /dev, and the box server's (None when it cannot have one here)."""

    system: tuple[str, ...]
    dev: tuple[str, ...]
    box_server: tuple[str, ...] | None


def layout(helper: Path, *, realtime: bool) -> Layout:
    dev = _dev_args(helper.parent)
    return Layout(tuple(_system_mounts()), tuple(dev), _box_server_layout(helper, dev, realtime=realtime))


def _system_mounts() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--ro-bind", "/etc", "/etc"]
    return args


DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9), "tty": (5, 0)}
LINKS = {"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}


def _dev_args(cache: Path) -> list[str]:
    """A ready-made minimal /dev (six device nodes and the fd links) bound in one mount: about
    0.6 ms of CPU less per run than bwrap's --dev (a tmpfs, six binds and a devpts). Falls back
    to --dev when device nodes cannot be made or used there (not root, a nodev file system)."""
    target = cache / "dev-1"
    try:
        if not target.is_dir():
            tmp = cache / f".dev-{os.getpid()}-{threading.get_ident()}"
            tmp.mkdir(mode=0o755, parents=True)
            for name, (major, minor) in DEVICES.items():
                os.mknod(tmp / name, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
                os.chmod(tmp / name, 0o666)
            for name, dest in LINKS.items():
                os.symlink(dest, tmp / name)
            try:
                os.rename(tmp, target)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)  # another judge made it meanwhile
        with open(target / "null", "w") as f:  # fails on a nodev mount
            f.write("")
        return ["--dev-bind", str(target), "/dev"]
    except OSError:
        return ["--dev", "/dev"]


def _box_server_layout(helper: Path, dev: list[str], *, realtime: bool) -> tuple[str, ...] | None:
    """The box server's options for the system part of the tree (see boxserver.c), or None when it
    cannot have one here (no ready-made /dev: device nodes cannot be made in the cache)."""
    if dev[0] != "--dev-bind":
        return None
    root = helper.parent / "box-root"  # only a mount point (inside the server's own namespace)
    root.mkdir(mode=0o755, exist_ok=True)
    args = ["-R", str(root), "-D", dev[1]]
    if realtime:
        args.append("-P")  # the box server and pid 1 (never the program) run SCHED_FIFO
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["-L", f"{d}:{os.readlink(d)}"]
        elif os.path.isdir(d):
            args += ["-b", d]
    return tuple(args)


@dataclass(frozen=True)
class RunBox:
    """What one run adds to the system part of its box: the box directory (``/box``), the caller's extra
    mounts, whether it keeps the host's network, and its ``/tmp`` size (at least TMP_MIN_BYTES)."""

    box: Path
    mounts: tuple[Mount, ...]
    network: bool
    tmp_bytes: int


def bwrap_argv(bwrap: str, *, system: Layout, helper: Path, run: RunBox, info_fd: int) -> list[str]:
    """bwrap and its options, up to (not including) the command to run inside."""
    args = [
        bwrap,
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--hostname",
        "judge",
        "--die-with-parent",
        "--as-pid-1",
        "--info-fd",
        str(info_fd),
    ]
    if not run.network:
        args.append("--unshare-net")
    args += system.system
    args += ["--proc", "/proc", *system.dev]
    args += ["--perms", "1777", "--size", str(max(run.tmp_bytes, TMP_MIN_BYTES)), "--tmpfs", "/tmp"]
    args += ["--bind", str(run.box), BOX]
    args += _mount_args(run.mounts)
    args += ["--ro-bind", str(helper), HELPER_INSIDE, "--chdir", BOX]
    return args


def _mount_args(mounts: tuple[Mount, ...]) -> list[str]:
    """bwrap's options for the caller's extra mounts."""
    args: list[str] = []
    made: set[str] = set()
    for m in mounts:
        target = str(m.target if m.target is not None else m.source)
        # bwrap would copy the host's modes for missing parents (/root is 0700): make them 0755.
        for parent in reversed(Path(target).parents[:-1]):
            p = str(parent)
            if p not in made and not any(p == s or p.startswith(s + "/") for s in _SYSTEM_PREFIXES):
                made.add(p)
                args += ["--perms", "0755", "--dir", p]
        args += ["--bind" if m.writable else "--ro-bind", str(m.source), target]
    return args
