"""Two programs with crossed pipes: the contestant's program and its peer (the validator).

A proxy thread sits in between: it copies the traffic, records it (``> `` program to peer, ``< `` peer to
program, capped at 64 KiB; written out when a transcript is asked for), counts the program's output
against its output limit, and sees in which order the two sides' outputs ended (``Proxy.ended``).

No hang is possible: the judge keeps no pipe end open, and neither does anything between it
and the programs (the launcher takes each side's stdin and stdout at fd numbers of its own
and closes them once the program is forked: helper.c, -I/-O), so when one side closes its
end the other sees EOF (or EPIPE) at once, even while the first goes on running (an
interactor that writes everything, closes its output and waits for the answer: BAPCtools'
`pseudointeraction`); if both wait for each other, the program's wall limit ends it and
then the peer sees EOF. Pipes are enlarged to 1 MiB (as problemtools).
When the program fails (a limit or a crash), the peer gets PEER_DRAIN_S more to
finish; the program's wall deadline may move on with the machine's load (monitor.py),
and by the time the peer and the proxy's thread spent on a CPU or waiting for one (the program waits,
blocked, while they answer it: ``Launch.kept_waiting``), and the peer's deadline follows it.
When the peer rejects (exits with ``peer_rejects``: 43 for a validator) before the program's output
ended, the program is stopped at once: nothing it does after can change the verdict.

Who was first (``peer_first``; the verdict's precedence: docs/package-format.md, "Interactive
problems") is decided from facts observed in a causal order, never from two clocks compared: the order in
which the proxy, one thread, read the end of each side's output (neither side can see the other's end of
file before the proxy has read it and passed it on, so a side that fails on the other's end of file is
always seen ending second); whether a limit ended the program; and whether the peer rejected while the
program's output had not ended (the monitor asks the proxy under its lock: ``Proxy.claim``).
"""

from __future__ import annotations

import errno
import fcntl
import os
import selectors
import sys
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from judge.runner.launch import Launch, Plumbing
from judge.runner.monitor import monitor
from judge.runner.osutil import busy_total_s, thread_run_queue_wait_s, tree_pids
from judge.runner.plumbing import error_result, open_io
from judge.runner.spec import InteractiveResult, LimitHit, RunResult, RunSpec


class Starter(Protocol):
    """What of the sandboxed runner an interactive run uses (SandboxRunner, api.py)."""

    @property
    def can_run(self) -> bool: ...

    @property
    def warnings(self) -> tuple[str, ...]: ...

    def prepare(self, spec: RunSpec, io: Plumbing, stack: ExitStack) -> Launch: ...

    def collect(self, launch: Launch, spec: RunSpec, io: Plumbing, stdout_bytes: int | None = None) -> RunResult: ...


PIPE_BYTES = 1024 * 1024
PEER_DRAIN_S = 2.0  # how long the peer may go on after the program failed
TRANSCRIPT_CAP = 64 * 1024


def _pipe(held: list[int]) -> tuple[int, int]:
    """A pipe of PIPE_BYTES (when the kernel allows it); both ends go to ``held``."""
    r, w = os.pipe2(os.O_CLOEXEC)
    held += [r, w]
    try:
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass
    return r, w


def _close_all(held: list[int]) -> None:
    """Close the pipe ends still in ``held`` (the launchers have their copies) and forget them."""
    for fd in held:
        try:
            os.close(fd)
        except OSError:
            pass
    held.clear()


@dataclass(frozen=True)
class ProxyEnds:
    """The four pipe ends the proxy copies between (it owns them once started)."""

    program_out: int  # read: what the program writes
    peer_in: int  # write: what the peer reads
    peer_out: int  # read: what the peer writes
    program_in: int  # write: what the program reads

    def fds(self) -> tuple[int, int, int, int]:
        return (self.program_out, self.peer_in, self.peer_out, self.program_in)


@dataclass(frozen=True)
class Wiring:
    """The pipe ends of one interactive run: each side's stdin and stdout, and the proxy's ends."""

    program_stdin: int
    program_stdout: int
    peer_stdin: int
    peer_stdout: int
    proxy: ProxyEnds


def _wire(stack: ExitStack, held: list[int]) -> Wiring:
    """The pipes of one interactive run, the proxy between the two sides. Every end is in ``held``, closed
    when ``stack`` closes unless closed (or handed to the proxy) earlier."""
    stack.callback(_close_all, held)
    a_r, a_w = _pipe(held)  # program stdout -> proxy
    b_r, b_w = _pipe(held)  # peer stdout -> proxy
    c_r, c_w = _pipe(held)  # proxy -> peer stdin
    d_r, d_w = _pipe(held)  # proxy -> program stdin
    ends = ProxyEnds(program_out=a_r, peer_in=c_w, peer_out=b_r, program_in=d_w)
    return Wiring(program_stdin=d_r, program_stdout=a_w, peer_stdin=c_r, peer_stdout=b_w, proxy=ends)


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


