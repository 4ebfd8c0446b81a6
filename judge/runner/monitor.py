"""The wait/kill loop: follow one or more launches until all have finished.

It sleeps in ``select`` on the launchers' status pipes, so a program that ends
early is noticed at once and nothing burns CPU while waiting. Wall deadlines are
checked on every wake-up. The tree's CPU time (cgroup ``cpuacct``, else ``/proc``) is first polled when it
could have reached the limit, then each time at the earliest moment it could have reached the kill point
(the limit plus a grace, limits.cpu_kill_s) from what it had used, ``CPU_POLL_S`` apart at least: a run far
below its limit is not polled again and again. A run is killed when it reaches the kill point, and is a
TLE for anything above the limit.
The wall-clock deadline is moved on by the time the run's processes waited for a CPU (a loaded machine).
"""

from __future__ import annotations

import math
import select
import time
from collections.abc import Callable, Sequence

import psutil

from judge.runner.launch import TERM_GRACE_S, Launch
from judge.runner.limits import cpu_kill_s, cpu_rate
from judge.runner.osutil import run_queue_wait_s
from judge.runner.spec import LimitHit

CPU_POLL_S = 0.02
WALL_STRETCH_MAX = 10.0


def monitor(
    launches: Sequence[Launch],
    on_exit: Callable[[Launch], object] | None = None,
    extra: Callable[[], float | None] | None = None,
) -> None:
    """Run until every launch has finished.

    ``on_exit(launch)`` is called once when a launch's program has ended (interactive
    runs use it to record who exited first). ``extra()`` is called on every wake-up
    and returns the next time (monotonic) it wants to be called, or None.
    """
    poller = select.poll()  # (no descriptor of its own to make and close per run, unlike epoll)
    live: dict[int, Launch] = {}
    for ln in launches:
        if not ln.finished and ln.status_fd >= 0:
            poller.register(ln.status_fd, select.POLLIN)
            live[ln.status_fd] = ln
    reported: set[int] = set()

    def report(ln: Launch) -> None:  # on_exit once per launch, whichever way its end is seen first
        if id(ln) not in reported:
            reported.add(id(ln))
            if on_exit is not None:
                on_exit(ln)

    while live:
        now = time.monotonic()
        wake = min(_next_wake(ln) for ln in live.values())
        extra_wake = extra() if extra is not None else None
        if extra_wake is not None:
            wake = min(wake, extra_wake)
        for fd, _ in _poll(poller, wake - now):
            live[fd].feed()
        now = time.monotonic()
        for fd, ln in list(live.items()):
            if ln.exit_status is not None:
                report(ln)
            if not ln.finished:
                _enforce(ln, now)
            if ln.finished:  # ended, or hard-killed just now
                poller.unregister(fd)
                del live[fd]
                report(ln)


def _poll(poller: select.poll, timeout_s: float) -> list[tuple[int, int]]:
    """``poller.poll`` for ``timeout_s`` seconds (rounded up to a millisecond, as selectors does)."""
    try:
        return poller.poll(math.ceil(max(0.0, timeout_s) * 1e3))
    except InterruptedError:
        return []


def _next_wake(ln: Launch) -> float:
    if ln.term_sent is not None:
        return ln.term_sent + TERM_GRACE_S
    if ln.exit_status is not None:
        return ln.deadline + 5.0  # program done; launcher is cleaning up
    return min(ln.deadline, ln.next_cpu_poll)


def _enforce(ln: Launch, now: float) -> None:
    if ln.term_sent is not None:
        if now >= ln.term_sent + TERM_GRACE_S:
            ln.hard_kill()
        return
    if ln.exit_status is not None:
        if now >= ln.deadline + 5.0:
            ln.kill(None)  # the launcher is stuck cleaning up; should never happen
        return
    if now >= ln.deadline:
        later = _stretched_deadline(ln)
        if later > now + 0.001:
            ln.deadline = later  # it waited for a CPU that long: the machine's load, not its own doing
            return
        ln.kill(LimitHit.WALL_TIME)
        return
    if now >= ln.next_cpu_poll:
        used, kill_s = ln.cpu_time_s(), cpu_kill_s(ln.spec.limits)
        if used > kill_s:
            ln.kill(LimitHit.CPU_TIME)
            return
        # the tree cannot reach the kill point before this (a trusted run's tree is a walk of every process
        # on the machine: psutil's children)
        ln.next_cpu_poll = now + max(CPU_POLL_S, (kill_s - used) / cpu_rate(ln.spec.limits))


def _run_pids(ln: Launch) -> set[int]:
    """The processes of the run: its cgroup's (not the slot's fork and box servers), else its process tree."""
    if ln.group is not None:
        return ln.group.procs() - ln._keep()
    if ln.pid is None:
        return set()
    try:
        root = psutil.Process(ln.pid)
        return {root.pid, *(c.pid for c in root.children(recursive=True))}
    except psutil.Error:
        return set()


def _stretched_deadline(ln: Launch) -> float:
    """The wall-clock deadline plus the longest time any of the run's threads spent waiting, runnable,
    for a CPU: so the wall limit counts only time in which every thread could have run.

    The wall limit is a backstop against programs that sleep or block; on a loaded machine a program
    that computes gets less CPU per second of wall time, and that must not turn into a TLE (or beat its
    memory limit to a verdict). An interactive program waits, blocked, while its peer and the judge's proxy
    answer it: their time on a CPU and waiting for one (``Launch.kept_waiting``) is added too, so that a
    loaded machine (or a judge short of CPU) does not turn a program that talks into a TLE either. Capped
    at WALL_STRETCH_MAX times the limit (a safety net only).
    """
    wall = ln.spec.limits.wall_time_s
    waited = run_queue_wait_s(_run_pids(ln))
    if ln.kept_waiting is not None:  # interactive: the time its peer and the proxy took to answer
        waited += ln.kept_waiting()
    return ln.started + min(wall + waited, WALL_STRETCH_MAX * wall)
