"""The runner's configuration: built once, at the edge (the command line, a server's start), and passed in.

Nothing below reads the environment: ``RunnerConfig.from_environ`` is the one place where the judge's
``JUDGE_*`` switches become settings, and only the command layer calls it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

SANDBOXES = ("auto", "bwrap", "rlimits")


def default_cache_dir(environ: Mapping[str, str]) -> Path:
    """``$JUDGE_CACHE_DIR``, else ``$XDG_CACHE_HOME/judge``, else ``~/.cache/judge``."""
    if environ.get("JUDGE_CACHE_DIR"):
        return Path(environ["JUDGE_CACHE_DIR"])
    xdg = environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path(environ.get("HOME") or Path.home()) / ".cache") / "judge"


def default_slot_dir() -> Path:
    return Path("/run/judge/slots" if os.geteuid() == 0 else "/tmp/judge-slots")


def tmpfs_scratch(candidate: Path = Path("/dev/shm")) -> Path | None:
    """``candidate`` when it is a writable folder on a tmpfs (the default scratch of judging: docs/sandbox.md,
    "The judge's scratch"), else None."""
    try:
        with open("/proc/self/mounts") as f:
            tmpfs = any(line.split()[1:3] == [str(candidate), "tmpfs"] for line in f if len(line.split()) >= 3)
    except OSError:
        return None
    return candidate if tmpfs and os.access(candidate, os.W_OK | os.X_OK) else None


@dataclass(frozen=True)
class RunnerConfig:
    """How the runner starts programs on this machine (see docs/sandbox.md)."""

    sandbox: str = "auto"  # "auto" (bwrap when its self-test passes, else rlimits), "bwrap" or "rlimits"
    box_server: bool = True  # the per-slot box server (bwrap); False: bwrap per run
    fork_server: bool = True  # the per-slot fork server (rlimits, bwrap per run)
    realtime: bool = True  # the box server's helpers (never the program) run SCHED_FIFO
    cgroups: bool = True  # use a writable cgroup tree when there is one
    bwrap: str | None = None  # bubblewrap's path (None: "bwrap" on PATH)
    uid_base: int = 60000  # slot n runs as uid uid_base + n
    max_slots: int = 256
    slot_dir: Path = field(default_factory=default_slot_dir)  # the slots' lock files (shared by all judges)
    cache_dir: Path = field(default_factory=lambda: default_cache_dir({}))  # the launcher, /dev for boxes
    # the environment of trusted runs (the package's validators): the judge's own, as it started
    trusted_env: tuple[tuple[str, str], ...] = ()
    # the nice value of every run (programs, compilers, validators): 0..19. `judge serve` runs them at 10
    # so that judging yields the CPU to the web server (verdicts count CPU time, never time spent waiting)
    niceness: int = 0
    # the package's Python programs that run once per test (validators) start forked from a warm interpreter
    # that has loaded their imports (runner/warm.py); False: a new interpreter per run (JUDGE_NO_WARM=1)
    warm: bool = True
    # where judging keeps what only the judge and the package's programs write per test (validators' feedback
    # and logs, the tests' folders): a tmpfs, or None for the system's temporary folder; never the contestant's
    # program's own files (docs/sandbox.md, "The judge's scratch"). JUDGE_SCRATCH_DIR, JUDGE_NO_SCRATCH=1
    scratch_dir: Path | None = None
    # where the folders of judges that are gone (killed mid-judgement) are removed when a runner is made
    # (runner/workdirs.py; docs/sandbox.md, "Folders left behind"): the system's temporary folder and the scratch
    # of a judge started from the command line or a worker; none by default (a runner a test makes sweeps nothing)
    sweep_dirs: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        if self.sandbox not in SANDBOXES:
            raise ValueError(f"unknown sandbox backend {self.sandbox!r} ({', '.join(SANDBOXES)})")
        if not 0 <= self.niceness <= 19:
            raise ValueError(f"the runs' nice value must be 0..19, not {self.niceness}")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], *, sandbox: str | None = None) -> RunnerConfig:
        """The settings of a judge started with this environment (``sandbox`` overrides JUDGE_SANDBOX)."""

        def number(name: str, default: int) -> int:
            try:
                return int(environ.get(name, default))
            except ValueError:
                raise ValueError(f"{name} must be a number, not {environ[name]!r}") from None

        scratch = _scratch(environ)
        return cls(
            sandbox=sandbox or environ.get("JUDGE_SANDBOX") or "auto",
            box_server=not environ.get("JUDGE_NO_BOX_SERVER"),
            fork_server=not environ.get("JUDGE_NO_FORK_SERVER"),
            realtime=not environ.get("JUDGE_BOX_NO_RT"),
            cgroups=not environ.get("JUDGE_NO_CGROUP"),
            bwrap=environ.get("JUDGE_BWRAP") or None,
            uid_base=number("JUDGE_UID_BASE", 60000),
            max_slots=number("JUDGE_MAX_SLOTS", 256),
            slot_dir=Path(environ["JUDGE_SLOT_DIR"]) if environ.get("JUDGE_SLOT_DIR") else default_slot_dir(),
            cache_dir=default_cache_dir(environ),
            trusted_env=tuple(sorted(environ.items())),
            warm=not environ.get("JUDGE_NO_WARM"),
            scratch_dir=scratch,
            # where mkdtemp puts the judge's folders (TMPDIR...: tempfile reads the process's environment)
            sweep_dirs=tuple(dict.fromkeys(d for d in (Path(tempfile.gettempdir()), scratch) if d is not None)),
        )


def _scratch(environ: Mapping[str, str]) -> Path | None:
    """JUDGE_SCRATCH_DIR (a folder, made if need be), else /dev/shm when it is a tmpfs; None with
    JUDGE_NO_SCRATCH=1."""
    if environ.get("JUDGE_NO_SCRATCH"):
        return None
    given = environ.get("JUDGE_SCRATCH_DIR")
    if not given:
        return tmpfs_scratch()
    try:
        Path(given).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"JUDGE_SCRATCH_DIR: cannot make {given}: {exc.strerror}") from None
    if not os.access(given, os.W_OK | os.X_OK):
        raise ValueError(f"JUDGE_SCRATCH_DIR: {given} is not a folder the judge can write")
    return Path(given)