@dataclass
class _Direction:
    """One way through the proxy: it reads ``source`` and writes what is ``pending`` to ``sink`` (an end
    that is closed is -1). Mutable: only the proxy's thread touches it."""

    source: int
    sink: int
    prefix: bytes  # in the transcript
    pending: bytes = b""


class Proxy(threading.Thread):
    """Copies program stdout -> peer stdin and peer stdout -> program stdin, recording both; keeps the order
    in which their ends came (``ended``)."""

    def __init__(self, ends: ProxyEnds, transcript: Transcript, output_limit: int):
        super().__init__(daemon=True, name="judge-interactive-proxy")
        self.transcript = transcript
        self.output_limit = output_limit
        self.program_bytes = 0
        self.peer_bytes = 0
        self.over_limit = threading.Event()
        self.ended: list[int] = []  # the directions whose source reached end of file, in that order
        self.claimed = False  # the peer rejected before the program's output ended (``claim``)
        self._lock = threading.Lock()  # ``ended`` and ``claimed``: read by the monitor's thread too
        self._halt = threading.Event()
        self._dirs = [
            _Direction(ends.program_out, ends.peer_in, b"> "),  # index 0: the program's output
            _Direction(ends.peer_out, ends.program_in, b"< "),
        ]
        for fd in ends.fds():
            os.set_blocking(fd, False)
        self._selector: selectors.BaseSelector | None = None  # the loop's (its thread only)
        self._tid: int | None = None  # its thread's, once it runs
        self.held_s = 0.0  # the time it took to pass messages on (``kept_waiting_s``); its thread only writes it
        self._switch_s = sys.getswitchinterval()
        self._registered: dict[int, tuple[int, tuple[tuple[str, int], ...]]] = {}  # fd -> what it is registered for

    def stop(self) -> None:
        self._halt.set()

    def peer_closed_first(self) -> bool:
        """Did the peer's output end before the program's? Then the program went on after end of file: the
        conversation was over (one thread saw both ends, in their causal order)."""
        with self._lock:
            return bool(self.ended) and self.ended[0] == 1

    def claim(self) -> bool:
        """The peer has rejected (exited): was the program's output still going (not yet at its end)? Then
        the peer was first, whatever the program does after; and the proxy's later reading of that end does
        not change it (both under the lock)."""
        with self._lock:
            if 0 not in self.ended:
                self.claimed = True
            return self.claimed

    def kept_waiting_s(self) -> float:
        """How long the proxy held the messages up so far, which the program must not be charged for: the
        time its thread waited, runnable, for a CPU (a loaded machine, a starved judge), and the time it took
        to pass them on (``held_s``: its own work, its waits for the GIL while another of the judge's threads
        holds it)."""
        tid = self._tid
        return self.held_s + (0.0 if tid is None else thread_run_queue_wait_s(tid))

    def run(self) -> None:
        self._tid = threading.get_native_id()
        sel = selectors.DefaultSelector()
        try:
            self._loop(sel)
        finally:
            sel.close()
            for d in self._dirs:
                for fd in (d.source, d.sink):
                    if fd >= 0:
                        os.close(fd)
                d.source = d.sink = -1

    def _loop(self, sel: selectors.BaseSelector) -> None:
        """Wait for the ends that can move, move what they have. An end stays registered with the selector
        while it is wanted (a registration changed only when what is wanted of it does), and is unregistered
        before it is closed (``_close``); what has been read is passed on at once when the other pipe has
        room (one wait per message, not two)."""
        self._registered.clear()
        self._selector = sel
        last = time.monotonic()
        while not self._halt.is_set():
            wanted = self._wanted()
            if not wanted:
                return
            for fd in [fd for fd in self._registered if fd not in wanted]:
                sel.unregister(fd)
                del self._registered[fd]
            for fd, want in wanted.items():
                had = self._registered.get(fd)
                if had is None:
                    sel.register(fd, *want)
                elif had != want:
                    sel.modify(fd, *want)
                self._registered[fd] = want
            asleep = time.monotonic()
            ready = sel.select(0.05)
            # waiting for a side is not the judge's time; waking is: the wait for the GIL (at most a switch
            # interval while its holder runs), so that much of a wait that ended with something to pass on
            idle = time.monotonic() - asleep
            if ready:
                idle = max(0.0, idle - self._switch_s)
            for key, _mask in ready:
                for kind, idx in key.data:
                    d = self._dirs[idx]
                    if kind == "r" and d.source == key.fd:
                        self._read(idx)
                        if d.pending and d.sink >= 0:
                            self._write(idx)
                    elif kind == "w" and d.sink == key.fd and d.pending:
                        self._write(idx)
            # the judge's time: the loop's own work, passing the messages on, and each wait for the GIL while
            # another of the judge's threads holds it
            now = time.monotonic()
            self.held_s += now - last - idle
            last = now

    def _close(self, fd: int) -> None:
        """Close one of the proxy's ends, unregistered first (a closed fd's number may be reused at once)."""
        if self._registered.pop(fd, None) is not None and self._selector is not None:
            self._selector.unregister(fd)
        os.close(fd)

    def _wanted(self) -> dict[int, tuple[int, tuple[tuple[str, int], ...]]]:
        """The ends to wait for: fd -> (selector events, the directions that read ("r") or write ("w") it)."""
        events: dict[int, int] = {}
        uses: dict[int, list[tuple[str, int]]] = {}
        for idx, d in enumerate(self._dirs):
            if d.source >= 0 and len(d.pending) < 4 * PIPE_BYTES:
                events[d.source] = events.get(d.source, 0) | selectors.EVENT_READ
                uses.setdefault(d.source, []).append(("r", idx))
            if d.sink >= 0 and d.pending:
                events[d.sink] = events.get(d.sink, 0) | selectors.EVENT_WRITE
                uses.setdefault(d.sink, []).append(("w", idx))
        return {fd: (mask, tuple(uses[fd])) for fd, mask in events.items()}

    def _read(self, idx: int) -> None:
        d = self._dirs[idx]
        try:
            data = os.read(d.source, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._close(d.source)
            d.source = -1
            with self._lock:
                self.ended.append(idx)
            if not d.pending and d.sink >= 0:  # EOF and nothing left to pass on: the other side sees EOF
                self._close(d.sink)
                d.sink = -1
            return
        if idx == 0:
            self.program_bytes += len(data)
            if self.program_bytes > self.output_limit:
                self.over_limit.set()
        else:
            self.peer_bytes += len(data)
        self.transcript.add(d.prefix, data)
        if d.sink >= 0:
            d.pending += data

    def _write(self, idx: int) -> None:
        d = self._dirs[idx]
        try:
            n = os.write(d.sink, d.pending)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.EBADF):
                raise
            # The reader is gone: drop what it will never read, keep draining the writer.
            self._close(d.sink)
            d.sink = -1
            d.pending = b""
            return
        d.pending = d.pending[n:]
        if not d.pending and d.source < 0:
            self._close(d.sink)
            d.sink = -1


