"""An interactive program's wall-clock limit does not count the time the judge's side takes to answer it.

The program waits (blocked, not runnable) while its peer computes and while the judge's proxy passes each
message on; on a loaded machine both take longer, and that time must not turn into a TLE (the monitor's
deadline moves on by it: runner/monitor.py, ``Launch.kept_waiting``). Problem `memory`'s
protocol_violation/forgetful.py (1000 round trips, 0.02 s of its own CPU) was a TLE instead of PV once the
judge's process was starved of CPU (issue 50's open question; docs/benchmarks.md).

Here the judge's side is made slow by CPU work (a peer, or the proxy's thread, that computes before each
answer), not by timing: the program needs far less than its wall limit, its peer and the proxy far more.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from judge.runner import Runner
from judge.runner import interactive as interactive_module
from judge.runner.spec import LimitHit, Limits, Mount, RunSpec, WarmStart

PY = "/usr/bin/python3"  # world-readable, so it runs on every backend
QUESTIONS = 6
WORK_S = 0.3  # CPU per answer: 1.8 s in all, against the program's wall limit of 1 s
PROGRAM_LIMITS = Limits(time_s=1, wall_time_s=1.0)
PEER_LIMITS = Limits(time_s=30, wall_time_s=60)

ASKS = f"""
import sys
for i in range({QUESTIONS}):
    print(i, flush=True)
    if sys.stdin.readline().strip() != str(i):
        sys.exit(3)
"""
ASKS_THEN_SLEEPS = ASKS + "import time\ntime.sleep(60)\n"
PEER = f"""
import sys, time
slow = sys.argv[1] == "slow"
for i in range({QUESTIONS}):
    line = sys.stdin.readline()
    end = time.thread_time() + {WORK_S}
    while slow and time.thread_time() < end:
        pass
    sys.stdout.write(line)
    sys.stdout.flush()
sys.exit(42 if not sys.stdin.read() else 43)
"""


def _specs(tmp_path: Path, program: str, peer_mode: str, warm: bool = False) -> tuple[RunSpec, RunSpec]:
    """The program and its peer (forked from a warm interpreter with ``warm``, as a package's validator)."""
    box, peer_box = tmp_path / "box", tmp_path / "peer"
    box.mkdir()
    peer_box.mkdir()
    (box / "prog.py").write_text(program)
    (peer_box / "peer.py").write_text(PEER)
    prog = RunSpec(argv=(PY, "-S", "prog.py"), box=box, limits=PROGRAM_LIMITS, mounts=(Mount(Path("/usr")),))
    peer = RunSpec(
        argv=(sys.executable, str(peer_box / "peer.py"), peer_mode),
        box=peer_box,
        limits=PEER_LIMITS,
        trusted=True,
        warm=WarmStart(key=str(tmp_path)) if warm else None,
    )
    return prog, peer


@pytest.fixture
def slow_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proxy's thread computes WORK_S of its own CPU before it passes each answer on to the program."""
    write = interactive_module.Proxy._write

    def slow_write(self: interactive_module.Proxy, idx: int) -> None:
        if idx == 1:
            end = time.thread_time() + WORK_S
            while time.thread_time() < end:
                pass
        write(self, idx)

    monkeypatch.setattr(interactive_module.Proxy, "_write", slow_write)


@pytest.mark.parametrize("warm", [False, True], ids=["fresh", "warm"])
def test_a_peer_that_computes_is_not_counted_against_the_programs_wall_limit(
    sandbox_runner: Runner, tmp_path: Path, warm: bool
) -> None:
    program, peer = _specs(tmp_path, ASKS, "slow", warm)
    res = sandbox_runner.run_interactive(program, peer, None, peer_rejects=43)
    assert (res.program.exit_code, res.peer.exit_code) == (0, 42), res
    assert res.program.limit_hit is None and res.peer.limit_hit is None, res
    if warm:  # the peer was a fork of its warm server (not the fresh interpreter it falls back to)
        servers = sandbox_runner._backend.warm  # type: ignore[attr-defined]
        assert [s for s in servers.servers() if str(peer.argv[1]) in s.proc.args], servers.cold()


def test_a_proxy_that_is_slow_is_not_counted_against_the_programs_wall_limit(
    sandbox_runner: Runner, tmp_path: Path, slow_proxy: None
) -> None:
    program, peer = _specs(tmp_path, ASKS, "quick")
    res = sandbox_runner.run_interactive(program, peer, None, peer_rejects=43)
    assert (res.program.exit_code, res.peer.exit_code) == (0, 42), res
    assert res.program.limit_hit is None, res


def test_a_program_that_then_sleeps_is_still_ended_by_its_wall_limit(sandbox_runner: Runner, tmp_path: Path) -> None:
    """What the peer took is not a licence to sleep: the program's own waiting still counts."""
    program, peer = _specs(tmp_path, ASKS_THEN_SLEEPS, "slow")
    res = sandbox_runner.run_interactive(program, peer, None, peer_rejects=43)
    assert res.program.limit_hit is LimitHit.WALL_TIME, res
