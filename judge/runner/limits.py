"""What each limit maps to (rlimits, cgroup values) and which limit ended a run."""

from __future__ import annotations

import math
import os
import resource
import signal
from dataclasses import dataclass
from pathlib import Path

from judge.runner.spec import LimitHit, Limits

# Messages runtimes print when an allocation failed under RLIMIT_AS or their own heap cap.
MEMORY_ERROR_MARKERS = (
    b"MemoryError",
    b"std::bad_alloc",
    b"java.lang.OutOfMemoryError",
    b"Cannot allocate memory",
    b"out of memory",
    b"Out of memory",
    b"Runtime error 203",  # Free Pascal: heap overflow
)


def cpu_grace_s(limits: Limits) -> float:
    """How long past its CPU time limit a run may go on before it is killed (DOMjudge's soft/hard limits).

    Any CPU time above the limit is a TLE all the same; the grace only lets a run that is about to reach
    its memory limit get there, so that a memory hog (which spends its CPU time in page faults, more of
    it on a loaded machine) is MLE whatever the load, not MLE or TLE depending on it.
    """
    return min(2.0, 0.5 + 0.5 * limits.time_s)


def cpu_rate(limits: Limits) -> int:
    """The most CPU seconds a run's tree can use per second of wall time: 1 for a program that may not
    fork (nor start threads), else every CPU of the machine."""
    return 1 if limits.processes <= 1 else (os.cpu_count() or 1)


def cpu_kill_s(limits: Limits) -> float:
    """The CPU time (whole process tree) at which the monitor kills a run."""
    return limits.time_s + cpu_grace_s(limits)


def cpu_rlimit(limits: Limits) -> tuple[int, int]:
    """RLIMIT_CPU backstop (whole seconds, per process): SIGXCPU, then SIGKILL one second later."""
    soft = math.ceil(cpu_kill_s(limits)) + 1
    return soft, soft + 1


def rlimits(
    limits: Limits, *, trusted: bool, address_space: bool, nproc: int | None, cgroup: bool = False
) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) for the launcher; -1 = unlimited.

    The stack is unlimited (unless ``stack_kib`` says otherwise) wherever memory is bounded anyway, by the
    run's cgroup or by ``RLIMIT_AS``: as under problemtools and DOMjudge, the main thread's stack may grow
    to the memory limit, and a thread gets glibc's default stack (2 MiB) rather than one the size of the
    memory limit (which ``RLIMIT_AS`` would charge in full to every thread). Where nothing else bounds
    memory, the stack is bounded by the memory limit.
    """
    soft, hard = cpu_rlimit(limits)
    out = [
        (resource.RLIMIT_CPU, soft, hard),
        (resource.RLIMIT_FSIZE, limits.output_bytes + 1, limits.output_bytes + 1),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if trusted:
        return out
    if limits.stack_kib is not None:
        stack = limits.stack_kib * 1024
    else:
        stack = -1 if cgroup or address_space else limits.memory_kib * 1024
    out.append((resource.RLIMIT_STACK, stack, stack))
    out.append((resource.RLIMIT_NOFILE, limits.open_files, limits.open_files))
    if address_space:
        out.append((resource.RLIMIT_AS, limits.memory_kib * 1024, limits.memory_kib * 1024))
    if nproc is not None:
        out.append((resource.RLIMIT_NPROC, nproc, nproc))
    return out


def rlimit_args(items: list[tuple[int, int, int]]) -> list[str]:
    args: list[str] = []
    for res, soft, hard in items:
        args += ["-r", f"{res}:{soft}:{hard}"]
    return args


@dataclass
class Observed:
    """Everything known about a finished run, before deciding which limit (if any) ended it."""

    exit_code: int | None
    signal: int | None
    cpu_time_s: float
    memory_kib: int
    stdout_bytes: int
    stderr_bytes: int
    killed_for: LimitHit | None  # the monitor killed it for this reason
    oom_kills: int
    fork_failures: int
    stderr_tail: bytes
    address_space_limited: bool
    box: Path | None


def _box_has_big_file(box: Path | None, limit: int) -> bool:
    if box is None:
        return False
    try:
        for root, _dirs, files in os.walk(box):
            for name in files:
                try:
                    if os.lstat(os.path.join(root, name)).st_size > limit:
                        return True
                except OSError:
                    pass
    except OSError:
        pass
    return False


def classify(obs: Observed, limits: Limits) -> LimitHit | None:
    """Which limit ended the run: memory first (an OOM kill wins over a time-out: see cpu_grace_s), then
    the monitor's own kill, output, a runtime's out-of-memory message, CPU, processes."""
    if obs.oom_kills > 0 or obs.memory_kib > limits.memory_kib:
        return LimitHit.MEMORY
    if obs.killed_for is not None:
        return obs.killed_for
    abnormal = obs.signal is not None or obs.exit_code != 0
    if (
        obs.signal == signal.SIGXFSZ
        or obs.stdout_bytes > limits.output_bytes
        or obs.stderr_bytes > limits.output_bytes
        or (abnormal and _box_has_big_file(obs.box, limits.output_bytes))
    ):
        return LimitHit.OUTPUT
    if abnormal and any(m in obs.stderr_tail for m in MEMORY_ERROR_MARKERS):
        return LimitHit.MEMORY  # (an allocation failed under RLIMIT_AS: memory wins over time here too)
    if obs.cpu_time_s > limits.time_s or obs.signal == signal.SIGXCPU:
        return LimitHit.CPU_TIME
    if abnormal and obs.fork_failures > 0:
        return LimitHit.PROCESSES
    return None
