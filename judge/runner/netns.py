"""One empty network namespace per uid slot, made once and reused.

Making a network namespace costs about a millisecond per run; joining an existing
one is nearly free. A slot's namespace holds nothing but a loopback interface that
is down (the program has no capability to bring it up), and only one run uses a
slot at a time, so nothing can be reached through it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def make_netns(helper: Path) -> int:
    """An fd referring to a fresh, empty network namespace (close-on-exec)."""
    proc = subprocess.Popen([str(helper), "-N"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        line = proc.stdout.readline().decode(errors="replace").strip()
        if line != "ok":
            raise OSError(f"cannot make a network namespace: {line or 'no answer'}")
        return os.open(f"/proc/{proc.pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()


def is_netns(fd: int) -> bool:
    """Whether ``fd`` (still) refers to a network namespace."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}").startswith("net:")
    except OSError:
        return False
