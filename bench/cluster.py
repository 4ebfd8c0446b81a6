"""Benchmark for `judge grade --cluster`: the demo contest on a Dask LocalCluster with 1 and with 2 judge
workers, and local `--jobs 2` against `--cluster local:2`.

Prints the wall time of each full grading (a fresh database each; each a separate `judge grade` process, on
the snapshot bench/grade.py takes), the speed-up of 2 workers over 1 (target: at least 1.8 on two free
cores), what Dask costs over local threads (`--cluster local:2` against `--jobs 2`, target: at most 10 %),
whether all gave the same verdicts and scores (they must), and the load average before and after (the
machine may be shared: figures from a loaded machine are noisy). It also prints the CPU time each grading
used (all its processes: the judge, Dask's, the sandboxed programs), which other users disturb less. With
``--rounds N`` the three gradings (local:1, --jobs 2, local:2) follow each other N times and the medians are
compared; each round's own ratios are printed too (the machine's speed drifts on a shared host: a round's
three gradings are minutes apart, rounds are further apart).

Each grading's idle slot time is printed as well: slots x wall time - the jobs' durations summed (as the
database stores them), i.e. starting and stopping, and the end, when fewer jobs are left than slots. It
splits what Dask costs into slots left idle and jobs that took longer.

The times include what each way of grading costs to start: the LocalCluster's scheduler and worker
processes, and each worker's sandbox self-test. Like bench/grade.py, it runs only with bubblewrap (the demo
contest has hostile programs).

    python3 bench/cluster.py [--contest submissions] [--problems problems] [--rounds 1] [--keep DIR]
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
from typing import Any

from grade import ROOT, outcome, snapshot  # bench/grade.py

from judge.grade.options import GRADE_DB_NAME
from judge.grade.storage import Store
from judge.runner import make_runner


def run(code: Path, contest: Path, problems: Path, out: Path, *how: str) -> tuple[float, float]:
    """One full grading with a fresh database: its wall time, and the CPU time (user + system) of all the
    processes it started that ended with it (a measure the other users of a shared machine disturb less)."""
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, "-m", "judge.commands.cli", "--sandbox", "bwrap", "grade", str(contest)]
    argv += ["--problems", str(problems), "--out", str(out), "--json", *how]
    env = {**os.environ, "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, cwd=code)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 3):
        sys.exit(f"judge grade {' '.join(how)} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def busy_s(out: Path) -> float:
    """The seconds the grading's jobs took, summed (each from its hand-over to its result, as stored)."""
    with Store(out / GRADE_DB_NAME) as store:
        return sum(store.last_durations().values())


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contest", type=Path, default=ROOT / "submissions")
    ap.add_argument("--problems", type=Path, default=ROOT / "problems")
    ap.add_argument("--rounds", type=int, default=1, help="run local:1, --jobs 2 and local:2 this many times")
    ap.add_argument("--keep", type=Path, default=None, help="keep the boards in this folder")
    args = ap.parse_args()
    if not make_runner("bwrap").info.isolated:
        sys.exit("bench/cluster.py: the bubblewrap sandbox is not available here; not running hostile programs")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    shutil.rmtree(work / "src", ignore_errors=True)
    code, contest, problems = snapshot(args.contest, args.problems, work / "src")
    print(f"demo contest: {args.contest}, problems: {args.problems}, cores: {os.cpu_count()}, load: {load()}")
    ways = {
        "--cluster local:1": ("--cluster", "local:1"),
        "--cluster local:2": ("--cluster", "local:2"),
        "--jobs 2": ("--jobs", "2"),
    }
    slots = {"--cluster local:1": 1, "--cluster local:2": 2, "--jobs 2": 2}
    times: dict[str, list[float]] = {name: [] for name in ways}
    idles: dict[str, list[float]] = {name: [] for name in ways}
    cpus: dict[str, list[float]] = {name: [] for name in ways}
    outcomes: dict[str, dict[str, Any]] = {}
    try:
        order = ["--cluster local:1", "--jobs 2", "--cluster local:2"] * max(1, args.rounds)
        for name in order:
            out = work / name.replace("--", "").replace(" ", "-").replace(":", "")
            elapsed, cpu = run(code, contest, problems, out, *ways[name])
            times[name].append(elapsed)
            cpus[name].append(cpu)
            outcomes[name] = outcome(out)
            idle = slots[name] * elapsed - busy_s(out)
            idles[name].append(idle)
            print(
                f"full grading, {name:18}: {elapsed:8.2f} s wall, {cpu:7.2f} s CPU, slots idle {idle:5.1f} s "
                f"(load after: {load()})"
            )
        t = {name: statistics.median(ts) for name, ts in times.items()}
        rounds = f" (medians of {args.rounds})" if args.rounds > 1 else ""
        speedup = t["--cluster local:1"] / t["--cluster local:2"]
        print(f"speed-up of 2 cluster workers over 1{rounds}: {speedup:.2f}x (target >= 1.8)")
        cost = 100 * (t["--cluster local:2"] / t["--jobs 2"] - 1)
        print(f"--cluster local:2 against --jobs 2{rounds}: {cost:+.1f} % wall (target <= +10 %)")
        if args.rounds > 1:
            one, two, jobs = (times[n] for n in ("--cluster local:1", "--cluster local:2", "--jobs 2"))
            print("  each round: speed-up " + ", ".join(f"{a / b:.2f}x" for a, b in zip(one, two, strict=True)))
            costs = ", ".join(f"{100 * (b / j - 1):+.1f} %" for b, j in zip(two, jobs, strict=True))
            print(f"  each round: Dask's cost {costs}")
        i = {name: statistics.median(ts) for name, ts in idles.items()}
        extra = t["--cluster local:2"] - t["--jobs 2"]
        idle = (i["--cluster local:2"] - i["--jobs 2"]) / 2
        print(
            f"of the {extra:+.1f} s: {idle:+.1f} s with slots idle (starting and stopping the cluster, the last "
            f"jobs), {extra - idle:+.1f} s with the jobs themselves taking longer"
        )
        c = {name: statistics.median(ts) for name, ts in cpus.items()}
        cpu_cost = 100 * (c["--cluster local:2"] / c["--jobs 2"] - 1)
        print(f"CPU time, --cluster local:2 against --jobs 2: {cpu_cost:+.1f} %")
        base = outcomes["--jobs 2"]
        for name, got in outcomes.items():
            same = got == base
            print(f"same verdicts, scores, metrics with {name} as with --jobs 2: {'yes' if same else 'NO'}")
            for key in sorted(base):
                if base[key] != got.get(key):
                    print(f"  differs: {key}: {base[key][:3]} vs {got.get(key, (None,))[:3]}")
        print(f"load average at the end: {load()}")
        if args.keep:
            print(f"boards kept in {work}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
