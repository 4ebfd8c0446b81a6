"""The runner: the only part of the judge that starts processes.

Contract (everything else in the judge relies on exactly this):

- ``make_runner(config: RunnerConfig) -> Runner``: the sandbox ``config.sandbox``,
  ``"bwrap"`` (namespace sandbox), ``"rlimits"`` (fallback: rlimits + process-tree
  kill only) or ``"auto"`` (bwrap when it works here, else rlimits with a loud
  warning). ``RunnerConfig`` is built once by the command layer
  (``RunnerConfig.from_environ``); nothing here reads the environment. The runner
  owns its uid slots, their servers and its cgroup tree until ``close()``.
- ``Runner.run(spec: RunSpec) -> RunResult``: runs ``spec.argv`` with cwd =
  the box, the limits in ``spec.limits``; never raises for anything the
  program does; the runner's own failures come back as ``sandbox_error``.
  Every process the program started is dead when it returns.
- ``Runner.run_interactive(program, peer, transcript=None) -> InteractiveResult``:
  the program's stdout is the peer's stdin and vice versa (their own
  stdin/stdout fields are ignored; stderr fields are honoured). When
  ``transcript`` is a path, the traffic is recorded there, one line per
  message, prefixed ``> `` (program to peer) or ``< `` (peer to program),
  capped at 64 KiB.
- ``Runner.info -> SandboxInfo``: backend name, what it enforces, warnings.
"""

from judge.runner.api import Runner, SandboxInfo, make_runner
from judge.runner.config import RunnerConfig

__all__ = ["Runner", "RunnerConfig", "SandboxInfo", "make_runner"]
