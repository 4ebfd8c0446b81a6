"""Control groups: exact memory limit / peak / OOM count, process count, tree CPU time.

cgroup v1 (separate ``memory``, ``pids``, ``cpuacct`` hierarchies) and cgroup v2
(unified, when the memory and pids controllers are delegated to us) are supported;
which one is found at runtime. Our groups live *below the judge's own cgroup* in
each hierarchy (``<own>/judge-<pid namespace>-<pid>-<start time>/slot-<n>``), so whatever limits
the machine puts on the judge still apply to the programs it runs. v1 groups are reused by the
slot from run to run (counters are reset); v2 groups are made fresh per run
(``memory.peak`` cannot be reset there). Everything is removed at exit.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

V1_CONTROLLERS = ("memory", "pids", "cpuacct")


@dataclass
class CgroupUsage:
    cpu_time_s: float
    memory_peak_kib: int
    oom_kills: int
    fork_failures: int  # pids.max was hit this many times


def _read(path: Path | str) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)  # (cheaper than open(): read per run)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks).decode()
    finally:
        os.close(fd)


def _write(path: Path, value: str | int) -> None:
    with open(path, "w") as f:
        f.write(str(value))


def _keyed(text: str, key: str) -> int:
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return 0


def _own_paths() -> dict[str, str]:
    """controller (or "" for v2) -> this process's cgroup path."""
    out: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            out[c] = path
    return out


def _mounts() -> tuple[dict[str, Path], Path | None]:
    """v1 controller -> mount point; and the v2 mount point (or None)."""
    v1: dict[str, Path] = {}
    v2: Path | None = None
    for line in _read(Path("/proc/self/mountinfo")).splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        rfields = right.split()
        if len(rfields) < 3 or len(fields) < 5:
            continue
        fstype, options = rfields[0], rfields[2].split(",") + fields[5].split(",")
        mountpoint = Path(fields[4])
        if fstype == "cgroup":
            for c in V1_CONTROLLERS:
                if c in options and c not in v1:
                    v1[c] = mountpoint
        elif fstype == "cgroup2" and v2 is None:
            v2 = mountpoint
    return v1, v2


