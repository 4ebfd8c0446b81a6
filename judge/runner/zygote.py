"""A per-slot fork server (``judge-helper -Z``) that lives inside the slot's cgroups.

Moving a new process into a cgroup v1 group waits for an RCU grace period (a few
milliseconds on a busy machine, per run). The fork server pays that once: it joins
the slot's cgroups (and its empty network namespace) when it starts, and every
process it forks starts there. It also spares the judge a ``fork`` of its own (big)
address space per run. Requests go over a SOCK_SEQPACKET socket with the fds
attached (SCM_RIGHTS); when the child ends the server writes ``zexit <status>`` to
the run's status pipe. It exits when the judge's end of the socket closes.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

MAX_REQUEST = 60_000  # bytes; the server's buffer is 64 KiB (bigger requests go the slow way)


def fits(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether a request for this command line and environment fits in one message."""
    size = sum(len(a.encode()) + 1 for a in argv) + sum(len(k) + len(v) + 2 for k, v in env.items())
    return size + 4096 < MAX_REQUEST


class ZygoteError(OSError):
    """The fork server is gone or refused the request."""


class Zygote:
    MODE = "-Z"

    def __init__(self, helper: Path, cgroup_procs: Sequence[Path], netns_fd: int = -1, extra: Sequence[str] = ()):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [str(helper), self.MODE, str(theirs.fileno()), *extra]
        for p in cgroup_procs:
            argv += ["-c", str(p)]
        fds = [theirs.fileno()]
        if netns_fd >= 0:
            argv += ["-n", str(netns_fd)]
            fds.append(netns_fd)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=tuple(fds),
                close_fds=True,
            )
        finally:
            theirs.close()
        self.sock = ours
        self.pid = self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def spawn(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path | None, fds: Sequence[tuple[int, int]]
    ) -> int:
        """Fork + exec ``argv``; ``fds`` are (fd here, fd number in the child); the first is
        the status pipe. Returns the child's pid (not our child: wait for it via the pipe)."""
        self.request(argv, env, cwd, fds)
        return self.reply()

    def request(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path | None, fds: Sequence[tuple[int, int]]
    ) -> None:
        """The first half of ``spawn``: send the request (``reply`` must follow)."""
        strings = [str(cwd) if cwd is not None else "", *argv, "", *(f"{k}={v}" for k, v in env.items()), ""]
        data = struct.pack(f"<I{len(fds)}i", len(fds), *(t for _, t in fds))
        data += b"".join(s.encode() + b"\0" for s in strings)
        try:
            socket.send_fds(self.sock, [data], [f for f, _ in fds])
        except OSError as exc:
            raise ZygoteError(f"fork server: {exc}{self._ended()}") from exc

    def reply(self) -> int:
        """The second half of ``spawn``: the child's pid."""
        try:
            reply = self.sock.recv(512)
        except OSError as exc:
            raise ZygoteError(f"fork server: {exc}{self._ended()}") from exc
        if len(reply) != 4:
            raise ZygoteError(f"fork server is gone{self._ended(reply)}")
        (pid,) = struct.unpack("<i", reply)
        if pid < 0:
            raise ZygoteError(f"fork server: {os.strerror(-pid)}")
        return pid

    def _ended(self, told: bytes = b"") -> str:
        """How the server ended, for an error message (it is ending when its socket fails); ``told``:
        what it sent instead of a reply."""
        try:
            status = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return " (it is still running)"
        why = ""
        try:  # a server that could not set itself up says why before it exits (helper.c, z_fail)
            told = told or self.sock.recv(512, socket.MSG_DONTWAIT)
        except OSError:
            pass
        if told.startswith(b"error "):
            why = f": {told[6:].decode(errors='replace')}"
        ended = f"it exited with status {status}" if status >= 0 else f"it was killed by signal {-status}"
        return f" ({ended}{why})"

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class BoxServer(Zygote):
    """The fast sandbox (``judge-helper -B``, see boxserver.c): one per slot, set up once, then
    per run a child in fresh mount/PID/IPC namespaces with a fresh root, /tmp, /proc and box.
    Requests: ``[-x BOXFD] [-m FD:ro|rw:TARGET]... [-t TMP_BYTES] -- LAUNCHER-ARGS``; the fds
    are detached mounts (mountfd.py). Raises ZygoteError if it cannot set itself up here."""

    MODE = "-B"

    def __init__(self, helper: Path, cgroup_procs: Sequence[Path], netns_fd: int, layout: Sequence[str]):
        super().__init__(helper, cgroup_procs, netns_fd, layout)
        self.sock.settimeout(30)
        try:
            answer = self.sock.recv(1024)
        except OSError as exc:
            answer = f"error {exc}".encode()
        finally:
            self.sock.settimeout(None)
        if answer != b"ok":
            self.close()
            text = answer.decode(errors="replace") or f"exited with status {self.proc.poll()}"
            raise ZygoteError(f"box server: {text}")

    def sync(self) -> None:
        """Wait until the previous run's pid 1 is reaped (it counts in the slot's pids cgroup)."""
        try:
            self.sock.send(struct.pack("<I", 0))
        except OSError as exc:
            raise ZygoteError(f"box server: {exc}") from exc
        self.reply()
