"""Detached bind mounts (``open_tree(OPEN_TREE_CLONE)``) that another mount namespace can attach.

The box server lives in its own, minimal mount namespace (no host tree at all), so it
cannot bind a box directory by path. The judge, in the host's namespace, clones the
box (and each extra mount) into a detached mount and passes the fd; the run's pid 1
attaches it with ``move_mount``. Linux >= 5.2 (``mount_setattr``, used there: 5.12).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

SYS_OPEN_TREE = 428  # same number on every architecture with the unified syscall table
OPEN_TREE_CLONE = 1
AT_RECURSIVE = 0x8000
AT_FDCWD = -100

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def detached_mount(path: Path) -> int:
    """A close-on-exec fd of a detached recursive bind mount of ``path``. Raises OSError."""
    flags = OPEN_TREE_CLONE | os.O_CLOEXEC | AT_RECURSIVE
    fd = _syscall(ctypes.c_long(SYS_OPEN_TREE), ctypes.c_long(AT_FDCWD), os.fsencode(path), ctypes.c_long(flags))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(path))
    return int(fd)