def run_interactive(
    runner: Starter, program: RunSpec, peer: RunSpec, transcript: Path | None, *, peer_rejects: int | None = None
) -> InteractiveResult:
    """Run ``program`` and ``peer`` with crossed pipes (see the module doc); with ``transcript``, the traffic
    is recorded there. ``peer_rejects``: the peer's exit status that settles the run when the peer was first
    (the program is then stopped at once)."""
    with ExitStack() as stack:
        held: list[int] = []  # pipe ends the judge holds: closed as soon as the launchers have them
        wiring = _wire(stack, held)
        opened = _open(runner, program, peer, wiring, stack)
        if isinstance(opened, InteractiveResult):
            return opened
        prog_io, peer_io = opened
        prog_launch = runner.prepare(program, prog_io, stack)
        peer_launch = runner.prepare(peer, peer_io, stack)
        peer_launch.start()
        prog_launch.start()
        proxy = _start_proxy(wiring.proxy, held, program.limits.output_bytes)
        _close_all(held)
        # the program's wall clock does not count the time the judge's side took to answer it (load)
        kept = KeptWaiting(peer_launch, proxy)
        prog_launch.kept_waiting = kept.sample

        margin_s = max(0.0, peer.limits.wall_time_s - program.limits.wall_time_s)
        _follow(prog_launch, peer_launch, proxy, kept, margin_s=margin_s, peer_rejects=peer_rejects)

        prog_stdout, peer_stdout = _stop_proxy(proxy)
        prog_result = runner.collect(prog_launch, program, prog_io, stdout_bytes=prog_stdout)
        peer_result = runner.collect(peer_launch, peer, peer_io, stdout_bytes=peer_stdout)
        if transcript is not None:
            transcript.write_bytes(proxy.transcript.finish())
        # a program a limit ended went on running after the peer's end of file (closedsum's waits_twice: TLE)
        peer_first = proxy.claimed or (proxy.peer_closed_first() and prog_launch.killed_for is None)
        return InteractiveResult(program=prog_result, peer=peer_result, peer_first=peer_first)


