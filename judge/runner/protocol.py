"""What the rest of the judge may use of a runner: the ``Runner`` Protocol and the ``SandboxInfo`` it reports.

The sandboxed runner (``SandboxRunner``, api.py) and the tests' scripted one (tests/fakes.py) both satisfy
it; code outside judge/runner annotates with ``Runner`` and uses nothing else of a runner. Importing this
module starts nothing and needs nothing beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from judge.runner.spec import InteractiveResult, RunResult, RunSpec


@dataclass(frozen=True)
class SandboxInfo:
    """What the runner can guarantee here (for ``judge doctor`` and report headers)."""

    backend: str  # "bwrap" or "rlimits" (or "none" when nothing can run)
    enforced: tuple[str, ...]  # limits it enforces
    warnings: tuple[str, ...] = ()
    bwrap: str | None = None  # path and version
    cgroup: str | None = None  # "cgroup v1 (...)" or None
    uid_range: str = ""
    helper: str | None = None
    # how sandboxed runs start: "box server" (bwrap backend, namespaces prepared once per slot),
    # "bwrap per run" (with the reason when the box server does not work here), "launcher" (rlimits)
    mode: str = ""

    @property
    def isolated(self) -> bool:
        return self.backend == "bwrap"


class Runner(Protocol):
    """Runs programs for the judge; thread-safe (runs may be made from many threads at once).

    A runner owns what it needs to run programs (uid slots, their servers, a cgroup tree) until
    ``close()``; ``make_runner`` (``judge.runner``) builds the sandboxed one."""

    @property
    def info(self) -> SandboxInfo:
        """Backend name, what it enforces, warnings."""
        ...

    def run(
        self,
        spec: RunSpec,
        *,
        on_start: Callable[[], object] | None = None,
        on_end: Callable[[], object] | None = None,
    ) -> RunResult:
        """Run ``spec.argv`` with cwd = the box and the limits in ``spec.limits``, to its end.

        Never raises for anything the program does; the runner's own failures come back as
        ``sandbox_error``. Every process the program started is dead when it returns. ``on_start`` is
        called once the program has been started (not when it could not be); ``on_end`` once it has
        ended (or was killed), before its result is collected."""
        ...

    def run_interactive(
        self, program: RunSpec, peer: RunSpec, transcript: Path | None = None, *, peer_rejects: int | None = None
    ) -> InteractiveResult:
        """Run ``program`` and ``peer`` together: the program's stdout is the peer's stdin and vice versa
        (their own stdin/stdout fields are ignored; stderr fields are honoured).

        When ``transcript`` is a path, the traffic is recorded there, one line per message, prefixed
        ``> `` (program to peer) or ``< `` (peer to program), capped at 64 KiB. ``peer_first`` of the
        result: the peer exited with ``peer_rejects`` while the program's output had not ended (the program
        is then stopped at once), or the peer's output ended before the program's and no limit ended the
        program (interactive.py)."""
        ...

    def start_paths(self) -> tuple[tuple[str, Runner], ...]:
        """Every way this runner may start an untrusted run, each named, as a runner that takes only
        that way (for the sandbox self-test); empty when nothing can run here."""
        ...

    def close(self) -> None:
        """Release what the runner owns (its uid slots and their servers); called once it is no longer needed."""
        ...
