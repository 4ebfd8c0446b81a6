"""The runner: the only part of the judge that starts processes.

Contract (everything else in the judge relies on exactly this):

- ``make_runner(config: RunnerConfig) -> SandboxRunner``: the sandbox ``config.sandbox``,
  ``"bwrap"`` (namespace sandbox), ``"rlimits"`` (fallback: rlimits + process-tree
  kill only) or ``"auto"`` (bwrap when it works here, else rlimits with a loud
  warning). ``RunnerConfig`` is built once by the command layer
  (``RunnerConfig.from_environ``); nothing here reads the environment. The runner
  owns its uid slots, their servers and its cgroup tree until ``close()``.
- ``Runner`` (protocol.py): what the rest of the judge uses of a runner (``run``,
  ``run_interactive``, ``info``, ``start_paths``, ``close``), with their contract;
  ``SandboxRunner`` (api.py) and the tests' ``FakeRunner`` satisfy it.
- The records a run takes and gives (spec.py): ``RunSpec``, ``Limits``, ``Mount``,
  ``RunResult``, ``LimitHit``, ``InteractiveResult``.

Importing this package needs only the standard library (``.ci/setup`` imports the
language table before the judge's dependencies are installed): the sandboxed runner
(api.py, which needs psutil) is imported when ``make_runner`` is first called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.runner.config import RunnerConfig
from judge.runner.protocol import Runner, SandboxInfo
from judge.runner.spec import InteractiveResult, LimitHit, Limits, Mount, RunResult, RunSpec

if TYPE_CHECKING:
    from judge.runner.api import SandboxRunner

__all__ = [
    "InteractiveResult",
    "LimitHit",
    "Limits",
    "Mount",
    "RunResult",
    "RunSpec",
    "Runner",
    "RunnerConfig",
    "SandboxInfo",
    "make_runner",
]


def make_runner(config: RunnerConfig | str = "auto") -> SandboxRunner:
    """The sandboxed runner for ``config`` (see ``judge.runner.api.make_runner``); imports it on first use."""
    from judge.runner import api  # psutil and the launcher's machinery: only once a runner is made

    return api.make_runner(config)
