"""Lazy judging in a pass-fail contest: how much sooner a wrong submission gets its verdict when judging stops
at its first failed test (`judge serve`'s default for `scoreboard_type: pass-fail`) than when every test is
judged (`judge_all_tests: true`, and every score contest).

Judges every submission of the demo problems that its package expects to be rejected
(`problems/<id>/submissions/{wrong_answer,run_time_error,time_limit_exceeded,protocol_violation}/`) both
ways, one after the other in one run (so that both see the same machine), through `judge_job` as the
server does, and prints per problem and overall the median wall time to the verdict each way, the
tests judged, and that the verdicts agree (they must: the verdict is the first failed test's).

    python3 bench/lazy.py [--problems coins,rummy] [--repeat 1] [--sandbox auto|bwrap|rlimits]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

from judge.commands.common import make_environment
from judge.grade.discovery import load_problems
from judge.judging.jobs import judge_job, make_job
from judge.judging.prepared import Packages
from judge.languages.table import language_for

ROOT = Path(__file__).resolve().parent.parent
REJECTED = ("wrong_answer", "run_time_error", "time_limit_exceeded", "protocol_violation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default="", help="comma-separated problem ids (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="judge each submission this many times each way")
    parser.add_argument("--sandbox", default="auto", choices=("auto", "bwrap", "rlimits"))
    args = parser.parse_args()
    env = make_environment(args)
    problems, _ = load_problems(ROOT / "problems")
    wanted = [p for p in args.problems.split(",") if p] or sorted(problems)
    times: dict[str, dict[bool, list[float]]] = {}
    with Packages({p: problems[p] for p in wanted}, env) as packages:
        for pid in wanted:
            problem = problems[pid]
            for folder in REJECTED:
                for path in sorted((problem.path / "submissions" / folder).glob("*")):
                    lang = language_for(path, env.languages)
                    if lang is None or not path.is_file():
                        continue
                    verdicts = set()
                    for _ in range(args.repeat):
                        for lazy in (True, False):
                            job = make_job(path, problem, lang.id, label=f"{pid}/{folder}/{path.name}")
                            job = replace(job, stop_at_failure=lazy)
                            start = time.perf_counter()
                            result = judge_job(job, packages, env)
                            elapsed = time.perf_counter() - start
                            times.setdefault(pid, {True: [], False: []})[lazy].append(elapsed)
                            verdicts.add(result.verdict.value)
                            tests = sum(1 for t in result.tests if not t.skipped)
                            how = "lazy" if lazy else "full"
                            print(f"  {job.label:55} {how}  {result.verdict.value:4} {tests:3} tests  {elapsed:7.2f} s")
                    if len(verdicts) != 1:
                        raise SystemExit(f"{path}: the verdicts differ: {sorted(verdicts)}")
    print(f"\n{'problem':10} {'submissions':>11} {'median lazy':>12} {'median full':>12} {'speed-up':>9}")
    everything: dict[bool, list[float]] = {True: [], False: []}
    for pid, t in times.items():
        lazy, full = statistics.median(t[True]), statistics.median(t[False])
        print(f"{pid:10} {len(t[True]):11} {lazy:11.2f}s {full:11.2f}s {full / lazy:8.1f}x")
        everything[True] += t[True]
        everything[False] += t[False]
    lazy, full = statistics.median(everything[True]), statistics.median(everything[False])
    print(f"{'all':10} {len(everything[True]):11} {lazy:11.2f}s {full:11.2f}s {full / lazy:8.1f}x")


if __name__ == "__main__":
    main()
