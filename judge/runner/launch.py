"""One running program: follow its status, kill it, collect its result (starting it: start.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from judge.runner.cgroup import CgroupUsage, SlotGroup
from judge.runner.limits import Observed, classify, cpu_rate
from judge.runner.osutil import readable, rmtree, send_signal, sweep_uid, wait_process
from judge.runner.slots import Slot
from judge.runner.spec import LimitHit, RunResult, RunSpec
from judge.runner.start import BASE_PATH, Backend, Plumbing, Starts, clean_env
from judge.runner.warm import WarmServer
from judge.runner.zygote import Zygote, ZygoteError

__all__ = ["BASE_PATH", "STDERR_TAIL", "TERM_GRACE_S", "Backend", "Launch", "Plumbing", "clean_env"]

TERM_GRACE_S = 0.5  # SIGTERM to the launcher, then SIGKILL
STDERR_TAIL = 4096


@dataclass
class Launch(Starts):
    spec: RunSpec
    backend: Backend
    io: Plumbing
    slot: Slot | None = None
    group: SlotGroup | None = None
    # filled while running
    proc: subprocess.Popen[bytes] | None = None
    helper_pid: int | None = None
    status_fd: int = -1
    error_fd: int = -1
    started: float = 0.0
    deadline: float = 0.0
    next_cpu_poll: float = 0.0
    killed_for: LimitHit | None = None
    term_sent: float | None = None
    hard_killed: bool = False
    sandbox_error: str | None = None
    exit_status: int | None = None
    main_rusage: tuple[float, float, int] = (0.0, 0.0, 0)  # utime, stime, maxrss KiB
    all_rusage: tuple[float, float, int] = (0.0, 0.0, 0)
    helper_wall_s: float | None = None
    ended: float | None = None
    finished: bool = False  # launcher reported "done" (or is gone)
    last_cpu: float = 0.0
    _buf: bytes = b""
    _info_fd: int = -1
    _args_fd: int = -1
    _eof: bool = False
    pid: int | None = None  # what we started: the launcher, or bwrap
    via_zygote: bool = False
    via_box: bool = False  # started by the slot's box server (the fast path)
    via_warm: WarmServer | None = None  # forked by this warm server (a trusted run, warm.py): pid is the program
    _awaiting: Zygote | None = None  # the box server's reply (pid 1's pid) is read when needed
    _done: bool = False  # the launcher reported "done": its namespace is empty
    zexit: int | None = None  # its exit status, from the fork server
    _info: bytes = b""
    _inner: int | None = None
    _private_tmp: Path | None = None
    on_exit: list[Callable[[], None]] = field(default_factory=list)
    # interactive: how long the other side (the peer and the judge's proxy) has kept this run waiting so far,
    # which its wall-clock limit does not count (monitor.py; set by interactive.py)
    kept_waiting: Callable[[], float] | None = None

    # -- start ----------------------------------------------------------------------
    def start(self) -> None:
        limits = self.spec.limits
        status_r, status_w = os.pipe()
        self.status_fd = status_r
        try:
            try:
                self._start_as_backend(status_w)
            except ZygoteError:  # the slot's fork server went away, so nothing started: once more, with a new one
                self._renew_slot()
                self._start_as_backend(status_w)
        except Exception as exc:  # the runner's own failure: never the program's
            self.sandbox_error = self.sandbox_error or f"cannot start: {exc}"
            self.finished = True
        finally:
            os.close(status_w)
        self.started = time.monotonic()
        self.deadline = self.started + limits.wall_time_s
        # CPU time cannot exceed the limit before this (no need to poll earlier).
        self.next_cpu_poll = self.started + max(0.005, limits.time_s / cpu_rate(limits))

    def _start_as_backend(self, status_w: int) -> None:
        if self.spec.trusted:
            self._start_trusted(status_w)
        elif self.backend.name == "bwrap":
            self._start_bwrap(status_w)
        else:
            self._start_rlimits(status_w)

    def _inner_pid(self) -> int | None:
        """The host pid of the helper that is pid 1 inside bwrap (from --info-fd)."""
        if self._inner is None and self._info_fd >= 0:
            try:
                self._info += os.read(self._info_fd, 4096)
            except (BlockingIOError, OSError):
                pass
            try:
                self._inner = int(json.loads(self._info)["child-pid"])
            except (ValueError, KeyError, TypeError):
                return None
        return self._inner

    def _bwrap_message(self) -> str:
        text = b""
        if self.error_fd >= 0:
            try:
                text = os.read(self.error_fd, 4096)
            except OSError:
                pass
        rc = self.proc.poll() if self.proc else self.zexit
        return (text.decode(errors="replace").strip() or "no message") + f" (status {rc})"

    # -- while running --------------------------------------------------------------
    def feed(self) -> None:
        """The status pipe is readable: parse what the launcher says."""
        try:
            data = os.read(self.status_fd, 4096)
        except OSError:
            data = b""
        if not data:
            self.finished = True
            self._eof = True
            return
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            self._parse(line.decode(errors="replace").split())

    def _parse(self, words: list[str]) -> None:
        if not words:
            return
        if words[0] == "exit" and len(words) >= 7:
            self.exit_status = int(words[1])
            self.main_rusage = (int(words[2]) / 1e6, int(words[3]) / 1e6, int(words[4]))
            self.helper_wall_s = int(words[5]) / 1e6
            self.ended = int(words[6]) / 1e6  # CLOCK_MONOTONIC, same clock as time.monotonic()
        elif words[0] == "done" and len(words) >= 4:
            self.all_rusage = (int(words[1]) / 1e6, int(words[2]) / 1e6, int(words[3]))
            self.finished = self._done = True
        elif words[0] == "zexit" and len(words) >= 2:
            status = int(words[1])
            self.zexit = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
        elif words[0] == "error":
            self.sandbox_error = "launcher: " + " ".join(words[1:])

    def _drain_status(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while not self._eof:
            left = end - time.monotonic()
            if left <= 0 or not readable(self.status_fd, left):
                if self.pid is not None:
                    send_signal(self.pid, signal.SIGKILL)
                return
            self.feed()

    def cpu_time_s(self) -> float:
        """CPU time of the whole tree so far (cgroup, else the process tree via /proc)."""
        if self.group is not None:
            t = self.group.cpu_time_s()
        else:
            t = self._tree_cpu()
        self.last_cpu = max(self.last_cpu, t)
        return self.last_cpu

    def _tree_cpu(self) -> float:
        if self.pid is None:
            return 0.0
        total = 0.0
        try:
            root = psutil.Process(self.pid)
            tree = root.children(recursive=True)
            for p in [root, *tree] if self.via_warm is not None else tree:  # else root is the launcher
                try:
                    c = p.cpu_times()
                    total += c.user + c.system + c.children_user + c.children_system
                except psutil.Error:
                    pass
        except psutil.Error:
            pass
        return total

    def kill(self, reason: LimitHit | None) -> None:
        """Ask the launcher to kill everything (SIGTERM); the monitor escalates to SIGKILL."""
        if self.killed_for is None and reason is not None and self.exit_status is None:
            self.killed_for = reason
        if self.term_sent is None:
            self.term_sent = time.monotonic()
            if self.via_warm is not None:  # no launcher: the program's process group, at once
                self._kill_warm()
                return
            target = self._helper()
            if target is not None:
                send_signal(target, signal.SIGTERM)
            else:  # bwrap has not even started the namespace: kill it (--die-with-parent does the rest)
                self.hard_kill()

    def _kill_warm(self) -> None:
        """SIGKILL to a warm run's process group (its session), while the server has not reported its end."""
        if self.pid is None or self.exit_status is not None:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:  # not its own group yet (it has just been forked)
            send_signal(self.pid, signal.SIGKILL)

    def _helper(self) -> int | None:
        if self.via_warm is not None:
            return None
        if self.via_box:
            self._box_reply()
            return self.helper_pid
        if self.backend.name == "bwrap" and not self.spec.trusted:
            return self._inner_pid()
        return self.helper_pid

    def hard_kill(self) -> None:
        """The launcher did not finish in time: SIGKILL it (and in bwrap, its namespace)."""
        self.hard_killed = True
        if self.via_warm is not None:
            self._kill_warm()
        target = self._helper()
        if target is not None:
            send_signal(target, signal.SIGKILL)  # in bwrap: pid 1, so the whole namespace dies
        if self.pid is not None:
            send_signal(self.pid, signal.SIGKILL)
        if self.slot is not None and not self.spec.trusted and self.backend.name == "rlimits":
            sweep_uid(self.slot.uid)
        if self.group is not None:
            self.group.kill_all(exclude=self._keep())
        self.finished = True

    def _keep(self) -> set[int]:
        """Processes in the slot's group that are not the run's: its fork server and box server."""
        if self.slot is None:
            return set()
        return {z.pid for z in (self.slot.zygote, self.slot.boxer) if z is not None}

    # -- after ----------------------------------------------------------------------
    def result(self, stdout_bytes: int, stderr_bytes: int, stderr_tail: bytes) -> RunResult:
        """Wait for the launcher (and bwrap) and build the RunResult."""
        rc = self._wait_launcher()
        usage = self._release()
        wall = self._wall_s()
        if self.sandbox_error is None and self.exit_status is None and self.killed_for is None:
            if self.via_warm is not None:
                ended = self.via_warm.ended() or " (it is still running)"
                self.sandbox_error = f"the warm server did not report the program's status{ended}"
            else:
                msg = self._bwrap_message() if rc not in (0, None) else f"status {rc}"
                self.sandbox_error = f"the launcher ended without reporting the program's status: {msg}"
        self._close_pipes()
        obs = self._observed(usage, stdout_bytes, stderr_bytes, stderr_tail)
        limit_hit = None if self.sandbox_error is not None else classify(obs, self.spec.limits)
        return RunResult(
            exit_code=obs.exit_code,
            signal=obs.signal,
            cpu_time_s=round(obs.cpu_time_s, 6),
            wall_time_s=round(wall, 6),
            memory_kib=obs.memory_kib,
            stdout_bytes=stdout_bytes,
            stderr_bytes=stderr_bytes,
            limit_hit=limit_hit,
            sandbox_error=self.sandbox_error,
        )

    def _wait_launcher(self) -> int | None:
        """Wait until the launcher (or bwrap) is gone; its exit status where it has one."""
        if self.proc is not None:
            return wait_process(self.proc, 10.0)
        if self.via_warm is not None:  # the server writes "exit" and "done", then closes its end
            self._drain_status(10.0)
            if self.exit_status is None:
                self._kill_warm()  # the server went away: what is left of the run must not outlive it
            return None
        if self.via_box:  # pid 1 is leaving an empty namespace (or was killed); no "zexit" here
            self._box_reply()
            if not self.finished:
                self._drain_status(10.0)
            return None
        if self.via_zygote:
            self._drain_status(10.0)  # until EOF: the fork server's "zexit" comes last
            return self.zexit
        return None

    def _release(self) -> CgroupUsage | None:
        """Empty and release the run's cgroup and private /tmp; what the cgroup counted (None without one)."""
        usage: CgroupUsage | None = None
        if self.group is not None:
            try:
                usage = self.group.usage()
            except OSError:
                usage = None
            if not (self.via_box and self._done):  # else pid 1 emptied its namespace: nothing is left
                self.group.kill_all(exclude=self._keep())
            self.group.finish()
        if self._private_tmp is not None:
            rmtree(self._private_tmp)
        return usage

    def _wall_s(self) -> float:
        """The run's wall time: the launcher's own clock, else the judge's (until now, if it was killed)."""
        end = self.ended if self.ended is not None else time.monotonic()
        wall = self.helper_wall_s if self.helper_wall_s is not None else end - self.started
        if self.killed_for is not None:
            wall = max(wall, min(end, time.monotonic()) - self.started)
        return wall

    def _close_pipes(self) -> None:
        for fd in (self.error_fd, self._info_fd):
            if fd >= 0:
                os.close(fd)
        self.error_fd = self._info_fd = -1
        os.close(self.status_fd)
        self.status_fd = -1

    def _observed(
        self, usage: CgroupUsage | None, stdout_bytes: int, stderr_bytes: int, stderr_tail: bytes
    ) -> Observed:
        """What the run did, from the launcher's report and the cgroup's counters (for limits.classify)."""
        exit_code: int | None = None
        sig: int | None = None
        if self.exit_status is not None:
            if os.WIFSIGNALED(self.exit_status):
                sig = os.WTERMSIG(self.exit_status)
            else:
                exit_code = os.WEXITSTATUS(self.exit_status)
        elif self.killed_for is not None:
            sig = signal.SIGKILL
        rusage_cpu = max(sum(self.main_rusage[:2]), sum(self.all_rusage[:2]))
        cpu = usage.cpu_time_s if usage is not None and usage.cpu_time_s > 0 else rusage_cpu
        cpu = max(cpu, self.last_cpu if self.killed_for is not None else 0.0)
        memory = max(self.main_rusage[2], self.all_rusage[2])
        if usage is not None and usage.oom_kills > 0:
            memory = max(memory, usage.memory_peak_kib)
        return Observed(
            exit_code=exit_code,
            signal=sig,
            cpu_time_s=cpu,
            memory_kib=memory,
            stdout_bytes=stdout_bytes,
            stderr_bytes=stderr_bytes,
            killed_for=self.killed_for,
            oom_kills=usage.oom_kills if usage is not None else 0,
            fork_failures=usage.fork_failures if usage is not None else 0,
            stderr_tail=stderr_tail,
            address_space_limited=self.spec.address_space_limit and usage is None,
            box=None if self.spec.trusted else self.spec.box,
        )
