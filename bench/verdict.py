"""The judge's own cost per verdict: wall time to a verdict against the programs' own run times.

Two parts, each with warm validators off and on (RunnerConfig.warm, `judge --warm-validators`), interleaved
(off, on, off, on, ...) so that both see the same machine:

- **per problem**: one accepted Python submission of each shipped problem (the first in
  `submissions/accepted/`), judged in this process from scratch (a new runner, the package prepared, the
  submission built, every test run and checked: `judge_submission`). It prints the wall time to the verdict,
  the sum of the submission's own CPU time over its runs (each pass of a multi-pass test: go's two), and
  their ratio: the judge's overhead factor
  (1.0 would be a judge that costs nothing); and, as the wall time grows with the machine's load, the CPU
  time of everything (the judge, its servers, the validators, the runs) against the submission's own. The
  runner's own start (its sandbox self-test) is not in the wall time (it is in the CPU time); a `judge run`
  process adds its start-up (about 0.3 s: the imports and the self-test) to every verdict.
- **the demo contest** (`--contest`, skipped with `--no-contest`): `judge grade` from scratch, a separate
  process with a fresh database, `--jobs 2`, on a snapshot of the code (as bench/grade.py), warm off and on.
  It prints both wall times, on / off, the overhead factor (wall x jobs against the sum of every test's CPU
  time in results.json: a multi-pass test's is its slowest pass's, so go's runs count about half) and
  whether both gave the same verdicts, scores and messages. `--baseline DIR`: a checkout of an older judge
  graded too, in the same rounds (its own settings: "today"; its own code on PYTHONPATH).

Targets (issue 50, this 2-core machine): Coins' accepted Python submission judged with an overhead factor
<= 1.5; the demo contest from scratch in <= 60 % of the baseline's time.

    python3 bench/verdict.py [--rounds 3] [--problems problems] [--no-contest] [--contest-rounds 1]
                             [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.judging.environment import Environment
from judge.judging.submission import JudgeOptions, judge_submission, prepare
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import RunnerConfig, make_runner
from judge.runner.config import tmpfs_scratch

ROOT = Path(__file__).resolve().parent.parent
MODES = ("off", "on")
MEASURED = ("TLE", "MLE")  # their messages quote the time or memory measured: different in every run


def stats(values: list[float]) -> str:
    return f"min {min(values):6.2f}  median {statistics.median(values):6.2f}  max {max(values):6.2f}"


def cpu_s() -> float:
    """CPU time of this process and of every child it has reaped (with what they reaped)."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


@dataclass(frozen=True)
class Judged:
    wall_s: float  # to the verdict
    own_s: float  # the submission's CPU time, summed over its runs (every pass of every test)
    cpu_s: float  # everything's CPU time: the judge, its servers, every run (the runner's own start included)
    verdict: str
    seen: object  # what must not change with warm validators: verdicts, scores, messages


def one_verdict(problem_dir: Path, source: Path, warm: bool, work: Path) -> Judged:
    """One submission judged from scratch: a new runner (closed at the end: its servers, reaped, bring the
    CPU time of everything they started into this process's children's)."""
    before = cpu_s()
    runner = make_runner(RunnerConfig(sandbox="auto", warm=warm))
    try:
        env = Environment(runner, load_languages(), toolchain(), scratch=tmpfs_scratch())  # as `judge` does
        start = time.perf_counter()
        problem = load_problem(problem_dir)
        prepared = prepare(problem, env, work / "prep")
        # keep_bytes=1: each pass's own record (a multi-pass test's time_s is its slowest pass's)
        result = judge_submission(prepared, source, env, options=JudgeOptions(keep_bytes=1))
        wall = time.perf_counter() - start
    finally:
        runner.close()
    own = sum(p.time_s for t in result.tests for p in t.details)
    tests = [(t.name, t.verdict.value, t.fraction, t.metric, t.message) for t in result.tests]
    return Judged(wall, own, cpu_s() - before, result.verdict.value, (result.verdict.value, result.score, tests))


def per_problem(problems: Path, rounds: int) -> None:
    print("per problem: one accepted Python submission, judged from scratch in this process")
    for problem_dir in sorted(p for p in problems.iterdir() if (p / "problem.yaml").is_file()):
        accepted = sorted((problem_dir / "submissions" / "accepted").glob("*.py"))
        if not accepted:
            continue
        source = accepted[0]
        walls: dict[str, list[float]] = {m: [] for m in MODES}
        factors: dict[str, list[float]] = {m: [] for m in MODES}
        cpu_factors: dict[str, list[float]] = {m: [] for m in MODES}
        seen: dict[str, object] = {}
        verdict = ""
        for _ in range(rounds):
            for mode in MODES:
                with tempfile.TemporaryDirectory(prefix="bench-verdict-") as d:
                    Path(d).chmod(0o711)
                    v = one_verdict(problem_dir, source, mode == "on", Path(d))
                seen[mode], verdict = v.seen, v.verdict
                walls[mode].append(v.wall_s)
                factors[mode].append(v.wall_s / v.own_s if v.own_s > 0 else float("nan"))
                cpu_factors[mode].append(v.cpu_s / v.own_s if v.own_s > 0 else float("nan"))
        same = "same" if seen["off"] == seen["on"] else "DIFFERENT"
        print(f"  {problem_dir.name}/{source.name}: {verdict}, {same} verdicts, scores and messages off and on")
        for mode in MODES:
            print(f"    warm {mode:3}: wall {stats(walls[mode])} s; overhead factor {stats(factors[mode])}")
            print(f"    {'':8} CPU of everything / the submission's own CPU: {stats(cpu_factors[mode])}")
        ratio = statistics.median(walls["on"]) / statistics.median(walls["off"])
        print(f"    on / off (medians): {ratio:.1%}")


