"""Per-run overhead of the runner over a bare ``subprocess.run`` of the same program.

For each available backend, runs a trivial static C program and ``python3 -c pass``
(the judge's own interpreter) N times each way, interleaved so that both see the
same machine noise, and prints min / median / max wall time per run (as seen by
the caller) and the median overhead. The bwrap backend is measured both ways it can
start runs: the per-slot box server (its default where it works) and bwrap per run
(its fallback, ``JUDGE_NO_BOX_SERVER=1``).

    python3 bench/overhead.py [--runs 50] [--backend bwrap|bwrap-per-run|rlimits|all]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from judge.runner import RunnerConfig, make_runner
from judge.runner.spec import Limits, Mount, RunSpec

TRIVIAL_C = "int main(void) { return 0; }\n"


def _fmt(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"min {min(ms):7.2f}  median {statistics.median(ms):7.2f}  max {max(ms):8.2f} ms"


def _cpu() -> float:
    """CPU time of this process, every child it has reaped, and the runner's fork and box servers
    (our children that start the runs) with everything they have reaped: bwrap, the launcher, the
    program. The fork servers' figures come from /proc in clock ticks: use means over many runs."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
    for child in psutil.Process().children():
        try:
            t = child.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def bench(runner, name: str, argv: list[str], box: Path, mounts: tuple[Mount, ...], runs: int) -> None:
    spec = RunSpec(argv=tuple(argv), box=box, limits=Limits(time_s=5, wall_time_s=10), mounts=mounts)
    host_argv = [str(box / argv[0][2:])] if argv[0].startswith("./") else argv
    bare: list[float] = []
    judged: list[float] = []
    bare_cpu: list[float] = []
    judged_cpu: list[float] = []
    for _ in range(3):  # warm up caches
        subprocess.run(host_argv, check=True)
        runner.run(spec)
    for _ in range(runs):
        c, t = _cpu(), time.perf_counter()
        subprocess.run(host_argv, check=True)
        bare.append(time.perf_counter() - t)
        bare_cpu.append(_cpu() - c)
        c, t = _cpu(), time.perf_counter()
        res = runner.run(spec)
        judged.append(time.perf_counter() - t)
        judged_cpu.append(_cpu() - c)
        if not res.ok:
            raise SystemExit(f"{name}: the judged run failed: {res}")
    overhead = statistics.median(judged) - statistics.median(bare)
    paired = statistics.median(j - b for j, b in zip(judged, bare, strict=True))
    print(f"  {name:<18} bare   {_fmt(bare)}")
    print(f"  {'':<18} judged {_fmt(judged)}")
    print(
        f"  {'':<18} overhead: median(judged) - median(bare) = {overhead * 1000:.2f} ms; "
        f"median of paired differences = {paired * 1000:.2f} ms"
    )
    bare_c, judged_c = statistics.mean(bare_cpu) * 1000, statistics.mean(judged_cpu) * 1000
    print(
        f"  {'':<18} CPU per run (judge + servers + bwrap + launcher + program, mean): bare {bare_c:.2f} ms, "
        f"judged {judged_c:.2f} ms, overhead {judged_c - bare_c:.2f} ms (not inflated by other load)"
    )


def _world_reachable(path: Path) -> bool:
    return all(os.stat(d).st_mode & 0o001 for d in path.parents)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--backend", default="all", choices=["all", "bwrap", "bwrap-per-run", "rlimits"])
    args = ap.parse_args()
    # (box servers last: a slot that has one syncs with it before it starts a run another way)
    backends = ["rlimits", "bwrap-per-run", "bwrap"] if args.backend == "all" else [args.backend]
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        box = Path(tmp)
        (box / "trivial.c").write_text(TRIVIAL_C)
        gcc = shutil.which("gcc")
        if gcc is None:
            raise SystemExit("gcc is needed for the C benchmark")
        subprocess.run([gcc, "-O2", "-static", "-o", str(box / "prog"), str(box / "trivial.c")], check=True)
        py_prefix = Path(sys.base_prefix).resolve()
        mounts = (Mount(py_prefix),)
        for name in backends:
            backend = name.split("-")[0]
            py = str(Path(sys.executable).resolve())
            runner = make_runner(RunnerConfig(sandbox=backend, box_server=name != "bwrap-per-run"))
            if runner.info.backend != backend:
                print(f"backend {backend}: not available here ({'; '.join(runner.info.warnings)})")
                continue
            print(
                f"backend {backend}, runs start by: {runner.info.mode} ({runner.info.bwrap or 'no namespaces'}; "
                f"{runner.info.cgroup or 'no cgroup'}), {args.runs} runs each:"
            )
            load = os.getloadavg()[0]
            print(f"  (load average {load:.1f} on {os.cpu_count()} CPUs: wall-clock figures include waiting for CPUs)")
            bench(runner, "C (static, trivial)", ["./prog"], box, mounts if backend == "bwrap" else (), args.runs)
            if backend == "rlimits" and not _world_reachable(Path(py)):
                py = "/usr/bin/python3"  # no mount namespace: the judge's own interpreter may be unreachable
            bench(
                runner,
                f"{Path(py).name} -c pass",
                [py, "-c", "pass"],
                box,
                mounts if backend == "bwrap" else (),
                args.runs,
            )


if __name__ == "__main__":
    main()
