"""The monitor's CPU polls (runner/monitor.py): when a run's CPU time is read, and that the kill point is never
passed unseen for longer than one poll interval. A fake launch, no processes: no root, no timing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from judge.runner.limits import cpu_kill_s, cpu_rate
from judge.runner.monitor import CPU_POLL_S, _enforce
from judge.runner.spec import LimitHit, Limits, RunSpec


@dataclass
class FakeLaunch:
    """What ``_enforce`` uses of a Launch; its CPU time is what the test says."""

    spec: RunSpec
    used_s: float = 0.0
    deadline: float = 1e9
    next_cpu_poll: float = 0.0
    term_sent: float | None = None
    exit_status: int | None = None
    killed: list[LimitHit | None] = field(default_factory=list)
    polls: int = 0

    def cpu_time_s(self) -> float:
        self.polls += 1
        return self.used_s

    def kill(self, reason: LimitHit | None) -> None:
        self.killed.append(reason)
        self.term_sent = 0.0


def launch(time_s: float, processes: int = 1) -> FakeLaunch:
    spec = RunSpec(argv=("x",), box=Path("/nonexistent"), limits=Limits(time_s=time_s, processes=processes))
    return FakeLaunch(spec)


def test_a_run_far_below_its_cpu_limit_is_not_polled_again_soon():
    """A validator's tree is a walk of every process on the machine: a run that has used 0.1 s of a 15 s
    limit is next polled when it could first reach the kill point, not every CPU_POLL_S."""
    ln = launch(15.0, processes=1)
    ln.used_s = 0.1
    _enforce(ln, now=100.0)  # type: ignore[arg-type]
    assert ln.polls == 1 and not ln.killed
    assert ln.next_cpu_poll == 100.0 + (cpu_kill_s(ln.spec.limits) - 0.1)
    _enforce(ln, now=101.0)  # type: ignore[arg-type]
    assert ln.polls == 1  # not due yet


def test_a_run_near_its_kill_point_is_polled_every_interval():
    ln = launch(2.0)
    ln.used_s = cpu_kill_s(ln.spec.limits) - 0.001
    _enforce(ln, now=10.0)  # type: ignore[arg-type]
    assert ln.next_cpu_poll == 10.0 + CPU_POLL_S and not ln.killed


def test_a_run_past_its_kill_point_is_killed_for_cpu_time():
    ln = launch(2.0)
    ln.used_s = cpu_kill_s(ln.spec.limits) + 0.01
    _enforce(ln, now=10.0)  # type: ignore[arg-type]
    assert ln.killed == [LimitHit.CPU_TIME]


@given(
    time_s=st.floats(0.05, 3.0),
    processes=st.sampled_from([1, 2, 64]),
    rates=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50),
)
def test_the_kill_point_is_seen_within_one_poll_interval_whatever_the_run_does(time_s, processes, rates):
    """However a run spends its CPU (at most ``cpu_rate`` seconds per second), the monitor sees it past its
    kill point at most CPU_POLL_S after it got there: the polls are fewer, never later."""
    ln = launch(time_s, processes)
    limit_rate = cpu_rate(ln.spec.limits)
    kill_s = cpu_kill_s(ln.spec.limits)
    now, used = 0.0, 0.0
    ln.next_cpu_poll = time_s / limit_rate
    crossed: float | None = None
    step = CPU_POLL_S / 4
    for i in range(4_000):
        rate = rates[i % len(rates)] * limit_rate
        used += rate * step
        now += step
        if crossed is None and used > kill_s:
            crossed = now
        ln.used_s = used
        _enforce(ln, now)  # type: ignore[arg-type]
        if ln.killed:
            assert crossed is not None
            assert now - crossed <= CPU_POLL_S + step
            return
        if crossed is not None:
            assert now - crossed <= CPU_POLL_S + step