def snapshot(code_root: Path, dest: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for package in ("judge", "reference"):
        shutil.copytree(code_root / package, dest / package, ignore=skip)
    return dest


def grade(code: Path, contest: Path, problems: Path, out: Path, env_extra: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s of the grading and everything it started) of one `judge grade` from scratch."""
    argv = [sys.executable, "-m", "judge.commands.cli", "--sandbox", "bwrap", "grade", str(contest)]
    argv += ["--problems", str(problems), "--out", str(out), "--jobs", "2", "--json"]
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_NO_WARM"}
    env.update({"PYTHONPATH": str(code), **env_extra})
    start, cpu = time.perf_counter(), cpu_s()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, cwd=code)
    elapsed, cpu = time.perf_counter() - start, cpu_s() - cpu
    if done.returncode not in (0, 3):
        sys.exit(f"judge grade failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, cpu


def outcome(out: Path) -> tuple[dict[str, Any], float]:
    doc = json.loads((out / "results.json").read_text())
    seen: dict[str, Any] = {}
    own = 0.0
    for c, by_problem in doc["results"].items():
        for p, r in by_problem.items():
            tests = [
                (t["name"], t["verdict"], t["score"], t["verdict"] in MEASURED or t.get("message")) for t in r["tests"]
            ]
            seen[f"{c}/{p}"] = (r["verdict"], r["score"], r["metric"], tests)
            own += sum(t["time_s"] or 0.0 for t in r["tests"])
    return seen, own


def contest(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-verdict-contest-"))
    try:
        src = work / "src"
        code = snapshot(ROOT, src / "code")
        shutil.copytree(args.contest, src / "contest", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(args.problems, src / "problems", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        kinds: dict[str, tuple[Path, dict[str, str]]] = {
            "warm off": (code, {"JUDGE_NO_WARM": "1"}),
            "warm on": (code, {}),
        }
        if args.baseline is not None:
            kinds = {"baseline": (snapshot(args.baseline, src / "baseline"), {}), **kinds}
        walls: dict[str, list[float]] = {k: [] for k in kinds}
        cpus: dict[str, list[float]] = {k: [] for k in kinds}
        seen: dict[str, dict[str, Any]] = {}
        own: dict[str, float] = {}
        load = os.getloadavg()[0]
        print(f"the demo contest from scratch (`judge grade --jobs 2`, a fresh database each), load {load:.1f}")
        for r in range(args.contest_rounds):
            for kind, (kcode, extra) in kinds.items():
                out = work / f"{kind.replace(' ', '-')}-{r}"
                wall, cpu = grade(kcode, src / "contest", src / "problems", out, extra)
                walls[kind].append(wall)
                cpus[kind].append(cpu)
                seen[kind], own[kind] = outcome(out)
                print(f"  round {r + 1}, {kind}: {wall:.1f} s wall, {cpu:.1f} s CPU (load {os.getloadavg()[0]:.1f})")
        for kind in kinds:
            factor = statistics.median(walls[kind]) * 2 / own[kind]
            print(f"  {kind:9}: wall {stats(walls[kind])} s; programs' own CPU {own[kind]:.1f} s; factor {factor:.2f}")
            print(f"  {'':9}  CPU of everything {stats(cpus[kind])} s")
        base = "baseline" if "baseline" in kinds else "warm off"
        cpu_share = statistics.median(cpus["warm on"]) / statistics.median(cpus[base])
        print(f"  warm on / {base}, CPU of everything (medians): {cpu_share:.1%}")
        print(
            f"  warm on / {base} (medians): {statistics.median(walls['warm on']) / statistics.median(walls[base]):.1%}"
        )
        for kind in kinds:
            if kind != "warm on":
                differ = [k for k in seen["warm on"] if seen["warm on"][k] != seen[kind].get(k)]
                same = "yes" if not differ else "NO: " + ", ".join(differ)
                print(f"  same verdicts, scores, messages as {kind}: {same}")
        print(f"  load after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the per-problem part")
    ap.add_argument("--problems", type=Path, default=ROOT / "problems")
    ap.add_argument("--contest", type=Path, default=ROOT / "submissions")
    ap.add_argument("--contest-rounds", type=int, default=1)
    ap.add_argument("--no-contest", action="store_true")
    ap.add_argument("--no-problems", action="store_true")
    ap.add_argument("--baseline", type=Path, default=None, help="a checkout of another judge to grade the contest with")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if not args.no_problems:
        per_problem(args.problems, args.rounds)
    if not args.no_contest:
        contest(args)


if __name__ == "__main__":
    main()