class SlotGroup:
    """The control group(s) of one slot. Not thread-safe: one run at a time per slot."""

    def __init__(self, tree: CgroupTree, index: int):
        self.tree = tree
        self.index = index
        self._dirs: dict[str, Path] = {}
        self._last_limits: tuple[int, int] | None = None
        self._baseline = (0, 0, 0)
        self._has_pids_events = False
        self._limit_kib = 0
        self._run = 0
        self._counter_files: tuple[str, str, str] = ("", "", "")

    # -- lifecycle of one run ------------------------------------------------------
    def prepare(self, memory_bytes: int | None, pids_max: int) -> list[Path]:
        """Set limits and reset counters; returns the cgroup.procs files to join."""
        if self.tree.version == 2:
            return self._prepare_v2(memory_bytes, pids_max)
        try:
            return self._prepare_v1(memory_bytes, pids_max)
        except FileNotFoundError:  # v1's groups are kept between runs: if they are gone, they are made again
            self.forget()
            return self._prepare_v1(memory_bytes, pids_max)

    def forget(self) -> None:
        """Make the group's directories (and the judge's own parents) again on the next run and write its
        limits again (v1 makes them once and keeps them; a judge of old removed them while they were used)."""
        if self.tree.version == 1:
            for parent in self.tree.parents.values():
                parent.mkdir(exist_ok=True)
            self._dirs = {}
            self._last_limits = None

    def _prepare_v1(self, memory_bytes: int | None, pids_max: int) -> list[Path]:
        if self._dirs and not all(d.is_dir() for d in self._dirs.values()):
            raise FileNotFoundError("the slot's groups are gone")  # made again by prepare
        if not self._dirs:
            for c, parent in self.tree.parents.items():
                d = parent / f"slot-{self.index}"
                d.mkdir(exist_ok=True)
                self._dirs[c] = d
            self._has_pids_events = (self._dirs["pids"] / "pids.events").exists()
            self._counter_files = (
                str(self._dirs["cpuacct"] / "cpuacct.usage"),
                str(self._dirs["memory"] / "memory.oom_control"),
                str(self._dirs["pids"] / "pids.events"),
            )
            self._baseline = self._counters_v1()
        mem, pids, cpu = self._dirs["memory"], self._dirs["pids"], self._dirs["cpuacct"]
        limit = memory_bytes if memory_bytes is not None else -1
        if self._last_limits != (limit, pids_max):  # writing cgroup files is not free: only on change
            self._set_v1_memory(mem, limit)
            _write(pids / "pids.max", pids_max if pids_max > 0 else "max")
            self._reset_peak()
            self._last_limits = (limit, pids_max)
        self._limit_kib = memory_bytes // 1024 if memory_bytes is not None else 0
        return [mem / "cgroup.procs", pids / "cgroup.procs", cpu / "cgroup.procs"]

    def _counters_v1(self) -> tuple[int, int, int]:
        """(cpu ns, oom kills, pids.max hits) since the group was made; runs use differences."""
        cpu, oom, pids = self._counter_files
        forks = _keyed(_read(pids), "max") if self._has_pids_events else 0
        return int(_read(cpu)), _keyed(_read(oom), "oom_kill"), forks

    def _reset_peak(self) -> None:
        """Reset memory.max_usage_in_bytes: when the limits change, and after an OOM kill. In between,
        earlier runs peaked below the (same) limit, so on an OOM kill it is this run's peak."""
        try:
            _write(self._dirs["memory"] / "memory.max_usage_in_bytes", 0)
        except OSError:
            pass

    def _peak_kib(self) -> int:
        try:
            return int(_read(self._dirs["memory"] / "memory.max_usage_in_bytes")) // 1024
        except (OSError, ValueError):
            return self._limit_kib

    @staticmethod
    def _set_v1_memory(mem: Path, limit: int) -> None:
        memsw = mem / "memory.memsw.limit_in_bytes"
        has_memsw = memsw.exists()
        try:
            _write(mem / "memory.limit_in_bytes", limit)
        except OSError:
            # memsw must stay >= the memory limit: raise it first.
            if not has_memsw:
                raise
            _write(memsw, limit)
            _write(mem / "memory.limit_in_bytes", limit)
        if has_memsw:
            _write(memsw, limit)  # no swapping past the limit

    def _prepare_v2(self, memory_bytes: int | None, pids_max: int) -> list[Path]:
        self._run += 1
        d = self.tree.parents[""] / f"slot-{self.index}-{self._run}"
        d.mkdir()
        self._dirs = {"": d}
        _write(d / "memory.max", memory_bytes if memory_bytes is not None else "max")
        if (d / "memory.swap.max").exists():
            _write(d / "memory.swap.max", 0)
        _write(d / "pids.max", pids_max if pids_max > 0 else "max")
        return [d / "cgroup.procs"]

    def cpu_time_s(self) -> float:
        """CPU time (user + sys) of everything in the group during this run so far."""
        try:
            if self.tree.version == 1:
                return (int(_read(self._dirs["cpuacct"] / "cpuacct.usage")) - self._baseline[0]) / 1e9
            return _keyed(_read(self._dirs[""] / "cpu.stat"), "usage_usec") / 1e6
        except (OSError, ValueError, KeyError):
            return 0.0

    def usage(self) -> CgroupUsage:
        """This run's totals. v1: the memory peak (of the whole group) is only read on an OOM kill."""
        if self.tree.version == 1:
            now = self._counters_v1()
            base, self._baseline = self._baseline, now
            ooms = now[1] - base[1]
            peak = 0
            if ooms:
                peak = self._peak_kib()
                self._reset_peak()
            return CgroupUsage((now[0] - base[0]) / 1e9, peak, ooms, now[2] - base[2])
        d = self._dirs[""]
        peak = int(_read(d / "memory.peak")) // 1024 if (d / "memory.peak").exists() else 0
        ooms = _keyed(_read(d / "memory.events"), "oom_kill")
        forks = _keyed(_read(d / "pids.events"), "max") if (d / "pids.events").exists() else 0
        return CgroupUsage(self.cpu_time_s(), peak, ooms, forks)

    def procs(self) -> set[int]:
        """The processes in the group now."""
        pids: set[int] = set()
        for d in self._dirs.values():
            try:
                pids.update(int(p) for p in _read(d / "cgroup.procs").split())
            except (OSError, ValueError):
                pass
        return pids

    def kill_all(self, exclude: set[int] | frozenset[int] = frozenset()) -> int:
        """SIGKILL whatever is still in the group (should be nothing); returns how many."""
        killed = 0
        for _ in range(100):
            pids: set[int] = set()
            for d in self._dirs.values():
                try:
                    pids.update(int(p) for p in _read(d / "cgroup.procs").split())
                    pids -= exclude
                except OSError:
                    pass
            if not pids:
                return killed
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
            time.sleep(0.001)
        return killed

    def finish(self) -> None:
        if self.tree.version == 2:
            for d in self._dirs.values():
                _rmdir_retry(d)
            self._dirs = {}

    def remove(self) -> None:
        for d in self._dirs.values():
            _rmdir_retry(d)
        self._dirs = {}


def _rmdir_retry(d: Path) -> None:
    for _ in range(50):
        try:
            d.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.002)


