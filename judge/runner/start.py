"""Starting one run (the ``Launch`` methods that start it; the rest is in launch.py).

Four ways, all through the C launcher, never with ``preexec_fn``:

- ``bwrap``, fast (the default where it works): the slot's box server (``judge-helper -B``,
  boxserver.c), set up once per slot inside its cgroups and empty network namespace, clones
  pid 1 of the run in fresh mount, PID and IPC namespaces with a fresh root, /tmp, /proc and
  the box (passed as a detached mount, mountfd.py); pid 1 is the launcher.
- ``bwrap`` per run (the fallback; network runs; cgroup v2): the slot's fork server (or
  ``helper -x``) execs bwrap, which makes the namespaces and mounts and execs the launcher
  as pid 1 of the new PID namespace (we learn its pid from ``--info-fd``).
- ``rlimits``: the launcher runs on the host; its child joins the cgroups itself.
- ``trusted``: the launcher runs on the host as the judge's uid, no cgroups; or, for a package's Python
  program that may start warm (``spec.warm``), a fork of its warm server (warm.py), with the same
  limits, session, process-group kill and status report.

In all but the last the launcher's child drops to the slot's uid; its rlimits are set
there too. The launcher reports the exact wait status and rusage on a pipe.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from judge.runner.bwrap import BOX, HELPER_INSIDE, TMP_MIN_BYTES, Layout, RunBox, bwrap_argv
from judge.runner.cgroup import SlotGroup
from judge.runner.limits import rlimit_args, rlimits
from judge.runner.mountfd import detached_mount
from judge.runner.netns import is_netns, make_netns
from judge.runner.osutil import anonymous_file, chown_tree, let_others_traverse, not_world_accessible, seal_tree
from judge.runner.slots import Slot
from judge.runner.spec import SANDBOX_PATH, RunSpec
from judge.runner.warm import WarmServer, WarmServers
from judge.runner.zygote import BoxServer, Zygote, ZygoteError, fits

BASE_PATH = SANDBOX_PATH


@dataclass
class Plumbing:
    """The three standard fds of the program (owned by the caller of Launch)."""

    stdin: int
    stdout: int
    stderr: int


@dataclass(frozen=True)
class Backend:
    """How to start programs (shared, read-only; made by make_runner from the RunnerConfig)."""

    name: str  # "bwrap" or "rlimits"
    helper: Path
    bwrap: str | None = None
    layout: Layout | None = None  # bwrap: the system part of every box
    tmp_root: Path = Path("/tmp")
    reuse_netns: bool = True  # join the slot's empty network namespace instead of making one per run
    fork_server: bool = True  # start runs from the slot's fork server
    # bwrap backend: the per-slot box server (boxserver.c) instead of bwrap per run (make_runner decides)
    box_server: bool = False
    trusted_env: tuple[tuple[str, str], ...] = ()  # the environment of trusted runs (validators)
    niceness: int = 0  # every run's nice value (RunnerConfig.niceness)
    # the runner's warm servers (RunnerConfig.warm), for trusted runs with ``spec.warm``; None: none start warm
    warm: WarmServers | None = None


def clean_env(spec: RunSpec, home: str, tmpdir: str) -> dict[str, str]:
    """The program's environment: HOME is its box, or its private /tmp when the box is read-only."""
    home = home if spec.box_writable else tmpdir
    env = {"PATH": BASE_PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": tmpdir}
    env.update(spec.env)
    return env


class Starts:
    """Mixin of ``Launch`` (launch.py): the fields it uses are ``Launch``'s."""

    spec: RunSpec
    backend: Backend
    io: Plumbing
    slot: Slot | None
    group: SlotGroup | None
    proc: subprocess.Popen[bytes] | None
    helper_pid: int | None
    sandbox_error: str | None
    pid: int | None
    via_zygote: bool
    via_box: bool
    via_warm: WarmServer | None
    error_fd: int
    _info_fd: int
    _args_fd: int
    _awaiting: Zygote | None
    _private_tmp: Path | None

    def _helper_common(self, status_w: int, *, nproc: int | None, address_space: bool) -> list[str]:
        items = rlimits(
            self.spec.limits,
            trusted=self.spec.trusted,
            address_space=address_space,
            nproc=nproc,
            cgroup=self.group is not None,
        )
        nice = ["-y", str(self.backend.niceness)] if self.backend.niceness else []
        stdio = ["-I", str(self.io.stdin), "-O", str(self.io.stdout), "-e", str(self.io.stderr)]
        return ["-s", str(status_w), *stdio, *nice, *rlimit_args(items)]

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

    def _start_warm(self, status_w: int) -> bool:
        """A trusted run with ``spec.warm``: forked by its program's warm server (warm.py). False when it
        cannot start warm (the caller starts it with the launcher)."""
        servers = self.backend.warm
        if servers is None or self.spec.warm is None:
            return False
        env = dict(self.backend.trusted_env)
        env.update(self.spec.env)
        items = rlimits(self.spec.limits, trusted=True, address_space=False, nproc=None)
        fds = (status_w, self.io.stdin, self.io.stdout, self.io.stderr)
        started = servers.start(self.spec, env, fds, items, self.backend.niceness)
        if started is None:
            return False
        self.pid, self.via_warm = started
        return True

    def _start_trusted(self, status_w: int) -> None:
        if self._start_warm(status_w):
            return
        helper = self.backend.helper
        argv = [str(helper), "-p", "-P", str(os.getpid())]
        argv += self._helper_common(status_w, nproc=None, address_space=False)
        argv += ["--", *self.spec.argv]
        env = dict(self.backend.trusted_env)
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

    def _renew_slot(self) -> None:
        """After the slot's fork server failed: what it joins made anew (a retry must not meet the same
        fault). Its network namespace fd, if that number no longer refers to a network namespace (it
        is then not ours to close), and its cgroup directories (made again if they are gone)."""
        assert self.slot is not None
        if self.slot.zygote is not None:
            self.slot.zygote.close()
            self.slot.zygote = None
        if self.slot.netns_fd >= 0 and not is_netns(self.slot.netns_fd):
            self.slot.netns_fd = -1
        if self.group is not None:
            self.group.forget()

    def _residents(self, *, zygote: bool = False, box: bool = False) -> int:
        """How many of the slot's servers will be in its group (``zygote``/``box``: that one will be)."""
        assert self.slot is not None
        z, b = self.slot.zygote, self.slot.boxer
        return int(zygote or (z is not None and z.alive())) + int(box or (b is not None and b.alive()))

    def _own_box(self) -> None:
        """The box to the slot's uid (a writable working directory), or sealed (read-only for it)."""
        assert self.slot is not None
        if self.spec.box_writable:
            chown_tree(self.spec.box, self.slot.uid, self.slot.gid)
        else:
            seal_tree(self.spec.box)

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
        self._own_box()
        let_others_traverse(self.spec.box)
        tmp = self.backend.tmp_root / f"judge-tmp-{self.slot.index}-{os.getpid()}"
        tmp.mkdir(mode=0o700, exist_ok=True)
        os.chown(tmp, self.slot.uid, self.slot.gid)
        self._private_tmp = tmp
        # in the group besides the program: the fork server, the launcher and (at the end) its killer
        zygote, procs = self._fork_server(extra_pids=3)
        argv = [str(self.backend.helper), "-k", "-u", str(self.slot.uid), "-g", str(self.slot.gid)]
        argv += ["-P", str(zygote.pid if zygote is not None else os.getpid())]  # our parent, to detect its end
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
        layout = self.backend.layout.box_server if self.backend.layout is not None else None
        if layout is None:
            return False
        nproc, address_space, _ = self._untrusted_limits()
        self._own_box()
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
        assert self.slot is not None and self.backend.bwrap is not None and self.backend.layout is not None
        box_ok = self.group is None or self.group.tree.version == 1  # v2: a fresh group per run
        if self.backend.box_server and not self.spec.network and box_ok and fits((), self.spec.env):
            if self._start_box(status_w):
                return
        nproc, address_space, _ = self._untrusted_limits()
        self._own_box()
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
            run = RunBox(self.spec.box, self.spec.mounts, network=share_net, tmp_bytes=self.spec.limits.output_bytes)
            argv = bwrap_argv(
                self.backend.bwrap, system=self.backend.layout, helper=self.backend.helper, run=run, info_fd=info_w
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

    def _spawn(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path | None,
        fds: tuple[int, ...],
        zygote: Zygote | None,
        wait: bool = True,
    ) -> None:
        """Start ``argv`` with the extra ``fds`` (the first is the status pipe) and the program's three
        standard fds under their own numbers (the launcher's -I, -O, -e: its own stdin and stdout are
        /dev/null, so that no copy of a pipe's end stays in the launcher or bwrap's monitor); our (and
        bwrap's) stderr goes to a pipe we read for error messages. Through the slot's fork server if
        given, else posix_spawn (Popen)."""
        err_r, err_w = os.pipe()
        os.set_blocking(err_r, False)
        self.error_fd = err_r
        passed = (*fds, self.io.stderr, self.io.stdin, self.io.stdout)
        try:
            if zygote is not None:  # its own stdin and stdout are /dev/null (zygote.py)
                mapping = [(fds[0], fds[0]), (err_w, 2)]
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
                    os.close(err_r)  # nothing started: no error pipe either
                    self.error_fd = -1
                    raise
                self.via_zygote = True
            else:
                self.proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
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
