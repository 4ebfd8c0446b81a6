"""Benchmark for `judge grade`: the demo contest graded with --jobs 1 and --jobs 2, and a no-change re-run.

Prints the wall time of each full grading (fresh database each), the speed-up of --jobs 2 over --jobs 1
(target: at least 1.8 on two free cores), whether both gave the same verdicts and scores (they must:
verdicts come from CPU time), and the wall time of a re-run with nothing changed (target: under 5 % of
the full run). Each grading is a separate `judge grade` process, as an organizer would run it, on a
snapshot of the judge, the reference package, the problems and the contest taken at the start (so that
edits to the working tree during the benchmark change neither the judge version nor the packages).

The demo contest has hostile programs (a fork bomb among them): this benchmark runs only with the
bubblewrap sandbox (`--sandbox bwrap`) and refuses to start when it is not available.

    python3 bench/grade.py [--contest submissions] [--problems problems] [--jobs 1,2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from judge.runner import make_runner

ROOT = Path(__file__).resolve().parent.parent


def snapshot(contest: Path, problems: Path, dest: Path) -> tuple[Path, Path, Path]:
    """Copies of the judge and reference packages, the problems and the contest: (code, contest, problems)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    code = dest / "code"
    for package in ("judge", "reference"):
        shutil.copytree(ROOT / package, code / package, ignore=skip)
    shutil.copytree(contest, dest / "contest", ignore=skip)
    shutil.copytree(problems, dest / "problems", ignore=skip)
    return code, dest / "contest", dest / "problems"


def grade(code: Path, contest: Path, problems: Path, out: Path, jobs: int) -> float:
    argv = [sys.executable, "-m", "judge.commands.cli", "--sandbox", "bwrap", "grade", str(contest)]
    argv += ["--problems", str(problems), "--out", str(out), "--jobs", str(jobs), "--json"]
    env = {**os.environ, "PYTHONPATH": str(code)}
    start = time.perf_counter()
    # cwd: `python -m` puts the current directory first on sys.path; it must be the snapshot
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, cwd=code)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 3):
        sys.exit(f"judge grade failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed


def outcome(out: Path) -> dict[str, Any]:
    doc = json.loads((out / "results.json").read_text())
    return {
        f"{c}/{p}": (r["verdict"], r["score"], r["metric"], [(t["name"], t["verdict"]) for t in r["tests"]])
        for c, by_problem in doc["results"].items()
        for p, r in by_problem.items()
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contest", type=Path, default=ROOT / "submissions")
    ap.add_argument("--problems", type=Path, default=ROOT / "problems")
    ap.add_argument("--jobs", default="1,2", help="comma-separated --jobs values to compare (default 1,2)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the boards in this folder")
    args = ap.parse_args()
    if not make_runner("bwrap").info.isolated:
        sys.exit("bench/grade.py: the bubblewrap sandbox is not available here; not running hostile programs")
    jobs = [int(j) for j in args.jobs.split(",")]
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-grade-"))
    shutil.rmtree(work / "src", ignore_errors=True)
    code, contest, problems = snapshot(args.contest, args.problems, work / "src")
    entries = sum(1 for c in args.contest.iterdir() if c.is_dir() for _ in c.iterdir())
    print(f"demo contest: {args.contest} ({entries} files), problems: {args.problems}, cores: {os.cpu_count()}")
    try:
        times: dict[int, float] = {}
        outcomes: dict[int, dict[str, Any]] = {}
        for j in jobs:
            out = work / f"jobs{j}"
            shutil.rmtree(out, ignore_errors=True)
            times[j] = grade(code, contest, problems, out, j)
            outcomes[j] = outcome(out)
            print(f"full grading, --jobs {j}: {times[j]:8.2f} s wall ({len(outcomes[j])} submissions judged)")
        base = jobs[0]
        for j in jobs[1:]:
            speedup = times[base] / times[j]
            print(f"speed-up --jobs {j} over --jobs {base}: {speedup:.2f}x (target >= 1.8 for 2 jobs)")
            same = outcomes[j] == outcomes[base]
            print(f"same verdicts, scores, metrics with --jobs {j} and {base}: {'yes' if same else 'NO'}")
            for key in sorted(outcomes[base]):
                if outcomes[base][key] != outcomes[j].get(key):
                    other = outcomes[j].get(key, (None,))[:3]
                    print(f"  differs: {key}: {outcomes[base][key][:3]} vs {other}")
        last = jobs[-1]
        rerun = grade(code, contest, problems, work / f"jobs{last}", last)
        share = 100 * rerun / times[last]
        print(f"no-change re-run, --jobs {last}: {rerun:.2f} s wall = {share:.1f}% of a full run (target < 5%)")
        if args.keep:
            print(f"boards kept in {work}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