class CgroupTree:
    """Our parent group in each hierarchy, created on first use, removed at exit."""

    def __init__(self, version: int, parents: dict[str, Path]):
        self.version = version
        self.parents = parents
        self._groups: dict[int, SlotGroup] = {}
        self._lock = threading.Lock()
        atexit.register(self.remove)

    def group(self, slot_index: int) -> SlotGroup:
        with self._lock:
            g = self._groups.get(slot_index)
            if g is None:
                g = self._groups[slot_index] = SlotGroup(self, slot_index)
            return g

    @property
    def description(self) -> str:
        where = ", ".join(str(p) for p in self.parents.values())
        return f"cgroup v{self.version} ({where})"

    def remove(self) -> None:
        with self._lock:
            for g in self._groups.values():
                g.kill_all()
                g.remove()
            self._groups.clear()
            for p in self.parents.values():
                _rmdir_retry(p)


def _own_name() -> str:
    """This process's group name: ``judge-<pid namespace>-<pid>-<start time>``. A pid alone names no
    process: a judge in another PID namespace (a container; tests/test_container.py) sees other pids,
    and a pid is reused after its process died. Both once made a judge remove a live judge's groups."""
    return _name_of("self")


def _name_of(pid: str) -> str:
    ns = os.stat(f"/proc/{pid}/ns/pid").st_ino
    with open(f"/proc/{pid}/stat", "rb") as f:
        start = f.read().rsplit(b")", 1)[1].split()[19].decode()  # field 22: the start time, in ticks
    real = os.getpid() if pid == "self" else int(pid)
    return f"judge-{ns}-{real}-{start}"


def _dead(name: str) -> bool:
    """Whether the judge that made the group ``name`` is gone (never for a group of another PID
    namespace, or of the old ``judge-<pid>`` form: whose it is cannot be told from here)."""
    parts = name.split("-")
    if len(parts) != 4 or not all(p.isdigit() for p in parts[1:]):
        return False
    ns, pid = int(parts[1]), parts[2]
    if ns != os.stat("/proc/self/ns/pid").st_ino:
        return False
    try:
        return _name_of(pid) != name
    except (OSError, IndexError):
        return True


def _clean_stale(parent: Path) -> None:
    """Remove the groups left behind by judges of this PID namespace that died."""
    for d in parent.glob("judge-*"):
        if not _dead(d.name):
            continue
        for sub in d.iterdir():
            if sub.is_dir():
                # whatever a dead judge left in its own groups (e.g. a bwrap orphaned mid-start)
                for _ in range(20):
                    try:
                        left = [int(p) for p in _read(sub / "cgroup.procs").split()]
                    except OSError:
                        break
                    if not left:
                        break
                    for p in left:
                        try:
                            os.kill(p, signal.SIGKILL)
                        except OSError:
                            pass
                    time.sleep(0.005)
                _rmdir_retry(sub)
        _rmdir_retry(d)


def _try_v1(own: dict[str, str], v1: dict[str, Path]) -> CgroupTree | None:
    if not all(c in v1 for c in V1_CONTROLLERS):
        return None
    parents: dict[str, Path] = {}
    try:
        for c in V1_CONTROLLERS:
            base = v1[c] / own.get(c, "/").lstrip("/")
            _clean_stale(base)
            p = base / _own_name()
            p.mkdir(exist_ok=True)
            parents[c] = p
        mem = parents["memory"]
        if (mem / "memory.use_hierarchy").exists() and _read(mem / "memory.use_hierarchy").strip() != "1":
            _write(mem / "memory.use_hierarchy", 1)
        if not (mem / "memory.oom_control").exists():
            raise OSError("no memory.oom_control")
    except OSError:
        for p in parents.values():
            _rmdir_retry(p)
        return None
    return CgroupTree(1, parents)


def _try_v2(own: dict[str, str], v2: Path | None) -> CgroupTree | None:
    if v2 is None:
        return None
    base = v2 / own.get("", "/").lstrip("/")
    p = base / _own_name()
    try:
        _clean_stale(base)
        p.mkdir(exist_ok=True)
        available = _read(p / "cgroup.controllers").split()
        if "memory" not in available or "pids" not in available:
            raise OSError("memory/pids controllers not delegated")
        _write(p / "cgroup.subtree_control", "+memory +pids" + (" +cpu" if "cpu" in available else ""))
    except OSError:
        _rmdir_retry(p)
        return None
    return CgroupTree(2, {"": p})


def cgroup_tree() -> CgroupTree | None:
    """A cgroup tree for this judge process (``judge-<pid namespace>-<pid>-<start time>``), or None when
    no writable memory+pids cgroup exists here. Each runner makes its own (their slot groups never
    overlap: slots are exclusive)."""
    try:
        own = _own_paths()
        v1, v2 = _mounts()
    except OSError:
        return None
    return _try_v1(own, v1) or _try_v2(own, v2)
