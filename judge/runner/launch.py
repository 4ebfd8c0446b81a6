"""One running program: spawn it under the launcher, follow its status, kill it, collect its result.

Three ways to start (all through the C launcher, all with ``posix_spawn``/``vfork``,
never ``preexec_fn``):

- ``bwrap``: bwrap (root) makes the namespaces and mounts and execs the launcher
  as pid 1 of the new PID namespace; bwrap's ``--block-fd`` holds it until we
  have put it into the slot's cgroups (we learn its pid from ``--info-fd``).
- ``rlimits``: the launcher runs on the host; its child joins the cgroups itself.
- ``trusted``: the launcher runs on the host as the judge's uid, no cgroups.

In the first two the launcher's child drops to the slot's uid; its rlimits are set
there too. The launcher reports the exact wait status and rusage on a pipe.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from judge.model import LimitHit, Limits, RunResult, RunSpec
from judge.runner.bwrap import BOX, HELPER_INSIDE, TMP_MIN_BYTES, box_server_layout, bwrap_argv
from judge.runner.cgroup import CgroupUsage, SlotGroup
from judge.runner.limits import Observed, classify, rlimit_args, rlimits
from judge.runner.mountfd import detached_mount
from judge.runner.netns import make_netns
from judge.runner.osutil import (
    anonymous_file,
    chown_tree,
    let_others_traverse,
    not_world_accessible,
    rmtree,
    send_signal,
    sweep_uid,
    wait_process,
)
from judge.runner.slots import Slot
from judge.runner.zygote import BoxServer, Zygote, ZygoteError, fits

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
TERM_GRACE_S = 0.5  # SIGTERM to the launcher, then SIGKILL
STDERR_TAIL = 4096


@dataclass
class Plumbing:
    """The three standard fds of the program (owned by the caller of Launch)."""

    stdin: int
    stdout: int
    stderr: int


@dataclass
class Backend:
    """How to start untrusted programs (shared, read-only)."""

    name: str  # "bwrap" or "rlimits"
    helper: Path
    bwrap: str | None = None
    tmp_root: Path = Path("/tmp")
    reuse_netns: bool = True  # join the slot's empty network namespace instead of making one per run
    fork_server: bool = not os.environ.get("JUDGE_NO_FORK_SERVER")  # start runs from the slot's fork server
    # bwrap backend: the per-slot box server (boxserver.c) instead of bwrap per run (make_runner decides)
    box_server: bool = False


def clean_env(spec: RunSpec, home: str, tmpdir: str) -> dict[str, str]:
    env = {"PATH": BASE_PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": tmpdir}
    env.update(spec.env)
    return env


@dataclass
class Launch:
    spec: RunSpec
    backend: Backend
    io: Plumbing
    slot: Slot | None = None
    group: SlotGroup | None = None
    # filled while running
    proc: subprocess.Popen[bytes] | None = None
    helper_pid: int | None = None
    status_fd: int = -1
    error_fd: int = -1
    started: float = 0.0
    deadline: float = 0.0
    next_cpu_poll: float = 0.0
    killed_for: LimitHit | None = None
    term_sent: float | None = None
    hard_killed: bool = False
    sandbox_error: str | None = None
    exit_status: int | None = None
    main_rusage: tuple[float, float, int] = (0.0, 0.0, 0)  # utime, stime, maxrss KiB
    all_rusage: tuple[float, float, int] = (0.0, 0.0, 0)
    helper_wall_s: float | None = None
    ended: float | None = None
    finished: bool = False  # launcher reported "done" (or is gone)
    last_cpu: float = 0.0
    _buf: bytes = b""
    _info_fd: int = -1
    _args_fd: int = -1
    _eof: bool = False
    pid: int | None = None  # what we started: the launcher, or bwrap
    via_zygote: bool = False
    via_box: bool = False  # started by the slot's box server (the fast path)
    _awaiting: Zygote | None = None  # the box server's reply (pid 1's pid) is read when needed
    _done: bool = False  # the launcher reported "done": its namespace is empty
    zexit: int | None = None  # its exit status, from the fork server
    _info: bytes = b""
    _inner: int | None = None
    _private_tmp: Path | None = None
    on_exit: list[Callable[[], None]] = field(default_factory=list)

    # -- start ----------------------------------------------------------------------
    def start(self) -> None:
        spec, limits = self.spec, self.spec.limits
        status_r, status_w = os.pipe()
        self.status_fd = status_r
        try:
            if spec.trusted:
                self._start_trusted(status_w)
            elif self.backend.name == "bwrap":
                self._start_bwrap(status_w)
            else:
                self._start_rlimits(status_w)
        except Exception as exc:  # the runner's own failure: never the program's
            self.sandbox_error = self.sandbox_error or f"cannot start: {exc}"
            self.finished = True
        finally:
            os.close(status_w)
        self.started = time.monotonic()
        self.deadline = self.started + limits.wall_time_s
        parallel = 1 if limits.processes <= 1 else (os.cpu_count() or 1)
        # CPU time cannot exceed the limit before this (no need to poll earlier).
        self.next_cpu_poll = self.started + max(0.005, limits.time_s / parallel)

    def _helper_common(self, status_w: int, *, nproc: int | None, address_space: bool) -> list[str]:
        items = rlimits(self.spec.limits, trusted=self.spec.trusted, address_space=address_space, nproc=nproc)
        return ["-s", str(status_w), "-e", str(self.io.stderr), *rlimit_args(items)]

    def _untrusted_limits(self) -> tuple[int | None, bool, int]:
        """(RLIMIT_NPROC, use RLIMIT_AS, pids.max) for an untrusted run."""
        limits = self.spec.limits
        has_cgroup = self.group is not None
        # bwrap: the pids cgroup is exact (so it trips first and tells us); rlimits: the group also
        # holds the launcher and, at the end, its killer, so the per-uid limit is the exact one.
        exact_pids = has_cgroup and self.backend.name == "bwrap"
        nproc = limits.processes + (1 if exact_pids else 0)
        address_space = self.spec.address_space_limit and not has_cgroup
        return nproc, address_space, limits.processes

    def _start_trusted(self, status_w: int) -> None:
        helper = self.backend.helper
        argv = [str(helper), "-p", *self._helper_common(status_w, nproc=None, address_space=False)]
        argv += ["--", *self.spec.argv]
        env = dict(os.environ)
        env.update(self.spec.env)
        self._spawn(argv, env, self.spec.box, (status_w,), None)
        self.helper_pid = self.pid

    def _fork_server(self, extra_pids: int) -> tuple[Zygote | None, list[Path]]:
        """Set the slot's cgroup limits; return the slot's fork server (made on first use) if
        it can be used, else None and the cgroup.procs files the new process must join.
        ``extra_pids``: processes in the group besides the program's, counting the fork server."""
        assert self.slot is not None
        usable = (
            self.backend.fork_server
            and not self.spec.network
            and (self.group is None or self.group.tree.version == 1)
            and fits((), self.spec.env)
        )
        if self.slot.boxer is not None:  # the box server's last pid 1 must not count against this run
            try:
                self.slot.boxer.sync()
            except ZygoteError:
                self.slot.boxer.close()
                self.slot.boxer = None
        procs: list[Path] = []
        if self.group is not None:
            # the slot's servers live in its group too (a fork server made now included)
            extra = extra_pids - 1 + self._residents(zygote=usable)
            procs = self.group.prepare(self.spec.limits.memory_kib * 1024, self.spec.limits.processes + extra)
        if not usable:
            return None, procs
        z = self.slot.zygote
        if z is None or not z.alive():
            if self.slot.netns_fd < 0 and self.backend.reuse_netns:
                try:
                    self.slot.netns_fd = make_netns(self.backend.helper)
                except OSError:
                    self.slot.netns_fd = -1
            z = self.slot.zygote = Zygote(self.backend.helper, procs, self.slot.netns_fd)
        return z, []

    def _residents(self, *, zygote: bool = False, box: bool = False) -> int:
        """How many of the slot's servers will be in its group (``zygote``/``box``: that one will be)."""
        assert self.slot is not None
        z, b = self.slot.zygote, self.slot.boxer
        return int(zygote or (z is not None and z.alive())) + int(box or (b is not None and b.alive()))

    def _start_rlimits(self, status_w: int) -> None:
        assert self.slot is not None
        nproc, address_space, _ = self._untrusted_limits()
        for m in self.spec.mounts:
            # No mount namespace here: the program sees host paths as they are.
            blocked = not_world_accessible(m.source)
            if blocked is not None:
                raise OSError(
                    f"rlimits backend (no namespaces): {m.source} is not reachable for the sandbox uid because "
                    f"{blocked} is not world-accessible (chmod o+x it, or use the bwrap backend)"
                )
        chown_tree(self.spec.box, self.slot.uid, self.slot.gid)
        let_others_traverse(self.spec.box)
        tmp = self.backend.tmp_root / f"judge-tmp-{self.slot.index}-{os.getpid()}"
        tmp.mkdir(mode=0o700, exist_ok=True)
        os.chown(tmp, self.slot.uid, self.slot.gid)
        self._private_tmp = tmp
        # in the group besides the program: the fork server, the launcher and (at the end) its killer
        zygote, procs = self._fork_server(extra_pids=3)
        argv = [str(self.backend.helper), "-k", "-u", str(self.slot.uid), "-g", str(self.slot.gid)]
        fds = [status_w]
        for p in procs:
            argv += ["-c", str(p)]
        if zygote is None and not self.spec.network and self.backend.reuse_netns:
            if self.slot.netns_fd < 0:
                try:
                    self.slot.netns_fd = make_netns(self.backend.helper)
                except OSError:
                    pass
            if self.slot.netns_fd >= 0:
                argv += ["-n", str(self.slot.netns_fd)]
                fds.append(self.slot.netns_fd)
        argv += self._helper_common(status_w, nproc=nproc, address_space=address_space)
        argv += self._program_argv(fds)
        env = clean_env(self.spec, str(self.spec.box), str(tmp))
        self._spawn(argv, env, self.spec.box, tuple(fds), zygote)
        self.helper_pid = self.pid

    def _start_box(self, status_w: int) -> bool:
        """The fast path: the slot's box server (made on first use) starts the run in fresh namespaces.
        False if there cannot be a box server here (the caller then starts bwrap)."""
        assert self.slot is not None
        layout = box_server_layout(self.backend.helper)
        if layout is None:
            return False
        nproc, address_space, _ = self._untrusted_limits()
        chown_tree(self.spec.box, self.slot.uid, self.slot.gid)
        procs: list[Path] = []
        if self.group is not None:  # in the group besides the program: the slot's servers and pid 1
            extra = self._residents(box=True) + 1
            procs = self.group.prepare(self.spec.limits.memory_kib * 1024, self.spec.limits.processes + extra)
        server = self.slot.boxer
        if server is None or not server.alive():
            self.slot.boxer = None
            if self.slot.netns_fd < 0:
                self.slot.netns_fd = make_netns(self.backend.helper)
            try:
                server = BoxServer(self.backend.helper, procs, self.slot.netns_fd, layout)
            except ZygoteError:
                return False
            self.slot.boxer = server
        trees: list[int] = []  # detached mounts: the box and the run's extra mounts
        try:
            trees.append(detached_mount(self.spec.box))
            argv = ["-x", str(trees[-1])]
            for m in self.spec.mounts:
                trees.append(detached_mount(m.source))
                target = m.target if m.target is not None else m.source
                argv += ["-m", f"{trees[-1]}:{'rw' if m.writable else 'ro'}:{target}"]
            fds = [status_w, *trees]
            argv += ["-t", str(max(self.spec.limits.output_bytes, TMP_MIN_BYTES))]
            argv += ["--", "-i", "-u", str(self.slot.uid), "-g", str(self.slot.gid)]
            argv += self._helper_common(status_w, nproc=nproc, address_space=address_space)
            argv += self._program_argv(fds)
            self._spawn(argv, clean_env(self.spec, BOX, "/tmp"), None, tuple(fds), server, wait=False)
        finally:
            for fd in trees:
                os.close(fd)
        self.via_box = True
        return True

    def _box_reply(self) -> None:
        """Read the box server's reply to our request (pid 1's pid), once."""
        server, self._awaiting = self._awaiting, None
        if server is None:
            return
        try:
            self.pid = self.helper_pid = server.reply()
        except ZygoteError as exc:
            assert self.slot is not None
            self.slot.boxer = None
            self.sandbox_error = self.sandbox_error or f"cannot start: {exc}"

    def _start_bwrap(self, status_w: int) -> None:
        """The slot's fork server (inside the slot's cgroups and empty network namespace) starts
        bwrap, which runs the helper as pid 1 of the new PID namespace. Without a fork server,
        ``helper -x`` joins the cgroups and the namespace and execs bwrap."""
        assert self.slot is not None and self.backend.bwrap is not None
        box_ok = self.group is None or self.group.tree.version == 1  # v2: a fresh group per run
        if self.backend.box_server and not self.spec.network and box_ok and fits((), self.spec.env):
            if self._start_box(status_w):
                return
        nproc, address_space, _ = self._untrusted_limits()
        chown_tree(self.spec.box, self.slot.uid, self.slot.gid)
        # in the group besides the program: the fork server, bwrap, and pid 1 (the helper)
        zygote, procs = self._fork_server(extra_pids=3)
        fds = [status_w]
        share_net = self.spec.network
        pre = [str(self.backend.helper), "-x"]
        if zygote is not None:
            share_net = share_net or self.slot.netns_fd >= 0  # the fork server joined the slot's one
        else:
            for p in procs:
                pre += ["-c", str(p)]
            if not share_net and self.backend.reuse_netns:
                if self.slot.netns_fd < 0:
                    self.slot.netns_fd = make_netns(self.backend.helper)
                pre += ["-n", str(self.slot.netns_fd)]
                fds.append(self.slot.netns_fd)
                share_net = True  # bwrap need not make one: we joined the slot's empty one
        info_r, info_w = os.pipe()
        self._info_fd = info_r
        os.set_blocking(info_r, False)
        fds.append(info_w)
        try:
            argv = bwrap_argv(
                self.backend.bwrap,
                helper=self.backend.helper,
                box=self.spec.box,
                mounts=self.spec.mounts,
                network=share_net,
                tmp_bytes=self.spec.limits.output_bytes,
                info_fd=info_w,
            )
            argv += [HELPER_INSIDE, "-i", "-u", str(self.slot.uid), "-g", str(self.slot.gid)]
            argv += self._helper_common(status_w, nproc=nproc, address_space=address_space)
            argv += self._program_argv(fds)
            if zygote is None and len(pre) > 2:
                argv = [*pre, "--", *argv]
            self._spawn(argv, clean_env(self.spec, BOX, "/tmp"), None, tuple(fds), zygote)
        finally:
            os.close(info_w)

    def _program_argv(self, fds: list[int]) -> list[str]:
        """``-- argv`` for the launcher, or, for long command lines (bwrap takes at most 9000
        arguments; the fork server's messages are 64 KiB), ``-A fd`` with argv in a file."""
        argv = self.spec.argv
        if len(argv) < 1000 and fits(argv, {}):
            return ["--", *argv]
        fd = anonymous_file()
        os.write(fd, b"".join(a.encode() + b"\0" for a in argv))
        os.lseek(fd, 0, os.SEEK_SET)
        self._args_fd = fd
        fds.append(fd)
        return ["-A", str(fd)]

    def _inner_pid(self) -> int | None:
        """The host pid of the helper that is pid 1 inside bwrap (from --info-fd)."""
        if self._inner is None and self._info_fd >= 0:
            try:
                self._info += os.read(self._info_fd, 4096)
            except (BlockingIOError, OSError):
                pass
            try:
                self._inner = int(json.loads(self._info)["child-pid"])
            except (ValueError, KeyError, TypeError):
                return None
        return self._inner

    def _spawn(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path | None,
        fds: tuple[int, ...],
        zygote: Zygote | None,
        wait: bool = True,
    ) -> None:
        """Start ``argv`` with the program's stdin/stdout on 0/1 and the extra ``fds`` (the first is
        the status pipe) under their own numbers; our (and bwrap's) stderr goes to a pipe we read
        for error messages. Through the slot's fork server if given, else posix_spawn (Popen)."""
        err_r, err_w = os.pipe()
        os.set_blocking(err_r, False)
        self.error_fd = err_r
        passed = (*fds, self.io.stderr)
        try:
            if zygote is not None:
                mapping = [(fds[0], fds[0]), (self.io.stdin, 0), (self.io.stdout, 1), (err_w, 2)]
                mapping += [(f, f) for f in passed[1:]]
                try:
                    if wait:
                        self.pid = zygote.spawn(argv, env, cwd, mapping)
                    else:
                        zygote.request(argv, env, cwd, mapping)
                        self._awaiting = zygote
                except ZygoteError:
                    assert self.slot is not None
                    if zygote is self.slot.boxer:
                        self.slot.boxer = None
                    else:
                        self.slot.zygote = None  # made afresh next time
                    raise
                self.via_zygote = True
            else:
                self.proc = subprocess.Popen(
                    argv,
                    stdin=self.io.stdin,
                    stdout=self.io.stdout,
                    stderr=err_w,
                    pass_fds=passed,
                    env=env,
                    cwd=cwd,
                    close_fds=True,
                )
                self.pid = self.proc.pid
        finally:
            os.close(err_w)
            if self._args_fd >= 0:
                os.close(self._args_fd)
                self._args_fd = -1

    def _bwrap_message(self) -> str:
        text = b""
        if self.error_fd >= 0:
            try:
                text = os.read(self.error_fd, 4096)
            except OSError:
                pass
        rc = self.proc.poll() if self.proc else self.zexit
        return (text.decode(errors="replace").strip() or "no message") + f" (status {rc})"

    # -- while running --------------------------------------------------------------
    def feed(self) -> None:
        """The status pipe is readable: parse what the launcher says."""
        try:
            data = os.read(self.status_fd, 4096)
        except OSError:
            data = b""
        if not data:
            self.finished = True
            self._eof = True
            return
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            self._parse(line.decode(errors="replace").split())

    def _parse(self, words: list[str]) -> None:
        if not words:
            return
        if words[0] == "exit" and len(words) >= 7:
            self.exit_status = int(words[1])
            self.main_rusage = (int(words[2]) / 1e6, int(words[3]) / 1e6, int(words[4]))
            self.helper_wall_s = int(words[5]) / 1e6
            self.ended = int(words[6]) / 1e6  # CLOCK_MONOTONIC, same clock as time.monotonic()
        elif words[0] == "done" and len(words) >= 4:
            self.all_rusage = (int(words[1]) / 1e6, int(words[2]) / 1e6, int(words[3]))
            self.finished = self._done = True
        elif words[0] == "zexit" and len(words) >= 2:
            status = int(words[1])
            self.zexit = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
        elif words[0] == "error":
            self.sandbox_error = "launcher: " + " ".join(words[1:])

    def _drain_status(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while not self._eof:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.status_fd], [], [], left)[0]:
                if self.pid is not None:
                    send_signal(self.pid, signal.SIGKILL)
                return
            self.feed()

    def cpu_time_s(self) -> float:
        """CPU time of the whole tree so far (cgroup, else the process tree via /proc)."""
        if self.group is not None:
            t = self.group.cpu_time_s()
        else:
            t = self._tree_cpu()
        self.last_cpu = max(self.last_cpu, t)
        return self.last_cpu

    def _tree_cpu(self) -> float:
        if self.pid is None:
            return 0.0
        total = 0.0
        try:
            root = psutil.Process(self.pid)
            for p in root.children(recursive=True):
                try:
                    c = p.cpu_times()
                    total += c.user + c.system + c.children_user + c.children_system
                except psutil.Error:
                    pass
        except psutil.Error:
            pass
        return total

    def kill(self, reason: LimitHit | None) -> None:
        """Ask the launcher to kill everything (SIGTERM); the monitor escalates to SIGKILL."""
        if self.killed_for is None and reason is not None and self.exit_status is None:
            self.killed_for = reason
        if self.term_sent is None:
            self.term_sent = time.monotonic()
            target = self._helper()
            if target is not None:
                send_signal(target, signal.SIGTERM)
            else:  # bwrap has not even started the namespace: kill it (--die-with-parent does the rest)
                self.hard_kill()

    def _helper(self) -> int | None:
        if self.via_box:
            self._box_reply()
            return self.helper_pid
        if self.backend.name == "bwrap" and not self.spec.trusted:
            return self._inner_pid()
        return self.helper_pid

    def hard_kill(self) -> None:
        """The launcher did not finish in time: SIGKILL it (and in bwrap, its namespace)."""
        self.hard_killed = True
        target = self._helper()
        if target is not None:
            send_signal(target, signal.SIGKILL)  # in bwrap: pid 1, so the whole namespace dies
        if self.pid is not None:
            send_signal(self.pid, signal.SIGKILL)
        if self.slot is not None and not self.spec.trusted and self.backend.name == "rlimits":
            sweep_uid(self.slot.uid)
        if self.group is not None:
            self.group.kill_all(exclude=self._keep())
        self.finished = True

    def _keep(self) -> set[int]:
        """Processes in the slot's group that are not the run's: its fork server and box server."""
        if self.slot is None:
            return set()
        return {z.pid for z in (self.slot.zygote, self.slot.boxer) if z is not None}

    # -- after ----------------------------------------------------------------------
    def result(self, stdout_bytes: int, stderr_bytes: int, stderr_tail: bytes) -> RunResult:
        """Wait for the launcher (and bwrap) and build the RunResult."""
        if self.proc is not None:
            rc = wait_process(self.proc, 10.0)
        elif self.via_box:  # pid 1 is leaving an empty namespace (or was killed); no "zexit" here
            self._box_reply()
            if not self.finished:
                self._drain_status(10.0)
            rc = None
        elif self.via_zygote:
            self._drain_status(10.0)  # until EOF: the fork server's "zexit" comes last
            rc = self.zexit
        else:
            rc = None
        limits: Limits = self.spec.limits
        usage: CgroupUsage | None = None
        if self.group is not None:
            try:
                usage = self.group.usage()
            except OSError:
                usage = None
            if not (self.via_box and self._done):  # else pid 1 emptied its namespace: nothing is left
                self.group.kill_all(exclude=self._keep())
            self.group.finish()
        if self._private_tmp is not None:
            rmtree(self._private_tmp)
        end = self.ended if self.ended is not None else time.monotonic()
        wall = self.helper_wall_s if self.helper_wall_s is not None else end - self.started
        if self.killed_for is not None:
            wall = max(wall, min(end, time.monotonic()) - self.started)
        if self.sandbox_error is None and self.exit_status is None and self.killed_for is None:
            msg = self._bwrap_message() if rc not in (0, None) else f"status {rc}"
            self.sandbox_error = f"the launcher ended without reporting the program's status: {msg}"
        for fd in (self.error_fd, self._info_fd):
            if fd >= 0:
                os.close(fd)
        self.error_fd = self._info_fd = -1
        os.close(self.status_fd)
        self.status_fd = -1

        exit_code: int | None = None
        sig: int | None = None
        if self.exit_status is not None:
            if os.WIFSIGNALED(self.exit_status):
                sig = os.WTERMSIG(self.exit_status)
            else:
                exit_code = os.WEXITSTATUS(self.exit_status)
        elif self.killed_for is not None:
            sig = signal.SIGKILL
        rusage_cpu = max(sum(self.main_rusage[:2]), sum(self.all_rusage[:2]))
        cpu = usage.cpu_time_s if usage is not None and usage.cpu_time_s > 0 else rusage_cpu
        cpu = max(cpu, self.last_cpu if self.killed_for is not None else 0.0)
        memory = max(self.main_rusage[2], self.all_rusage[2])
        if usage is not None and usage.oom_kills > 0:
            memory = max(memory, usage.memory_peak_kib)
        obs = Observed(
            exit_code=exit_code,
            signal=sig,
            cpu_time_s=cpu,
            memory_kib=memory,
            stdout_bytes=stdout_bytes,
            stderr_bytes=stderr_bytes,
            killed_for=self.killed_for,
            oom_kills=usage.oom_kills if usage is not None else 0,
            fork_failures=usage.fork_failures if usage is not None else 0,
            stderr_tail=stderr_tail,
            address_space_limited=self.spec.address_space_limit and usage is None,
            box=None if self.spec.trusted else self.spec.box,
        )
        limit_hit = None if self.sandbox_error is not None else classify(obs, limits)
        return RunResult(
            exit_code=exit_code,
            signal=sig,
            cpu_time_s=round(cpu, 6),
            wall_time_s=round(wall, 6),
            memory_kib=memory,
            stdout_bytes=stdout_bytes,
            stderr_bytes=stderr_bytes,
            limit_hit=limit_hit,
            sandbox_error=self.sandbox_error,
        )