def _open(
    runner: Starter, program: RunSpec, peer: RunSpec, wiring: Wiring, stack: ExitStack
) -> tuple[Plumbing, Plumbing] | InteractiveResult:
    """Both sides' files (their stdin and stdout are the wiring's pipes); or, when they cannot be opened or
    nothing can run here, the result of the run: that error for both."""
    try:
        prog_io = open_io(
            replace(program, stdin=None, stdout=None), stack, stdin=wiring.program_stdin, stdout=wiring.program_stdout
        )
        peer_io = open_io(
            replace(peer, stdin=None, stdout=None), stack, stdin=wiring.peer_stdin, stdout=wiring.peer_stdout
        )
    except OSError as exc:
        return _both_failed(f"cannot open the run's files: {exc}")
    if not runner.can_run:
        return _both_failed("; ".join(runner.warnings) or "no way to run programs here")
    return prog_io, peer_io


def _both_failed(message: str) -> InteractiveResult:
    err = error_result(message)
    return InteractiveResult(program=err, peer=err, peer_first=False)


def _start_proxy(ends: ProxyEnds, held: list[int], output_limit: int) -> Proxy:
    """The proxy, started; it owns its ends from now on, so they leave ``held``."""
    proxy = Proxy(ends, Transcript(), output_limit)
    for fd in ends.fds():
        held.remove(fd)
    proxy.start()
    return proxy


class KeptWaiting:
    """How long the judge's side has kept the program waiting so far (``Launch.kept_waiting``): the peer's
    time on a CPU and waiting, runnable, for one (its live threads'), and the proxy's (``Proxy.kept_waiting_s``).
    Sampled on every wake of the monitor and never less than before: a thread's figures go with it."""

    def __init__(self, peer_launch: Launch, proxy: Proxy) -> None:
        self.peer_launch = peer_launch
        self.proxy = proxy
        self.peer_s = 0.0
        self.proxy_s = 0.0

    def sample(self) -> float:
        pid = self.peer_launch.pid
        if pid is not None and not self.peer_launch.finished:
            self.peer_s = max(self.peer_s, busy_total_s(tree_pids(pid)))
        self.proxy_s = max(self.proxy_s, self.proxy.kept_waiting_s())
        return self.peer_s + self.proxy_s


def _follow(
    prog_launch: Launch,
    peer_launch: Launch,
    proxy: Proxy,
    kept: KeptWaiting,
    *,
    margin_s: float,
    peer_rejects: int | None,
) -> None:
    """Wait until both sides have ended (monitor.py).

    The peer's wall deadline stays ``margin_s`` after the program's (which moves on with the machine's
    load), and shrinks to PEER_DRAIN_S from now when the program fails; the proxy's count of the
    program's output is held against its output limit. A peer that exits with ``peer_rejects`` before the
    program's output ended (``Proxy.claim``) has settled the run: the program is stopped."""

    def on_exit(ln: Launch) -> None:
        if ln is prog_launch and peer_launch.exit_status is None and not _clean_exit(ln):
            # The program failed (a limit, a crash): its verdict stands unless the peer has already
            # rejected, so the peer only gets a little time to finish what it is reading (a pipe full
            # of a flooding program's output could keep it busy far longer).
            peer_launch.deadline = min(peer_launch.deadline, time.monotonic() + PEER_DRAIN_S)
        program_runs = prog_launch.exit_status is None and not prog_launch.finished
        if ln is peer_launch and _exited_with(ln, peer_rejects) and program_runs and proxy.claim():
            prog_launch.kill(None)  # no limit: the verdict is the peer's

    def check_proxy() -> float | None:
        if proxy.over_limit.is_set() and prog_launch.killed_for is None:
            prog_launch.kill(LimitHit.OUTPUT)
        if prog_launch.exit_status is None and not prog_launch.finished:
            kept.sample()  # (the peer's figures go with its threads)
            # the program's wall deadline moves on with the machine's load (monitor): the peer's follows
            peer_launch.deadline = max(peer_launch.deadline, prog_launch.deadline + margin_s)
        return _soon()

    monitor([prog_launch, peer_launch], on_exit=on_exit, extra=check_proxy)


def _stop_proxy(proxy: Proxy) -> tuple[int, int]:
    """Let the proxy pass on what is left (2 s at most), then stop it; the bytes the program and the peer
    wrote."""
    proxy.join(timeout=2.0)
    proxy.stop()
    proxy.join(timeout=2.0)
    return proxy.program_bytes, proxy.peer_bytes


def _soon() -> float:
    return time.monotonic() + 0.05


def _clean_exit(ln: Launch) -> bool:
    status = ln.exit_status
    return ln.killed_for is None and status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _exited_with(ln: Launch, code: int | None) -> bool:
    """Did ``ln``'s program exit by itself with status ``code`` (never, for None)?"""
    status = ln.exit_status
    return (
        code is not None
        and ln.killed_for is None
        and status is not None
        and os.WIFEXITED(status)
        and os.WEXITSTATUS(status) == code
    )
