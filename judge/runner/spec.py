"""What a run is and what it gives: the runner's frozen records (its whole vocabulary; no verdicts here).

Units are in the names: ``time_s``, ``memory_kib``, ``output_bytes``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

# PATH inside the sandbox (and where languages' tools are looked up: what the sandbox can see).
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


class LimitHit(StrEnum):
    """Which limit ended a run (at most one is reported: the first that applied)."""

    CPU_TIME = "cpu_time"
    WALL_TIME = "wall_time"
    MEMORY = "memory"
    OUTPUT = "output"
    PROCESSES = "processes"


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run."""

    time_s: float = 1.0  # CPU time (user+sys) of the whole process tree
    wall_time_s: float = 3.0  # real time; the whole tree is killed after it
    memory_kib: int = 1024 * 1024  # peak memory (address space or RSS, see the runner)
    processes: int = 1  # processes + threads the program may have at once (besides itself: 1 = no fork)
    output_bytes: int = 64 * 1024 * 1024  # stdout, and the size of any file it writes
    stderr_bytes: int = 1024 * 1024  # stderr is truncated here (not a verdict)
    open_files: int = 64
    stack_kib: int | None = None  # None: unlimited where the cgroup or RLIMIT_AS bounds memory, else memory_kib


@dataclass(frozen=True)
class Mount:
    """A host path made visible inside the sandbox (read-only unless ``writable``)."""

    source: Path
    target: Path | None = None  # None = same path inside
    writable: bool = False


@dataclass(frozen=True)
class WarmStart:
    """A trusted run that may start forked from a warm interpreter (runner/warm.py) instead of a new one.

    ``argv[:script]`` is the interpreter (the judge's own CPython) and its options, ``argv[script]`` the
    program's file, the rest its arguments; the language table says which programs qualify
    (``trusted_warm``). ``key`` is the program's version (its package's hash): another key, another warm
    interpreter. The runner honours it only for trusted runs, and only when its configuration has warm
    starts on (``RunnerConfig.warm``); anything it cannot do warm runs the usual way."""

    script: int = 1
    key: str = ""


@dataclass(frozen=True)
class RunSpec:
    """What to run, where, with which limits.

    ``box`` is a host directory that becomes the program's private working
    directory (inside the sandbox it is mounted at ``/box``; ``argv`` paths
    relative to it work in both backends). ``stdin`` / ``stdout`` / ``stderr``
    are host files (None: /dev/null for stdin, discard for the others).
    ``trusted`` runs are the package's own programs (validators, generators):
    they keep the host filesystem and the judge's uid but still get limits,
    a process-tree kill and a wall-clock timeout.
    """

    argv: tuple[str, ...]
    box: Path
    limits: Limits
    stdin: Path | None = None
    stdout: Path | None = None
    stderr: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    mounts: tuple[Mount, ...] = ()
    trusted: bool = False
    network: bool = False  # never True for contestants
    # False for runtimes that reserve far more address space than they use (the JVM):
    # then memory is limited by the cgroup / measured RSS only.
    address_space_limit: bool = True
    # False: the program may read its working directory but not create, change or delete files there
    # (the package format's ``allow_file_writing: false``); HOME and TMPDIR stay writable (/tmp).
    box_writable: bool = True
    # a package's program that may start from a warm interpreter (trusted runs only; see WarmStart)
    warm: WarmStart | None = None


@dataclass(frozen=True)
class RunResult:
    """What happened in one run. Mirrors isolate's meta file."""

    exit_code: int | None  # None when killed by a signal
    signal: int | None  # the terminating signal, if any
    cpu_time_s: float
    wall_time_s: float
    memory_kib: int  # peak
    stdout_bytes: int  # bytes the program wrote to stdout (may exceed what was kept)
    stderr_bytes: int
    limit_hit: LimitHit | None = None
    sandbox_error: str | None = None  # the runner's own failure: a JE, never the program's fault

    @property
    def ok(self) -> bool:
        """Exited normally with status 0 and hit no limit."""
        return self.sandbox_error is None and self.limit_hit is None and self.signal is None and self.exit_code == 0

    @property
    def exited(self) -> bool:
        """Exited normally (any status) and hit no limit."""
        return self.sandbox_error is None and self.limit_hit is None and self.signal is None


@dataclass(frozen=True)
class InteractiveResult:
    """Two processes run with crossed pipes: the program and its peer (the oracle)."""

    program: RunResult
    peer: RunResult
    # the peer (validator) was first: it rejected while the program's output had not ended, or its own output
    # ended before the program's and no limit ended the program. What one thread saw, in causal order
    # (runner/interactive.py), never two clocks compared
    peer_first: bool
