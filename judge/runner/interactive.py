"""Two programs with crossed pipes: the contestant's program and its peer (the validator).

Without a transcript the two are connected directly (the fastest: no copy through
the judge). With a transcript a proxy thread sits in between: it records the
traffic (``> `` program to peer, ``< `` peer to program, capped at 64 KiB) and
counts the program's output against its output limit.

No hang is possible: the judge keeps no pipe end open, so when one side exits the
other sees EOF (or EPIPE); if both wait for each other, the program's wall limit
ends it and then the peer sees EOF. Pipes are enlarged to 1 MiB (as problemtools).
When the program fails (a limit or a crash), the peer gets PEER_DRAIN_S more to
finish; the program's wall deadline may move on with the machine's load (monitor.py),
and the peer's deadline follows it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import selectors
import threading
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from judge.runner.launch import Launch, Plumbing
from judge.runner.monitor import monitor
from judge.runner.plumbing import error_result, open_io
from judge.runner.spec import InteractiveResult, LimitHit, RunResult, RunSpec


class Starter(Protocol):
    """What of the Runner an interactive run uses (the Runner itself, api.py)."""

    @property
    def can_run(self) -> bool: ...

    @property
    def warnings(self) -> tuple[str, ...]: ...

    def prepare(self, spec: RunSpec, io: Plumbing, stack: ExitStack) -> Launch: ...

    def collect(self, launch: Launch, spec: RunSpec, io: Plumbing, stdout_bytes: int | None = None) -> RunResult: ...


PIPE_BYTES = 1024 * 1024
PEER_DRAIN_S = 2.0  # how long the peer may go on after the program failed
TRANSCRIPT_CAP = 64 * 1024


def _pipe(stack: ExitStack) -> tuple[int, int]:
    r, w = os.pipe2(os.O_CLOEXEC)
    try:
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass
    return r, w


class Transcript:
    """The recorded traffic, line by line, capped."""

    def __init__(self, cap: int = TRANSCRIPT_CAP):
        self.cap = cap
        self.parts: list[bytes] = []
        self.size = 0
        self.truncated = False
        self._partial = {b"> ": b"", b"< ": b""}
        self._lock = threading.Lock()

    def add(self, prefix: bytes, data: bytes) -> None:
        with self._lock:
            buf = self._partial[prefix] + data
            *lines, rest = buf.split(b"\n")
            for line in lines:
                self._emit(prefix + line + b"\n")
            if len(rest) > self.cap:  # a huge line without newline: emit what fits
                self._emit(prefix + rest + b"\n")
                rest = b""
            self._partial[prefix] = rest

    def _emit(self, line: bytes) -> None:
        if self.truncated:
            return
        if self.size + len(line) > self.cap:
            room = self.cap - self.size
            if room > 0:
                self.parts.append(line[:room])
            self.parts.append(b"\n[transcript truncated]\n")
            self.truncated = True
            self.size = self.cap
            return
        self.parts.append(line)
        self.size += len(line)

    def finish(self) -> bytes:
        with self._lock:
            for prefix, rest in self._partial.items():
                if rest:
                    self._emit(prefix + rest + b"\n")
                    self._partial[prefix] = b""
            return b"".join(self.parts)


class Proxy(threading.Thread):
    """Copies program stdout -> peer stdin and peer stdout -> program stdin, recording both."""

    def __init__(
        self, prog_out: int, peer_in: int, peer_out: int, prog_in: int, transcript: Transcript, output_limit: int
    ):
        super().__init__(daemon=True, name="judge-interactive-proxy")
        self.transcript = transcript
        self.output_limit = output_limit
        self.program_bytes = 0
        self.peer_bytes = 0
        self.over_limit = threading.Event()
        self._halt = threading.Event()
        # direction: (read fd, write fd, prefix)
        self._dirs = [[prog_out, peer_in, b"> ", b""], [peer_out, prog_in, b"< ", b""]]
        for fd in (prog_out, peer_in, peer_out, prog_in):
            os.set_blocking(fd, False)

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        try:
            self._loop(sel)
        finally:
            sel.close()
            for d in self._dirs:
                for i in (0, 1):
                    if d[i] >= 0:
                        os.close(d[i])
                        d[i] = -1

    def _loop(self, sel: selectors.BaseSelector) -> None:
        while not self._halt.is_set():
            sel_map = {}
            for idx, (rfd, wfd, _prefix, buf) in enumerate(self._dirs):
                if rfd >= 0 and len(buf) < 4 * PIPE_BYTES:
                    sel_map.setdefault(rfd, [0, []])
                    sel_map[rfd][0] |= selectors.EVENT_READ
                    sel_map[rfd][1].append(("r", idx))
                if wfd >= 0 and buf:
                    sel_map.setdefault(wfd, [0, []])
                    sel_map[wfd][0] |= selectors.EVENT_WRITE
                    sel_map[wfd][1].append(("w", idx))
            if not sel_map:
                return
            for fd, (events, what) in sel_map.items():
                sel.register(fd, events, what)
            ready = sel.select(0.05)
            for fd in list(sel_map):
                sel.unregister(fd)
            for key, _mask in ready:
                for kind, idx in key.data:
                    if kind == "r":
                        self._read(idx)
                    else:
                        self._write(idx)

    def _read(self, idx: int) -> None:
        d = self._dirs[idx]
        try:
            data = os.read(d[0], 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            os.close(d[0])
            d[0] = -1
            if not d[3] and d[1] >= 0:  # EOF and nothing left to pass on: the other side sees EOF
                os.close(d[1])
                d[1] = -1
            return
        if idx == 0:
            self.program_bytes += len(data)
            if self.program_bytes > self.output_limit:
                self.over_limit.set()
        else:
            self.peer_bytes += len(data)
        self.transcript.add(d[2], data)
        if d[1] >= 0:
            d[3] += data

    def _write(self, idx: int) -> None:
        d = self._dirs[idx]
        try:
            n = os.write(d[1], d[3])
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.EBADF):
                raise
            # The reader is gone: drop what it will never read, keep draining the writer.
            os.close(d[1])
            d[1] = -1
            d[3] = b""
            return
        d[3] = d[3][n:]
        if not d[3] and d[0] < 0:
            os.close(d[1])
            d[1] = -1


def run_interactive(runner: Starter, program: RunSpec, peer: RunSpec, transcript: Path | None) -> InteractiveResult:
    with ExitStack() as stack:
        # Pipe ends we still hold are closed as soon as the launchers have them.
        a_r, a_w = _pipe(stack)  # program stdout -> (proxy ->) peer stdin
        b_r, b_w = _pipe(stack)  # peer stdout -> (proxy ->) program stdin
        held = [a_r, a_w, b_r, b_w]
        proxy: Proxy | None = None
        record: Transcript | None = None
        if transcript is not None:
            c_r, c_w = _pipe(stack)  # proxy -> peer stdin
            d_r, d_w = _pipe(stack)  # proxy -> program stdin
            held += [c_r, c_w, d_r, d_w]
            prog_io_fds = (d_r, a_w)
            peer_io_fds = (c_r, b_w)
        else:
            prog_io_fds = (b_r, a_w)
            peer_io_fds = (a_r, b_w)

        def close_held() -> None:
            for fd in held:
                try:
                    os.close(fd)
                except OSError:
                    pass
            held.clear()

        stack.callback(close_held)
        try:
            prog_io = open_io(
                replace(program, stdin=None, stdout=None), stack, stdin=prog_io_fds[0], stdout=prog_io_fds[1]
            )
            peer_io = open_io(
                replace(peer, stdin=None, stdout=None), stack, stdin=peer_io_fds[0], stdout=peer_io_fds[1]
            )
        except OSError as exc:
            err = error_result(f"cannot open the run's files: {exc}")
            return InteractiveResult(program=err, peer=err, peer_exited_first=False)
        if not runner.can_run:
            err = error_result("; ".join(runner.warnings) or "no way to run programs here")
            return InteractiveResult(program=err, peer=err, peer_exited_first=False)

        prog_launch = runner.prepare(program, prog_io, stack)
        peer_launch = runner.prepare(peer, peer_io, stack)
        peer_launch.start()
        prog_launch.start()
        if transcript is not None:
            # The proxy owns a_r (program out), c_w (peer in), b_r (peer out), d_w (program in).
            record = Transcript()
            proxy = Proxy(a_r, c_w, b_r, d_w, record, program.limits.output_bytes)
            for fd in (a_r, c_w, b_r, d_w):
                held.remove(fd)
            proxy.start()
        close_held()

        order: list[Launch] = []
        margin = max(0.0, peer.limits.wall_time_s - program.limits.wall_time_s)

        def on_exit(ln: Launch) -> None:
            order.append(ln)
            if ln is prog_launch and peer_launch.exit_status is None and not _clean_exit(ln):
                # The program failed (a limit, a crash): its verdict stands unless the peer has already
                # rejected, so the peer only gets a little time to finish what it is reading (a pipe full
                # of a flooding program's output could keep it busy far longer).
                peer_launch.deadline = min(peer_launch.deadline, time.monotonic() + PEER_DRAIN_S)

        def check_proxy() -> float | None:
            if proxy is not None and proxy.over_limit.is_set() and prog_launch.killed_for is None:
                prog_launch.kill(LimitHit.OUTPUT)
            if prog_launch.exit_status is None and not prog_launch.finished:
                # the program's wall deadline moves on with the machine's load (monitor): the peer's follows
                peer_launch.deadline = max(peer_launch.deadline, prog_launch.deadline + margin)
            return _soon()

        monitor([prog_launch, peer_launch], on_exit=on_exit, extra=check_proxy)

        if proxy is not None:
            proxy.join(timeout=2.0)
            proxy.stop()
            proxy.join(timeout=2.0)
        prog_stdout = proxy.program_bytes if proxy is not None else 0
        peer_stdout = proxy.peer_bytes if proxy is not None else 0
        prog_result = runner.collect(prog_launch, program, prog_io, stdout_bytes=prog_stdout)
        peer_result = runner.collect(peer_launch, peer, peer_io, stdout_bytes=peer_stdout)
        if record is not None and transcript is not None:
            transcript.write_bytes(record.finish())

        peer_first = _exited_first(peer_launch, prog_launch, order)
        return InteractiveResult(program=prog_result, peer=peer_result, peer_exited_first=peer_first)


def _soon() -> float:
    return time.monotonic() + 0.05


def _clean_exit(ln: Launch) -> bool:
    status = ln.exit_status
    return ln.killed_for is None and status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _exited_first(peer: Launch, program: Launch, order: list[Launch]) -> bool:
    """Did the peer finish before the program? By the launchers' own clocks when both report."""
    if peer.ended is not None and program.ended is not None:
        return peer.ended < program.ended
    if peer.ended is not None and program.ended is None:
        return True
    if order:
        return order[0] is peer
    return False
