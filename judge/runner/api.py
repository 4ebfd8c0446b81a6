"""The sandboxed runner: ``SandboxRunner`` (a ``Runner``, protocol.py) and ``make_runner``, which picks its backend."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from judge.runner.bwrap import find_bwrap, layout
from judge.runner.cgroup import CgroupTree, cgroup_tree
from judge.runner.config import RunnerConfig
from judge.runner.helper import HelperUnavailable, helper_path
from judge.runner.interactive import run_interactive
from judge.runner.launch import STDERR_TAIL, Backend, Launch, Plumbing
from judge.runner.monitor import monitor
from judge.runner.netns import make_netns
from judge.runner.osutil import not_world_accessible
from judge.runner.plumbing import error_result, file_size, open_io
from judge.runner.protocol import SandboxInfo
from judge.runner.slots import SlotPool
from judge.runner.spec import InteractiveResult, Limits, RunResult, RunSpec
from judge.runner.warm import WarmServers
from judge.runner.workdirs import sweep_stale

NO_ISOLATION_WARNING = (
    "NO SANDBOX: bubblewrap namespaces are not available here; programs run with rlimits and a separate "
    "uid only - they can read the file system (problem data, reference solutions, other submissions)"
)
NO_NETWORK_WARNING = "and they can use the network (no network namespace either)"


class SandboxRunner:
    """Runs programs in the sandbox (a ``Runner``, see protocol.py for the contract); thread-safe (every run
    takes its own uid slot and cgroup).

    It owns its slot pool (and the slots' servers) and its cgroup tree: ``close()`` (or ``with``)
    releases them; a runner that is dropped is closed when it is garbage-collected."""

    def __init__(
        self,
        backend: Backend | None,
        tree: CgroupTree | None,
        info: SandboxInfo,
        pool: SlotPool,
        config: RunnerConfig | None = None,
        *,
        owns_pool: bool = True,
    ):
        self._backend = backend
        self._tree = tree
        self._pool = pool
        self.info = info
        self.config = config or RunnerConfig()
        warm = backend.warm if backend is not None and owns_pool else None
        self._finalizer = weakref.finalize(self, _closer(pool, warm) if owns_pool else _nothing)

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> SandboxRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def held_uids(self) -> tuple[int, ...]:
        """The sandbox uids this runner holds (for checks that nothing of them survived a run)."""
        return self._pool.held_uids()

    @property
    def can_run(self) -> bool:
        return self._backend is not None

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.info.warnings

    # -- batch ----------------------------------------------------------------------
    def run(
        self,
        spec: RunSpec,
        *,
        on_start: Callable[[], object] | None = None,
        on_end: Callable[[], object] | None = None,
    ) -> RunResult:
        """Run ``spec`` to its end. ``on_start`` is called once the program has been started (not when
        it could not be); ``on_end`` once it has ended (or was killed), before its result is collected."""
        with ExitStack() as stack:
            try:
                io = open_io(spec, stack)
            except OSError as exc:
                return error_result(f"cannot open the run's files: {exc}")
            if self._backend is None:
                return error_result("; ".join(self.info.warnings) or "no way to run programs here")
            launch = self.prepare(spec, io, stack)
            launch.start()
            if on_start is not None:
                on_start()
            monitor([launch], on_exit=None if on_end is None else lambda _launch: on_end())
            return self.collect(launch, spec, io)

    # -- building blocks (also used by run_interactive) -------------------------------
    def prepare(self, spec: RunSpec, io: Plumbing, stack: ExitStack) -> Launch:
        """A launch of ``spec`` (not started yet), with a uid slot (given back when ``stack`` closes) and
        its cgroup when the run is untrusted."""
        assert self._backend is not None
        slot = group = None
        if not spec.trusted:
            pool = self._pool
            slot = pool.take()
            stack.callback(pool.give_back, slot)
            if self._tree is not None:
                group = self._tree.group(slot.index)
        return Launch(spec=spec, backend=self._backend, io=io, slot=slot, group=group)

    def collect(self, launch: Launch, spec: RunSpec, io: Plumbing, stdout_bytes: int | None = None) -> RunResult:
        """The result of a launch that has ended (stdout's size from its file unless given); stderr is cut
        to its limit."""
        if stdout_bytes is None:
            stdout_bytes = file_size(io.stdout)
        stderr_bytes = file_size(io.stderr)
        tail = b""
        if spec.stderr is not None and stderr_bytes > 0:
            tail = os.pread(io.stderr, STDERR_TAIL, max(0, min(stderr_bytes, spec.limits.stderr_bytes) - STDERR_TAIL))
        result = launch.result(stdout_bytes, stderr_bytes, tail)
        if spec.stderr is not None and stderr_bytes > spec.limits.stderr_bytes:
            try:
                os.ftruncate(io.stderr, spec.limits.stderr_bytes)
            except OSError:
                pass
        return result

    def run_interactive(
        self, program: RunSpec, peer: RunSpec, transcript: Path | None = None, *, peer_rejects: int | None = None
    ) -> InteractiveResult:
        """Run ``program`` and ``peer`` with crossed pipes (interactive.py)."""
        return run_interactive(self, program, peer, transcript, peer_rejects=peer_rejects)

    def with_niceness(self, niceness: int) -> SandboxRunner:
        """The same sandbox (its slots, servers and cgroup tree, owned by this runner) whose runs start at
        ``niceness`` (0..19): `judge serve` fuzzes with one nicer than it judges (docs/live-fuzzing.md)."""
        config = replace(self.config, niceness=niceness)  # checks the range
        backend = None if self._backend is None else replace(self._backend, niceness=niceness)
        return SandboxRunner(backend, self._tree, self.info, self._pool, config, owns_pool=False)

    def start_paths(self) -> tuple[tuple[str, SandboxRunner], ...]:
        """Every way this runner may start an untrusted run, each as a runner that takes only that
        way (for self-tests): the box server also falls back to bwrap per run (runs that need the
        network, a cgroup v2 group per run, or a request too big for the server)."""
        backend = self._backend
        if backend is None:
            return ()
        if backend.name != "bwrap":
            return (("launcher (rlimits)", self),)
        if not backend.box_server:
            return (("bwrap per run", self),)
        per_run = SandboxRunner(
            replace(backend, box_server=False), self._tree, self.info, self._pool, self.config, owns_pool=False
        )
        return (("box server", self), ("bwrap per run", per_run))


def _nothing() -> None:
    pass


def _closer(pool: SlotPool, warm: WarmServers | None) -> Callable[[], None]:
    """What closing a runner releases: its slots (and their servers) and its warm servers."""

    def close() -> None:
        if warm is not None:
            warm.close()
        pool.close()

    return close


def _bwrap_version(bwrap: str) -> str:
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return out.strip().split()[-1] if out.strip() else "?"


def _self_test(runner: SandboxRunner) -> str | None:
    """Run a shell in the sandbox (it must be pid 2: the launcher is pid 1); None if it worked, else why not."""
    with tempfile.TemporaryDirectory(prefix="judge-selftest-") as d:
        box = Path(d)
        argv = ("/bin/sh", "-c", "[ $$ = 2 ] && exit 7")
        res = runner.run(RunSpec(argv=argv, box=box, limits=Limits(time_s=5, wall_time_s=10)))
    if res.sandbox_error is not None:
        return res.sandbox_error
    if res.exit_code != 7:
        return f"self-test: expected exit status 7, got {res}"
    return None


@dataclass(frozen=True)
class _Host:
    """What ``make_runner`` found out about this machine, for whichever backend it picks."""

    config: RunnerConfig
    pool: SlotPool
    helper: Path
    tree: CgroupTree | None
    rlimits: Backend  # the fallback backend; the bwrap one is made from it
    warnings: tuple[str, ...]

    @property
    def enforced(self) -> tuple[str, ...]:
        """The limits both backends enforce here."""
        mem = "memory (cgroup, exact OOM detection)" if self.tree is not None else "memory (RLIMIT_AS + peak RSS)"
        return ("cpu_time", "wall_time", "output", "processes", "separate_uid", "kill_tree", mem)

    @property
    def cgroup(self) -> str | None:
        return self.tree.description if self.tree is not None else None

    @property
    def uid_range(self) -> str:
        return f"{self.config.uid_base}..{self.config.uid_base + self.config.max_slots - 1}"

    def runner(self, backend: Backend, info: SandboxInfo, *, owns_pool: bool = True) -> SandboxRunner:
        return SandboxRunner(backend, self.tree, info, self.pool, self.config, owns_pool=owns_pool)

    def unable(self, why: str) -> SandboxRunner:
        """A runner that runs nothing, and says ``why`` (after the warnings so far)."""
        return SandboxRunner(None, None, SandboxInfo("none", (), (*self.warnings, why)), self.pool, self.config)


def make_runner(config: RunnerConfig | str = "auto") -> SandboxRunner:
    """A runner for ``config`` (a plain ``"auto"``, ``"bwrap"`` or ``"rlimits"``: that sandbox, the
    other settings at their defaults). ``auto``: bwrap when its self-test passes here, else rlimits."""
    if isinstance(config, str):
        config = RunnerConfig(sandbox=config)
    sweep_stale(config.sweep_dirs)  # the folders of judges killed mid-judgement (runner/workdirs.py)
    pool = SlotPool(config.slot_dir, config.uid_base, config.max_slots)
    warnings: tuple[str, ...] = ()
    if os.geteuid() != 0:
        warnings = ("the judge is not running as root: cannot switch to sandbox uids, so nothing can run",)
    try:
        helper = helper_path(config.cache_dir)
    except HelperUnavailable as exc:
        info = SandboxInfo(backend="none", enforced=(), warnings=(*warnings, str(exc)))
        return SandboxRunner(None, None, info, pool, config)
    host = _host(config, pool, helper, warnings)
    bwrap = find_bwrap(config.bwrap)
    if config.sandbox in ("auto", "bwrap"):
        found = "bwrap not found (install bubblewrap)" if bwrap is None else _bwrap_runner(host, bwrap)
        if isinstance(found, SandboxRunner):
            return found
        if config.sandbox == "bwrap":
            return host.unable(found)
        if bwrap is not None:
            host = replace(host, warnings=(*host.warnings, found))
    return _rlimits_runner(host)


def _host(config: RunnerConfig, pool: SlotPool, helper: Path, warnings: tuple[str, ...]) -> _Host:
    """The cgroup tree (when ``config.cgroups``) and the rlimits backend, with the warnings so far."""
    tree = cgroup_tree() if config.cgroups else None
    if tree is None:
        warnings = (*warnings, "no writable cgroup: memory is limited by RLIMIT_AS (MLE detection is heuristic)")
    rlimits = Backend(
        "rlimits",
        helper,
        fork_server=config.fork_server,
        trusted_env=config.trusted_env,
        niceness=config.niceness,
        warm=WarmServers() if config.warm else None,
    )
    return _Host(config, pool, helper, tree, rlimits, warnings)


def _bwrap_runner(host: _Host, bwrap: str) -> SandboxRunner | str:
    """The bwrap runner, with the box server when it works here (else bwrap per run, saying why); or why
    bwrap does not work here (its self-test failed)."""
    info = SandboxInfo(
        backend="bwrap",
        enforced=(*host.enforced, "no_network", "filesystem_isolation", "pid_namespace"),
        warnings=host.warnings,
        bwrap=f"{bwrap} {_bwrap_version(bwrap)}",
        cgroup=host.cgroup,
        uid_range=host.uid_range,
        helper=str(host.helper),
    )
    slow = replace(host.rlimits, name="bwrap", bwrap=bwrap, layout=layout(host.helper, realtime=host.config.realtime))
    problem = _self_test(host.runner(slow, info, owns_pool=False))
    if problem is not None:
        return f"bwrap does not work here: {problem}"
    fast = replace(slow, box_server=True)
    fast_problem: str | None = "disabled (JUDGE_NO_BOX_SERVER)"
    if host.config.box_server:
        fast_problem = _self_test(host.runner(fast, info, owns_pool=False))
    if fast_problem is None:
        return host.runner(fast, replace(info, mode="box server"))
    return host.runner(slow, replace(info, mode=f"bwrap per run (box server: {fast_problem})"))


def _rlimits_runner(host: _Host) -> SandboxRunner:
    """The fallback: rlimits and a separate uid, no namespaces (loudly)."""
    try:
        os.close(make_netns(host.helper))
        net: tuple[str, ...] = ("no_network",)
        loud = NO_ISOLATION_WARNING
    except OSError:
        net = ()
        loud = f"{NO_ISOLATION_WARNING}, {NO_NETWORK_WARNING}"
    warnings = host.warnings
    blocked = not_world_accessible(Path(sys.base_prefix).resolve())
    if blocked is not None:
        warnings += (
            f"the judge's Python ({Path(sys.base_prefix).resolve()}) is not reachable for the sandbox uids "
            f"without namespaces: Python programs will end in a judge error (chmod o+x {blocked})",
        )
    info = SandboxInfo(
        backend="rlimits",
        enforced=(*host.enforced, *net),
        warnings=(loud, *warnings),
        bwrap=None,
        cgroup=host.cgroup,
        uid_range=host.uid_range,
        helper=str(host.helper),
        mode="launcher",
    )
    return host.runner(host.rlimits, info)
