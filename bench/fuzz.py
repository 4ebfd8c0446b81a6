"""Benchmark for ``judge fuzz``: examples per second against the raw rate of starting the program.

For a Python submission, in the same run and in alternating rounds (the machine is shared and noisy):

- ``fuzz``: ``fuzz_submission`` as ``judge fuzz`` runs it (two Hypothesis searches, one submission run
  at a time; a fresh box per run, the answer, the in-process ``accepts()`` check when fuzz.py has one);
- ``raw``: right after it, the same interpreter started by the same runner (same sandbox, limits, box
  contents) on the very inputs it generated, one after the other, with nothing else done: the ceiling;
- ``fuzz, 1 search`` / ``raw, interleaved``: one search (``pipeline=False``), each example followed by
  the raw run of the same input (timed apart): the fuzzer's own cost per example, unhidden;
- ``fuzz, validator``: with the package's output validator process per example (a Python validator starts
  warm, forked from a warm interpreter: the default); ``fuzz, validator, fresh``: the same with warm
  validators off (a new interpreter per example, as before issue 50), interleaved with it; each followed by
  the raw runs of the inputs it generated (``raw, after validator`` and ``raw, after fresh``: its ceiling,
  measured next to it, as ``raw`` is for ``fuzz``);
- ``raw, no sandbox``: the same interpreter started with plain ``subprocess`` (what the sandbox costs).

Target: fuzz >= 90 % of raw (over all rounds; the median of the rounds' ratios is printed too). Usage:
``python3 bench/fuzz.py [--problem DIR] [--source FILE] [--examples N] [--rounds R] [--sandbox auto]``
(default: problems/rummy with its closed_form.py when rummy has a fuzz.py, else the fixture
tests/fixtures_fuzz/add).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from functools import partial
from pathlib import Path

from judge.fuzz.engine import fuzz_submission, tune_for_fuzzing
from judge.fuzz.options import FuzzOptions
from judge.judging.build import Program, build, detect_language
from judge.judging.problemtypes import program_limits
from judge.judging.submission import Environment, prepare
from judge.languages.table import load_languages, toolchain
from judge.package.problem import InputMode, Problem, load_problem
from judge.runner import RunnerConfig, make_runner
from judge.runner.spec import RunSpec

ROOT = Path(__file__).resolve().parent.parent
RUMMY = ROOT / "problems" / "rummy"
DEFAULTS = [
    (RUMMY, RUMMY / "submissions" / "accepted" / "closed_form.py"),
    (
        ROOT / "tests" / "fixtures_fuzz" / "add",
        ROOT / "tests" / "fixtures_fuzz" / "add" / "submissions" / "accepted" / "add.py",
    ),
]


class RawRunner:
    """Starts the built program on one input with the runner and nothing else (one reused box)."""

    def __init__(self, problem: Problem, program: Program, env: Environment, work: Path) -> None:
        self.problem, self.program, self.env, self.work = problem, program, env, work
        self.box = work / "rawbox"
        shutil.rmtree(self.box, ignore_errors=True)
        shutil.copytree(program.files, self.box)
        self.limits = program_limits(problem, program)

    def sandboxed(self, data: bytes) -> float:
        start = time.perf_counter()
        argv, stdin = self.program.argv, self.work / "raw.in"
        if self.problem.input_mode is InputMode.ARGS:
            argv = (*argv, *data.decode().split())
        else:
            stdin.write_bytes(data)
        spec = RunSpec(
            argv=argv,
            box=self.box,
            limits=self.limits,
            stdin=None if self.problem.input_mode is InputMode.ARGS else stdin,
            stdout=self.work / "raw.out",
            env=dict(self.program.env),
            mounts=self.program.mounts,
            box_writable=self.problem.allow_file_writing,  # as the fuzzer's runs
        )
        self.env.runner.run(spec)
        return time.perf_counter() - start

    def unsandboxed(self, data: bytes) -> float:
        start = time.perf_counter()
        argv, stdin = list(self.program.argv), data
        if self.problem.input_mode is InputMode.ARGS:
            argv, stdin = argv + data.decode().split(), b""
        subprocess.run(argv, input=stdin, cwd=self.box, capture_output=True, env=dict(self.program.env))
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", type=Path)
    parser.add_argument("--source", type=Path)
    parser.add_argument("--examples", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--sandbox", default="auto")
    args = parser.parse_args()
    if args.problem is None:
        args.problem, args.source = next((p, s) for p, s in DEFAULTS if (p / "fuzz.py").is_file() and s.is_file())
    env = Environment(make_runner(args.sandbox), load_languages(), toolchain())
    fresh_env = Environment(make_runner(RunnerConfig(sandbox=args.sandbox, warm=False)), env.languages, env.tools)
    problem = load_problem(args.problem)
    work = Path(tempfile.mkdtemp(prefix="bench-fuzz-"))
    work.chmod(0o711)
    try:
        prepared = prepare(problem, env, work / "prep")
        built = build(
            args.source, detect_language(args.source, env.languages), env, problem=problem, workdir=work / "build"
        )
        assert built.program is not None, built.message
        tune_for_fuzzing()  # as `judge fuzz` does, once everything is loaded
        print(
            f"problem {problem.id}, submission {args.source.name}, sandbox {env.runner.info.backend}, "
            f"{args.examples} examples x {args.rounds} rounds"
        )
        raw = RawRunner(problem, built.program, env, work)
        keys = (
            "fuzz",
            "raw",
            "fuzz, 1 search",
            "raw, interleaved",
            "fuzz, validator",
            "raw, after validator",
            "fuzz, validator, fresh",
            "raw, after fresh",
            "raw, no sandbox",
        )
        totals = {k: [0, 0.0] for k in keys}
        ratios: list[float] = []  # fuzz / raw of each round: the machine's speed drifts between rounds
        warm_ratios: list[float] = []  # fuzz, validator / raw, after validator of each round
        for r in range(args.rounds):
            # The default (pipelined) fuzzer, then the raw runs of the very inputs it generated.
            inputs: list[bytes] = []

            def record(n: int, data: bytes, trial: object, seen: list[bytes] = inputs) -> None:
                seen.append(data)

            piped = fuzz_submission(
                prepared,
                args.source,
                env,
                FuzzOptions(examples=args.examples, seed=r, use_database=False),
                on_example=record,
            )
            assert piped.status.value == "passed", piped.to_json()
            raw_s = sum(raw.sandboxed(data) for data in inputs)
            # One search: after every example, the raw runs on the same input, timed apart and
            # subtracted from the fuzzer's time (both measured at the same moments of a noisy machine).
            spent = {"raw": 0.0, "raw, no sandbox": 0.0, "callback": 0.0}

            def after_example(n: int, data: bytes, trial: object, spent: dict[str, float] = spent) -> None:
                start = time.perf_counter()
                spent["raw"] += raw.sandboxed(data)
                spent["raw, no sandbox"] += raw.unsandboxed(data)
                spent["callback"] += time.perf_counter() - start

            single = fuzz_submission(
                prepared,
                args.source,
                env,
                FuzzOptions(examples=args.examples, seed=r, use_database=False, pipeline=False),
                on_example=after_example,
            )
            slow_options = FuzzOptions(examples=args.examples // 3, seed=r, use_database=False, use_accepts=False)
            slow_inputs: list[bytes] = []
            fresh_inputs: list[bytes] = []
            slow = fuzz_submission(
                prepared, args.source, env, slow_options, on_example=partial(record, seen=slow_inputs)
            )
            slow_raw_s = sum(raw.sandboxed(data) for data in slow_inputs)
            fresh = fuzz_submission(
                prepared, args.source, fresh_env, slow_options, on_example=partial(record, seen=fresh_inputs)
            )
            fresh_raw_s = sum(raw.sandboxed(data) for data in fresh_inputs)
            row = {
                "fuzz": (piped.runs, piped.elapsed_s),
                "raw": (len(inputs), raw_s),
                "fuzz, 1 search": (single.runs, single.elapsed_s - spent["callback"]),
                "raw, interleaved": (single.runs, spent["raw"]),
                "fuzz, validator": (slow.runs, slow.elapsed_s),
                "raw, after validator": (len(slow_inputs), slow_raw_s),
                "fuzz, validator, fresh": (fresh.runs, fresh.elapsed_s),
                "raw, after fresh": (len(fresh_inputs), fresh_raw_s),
                "raw, no sandbox": (single.runs, spent["raw, no sandbox"]),
            }
            for k, (n, sec) in row.items():
                totals[k][0] += n
                totals[k][1] += sec
            rates = ", ".join(f"{k} {n / sec:.1f}/s" for k, (n, sec) in row.items())
            ratios.append((piped.runs / piped.elapsed_s) / (len(inputs) / raw_s))
            warm_ratios.append((slow.runs / slow.elapsed_s) / (len(slow_inputs) / slow_raw_s))
            print(f"round {r + 1}: {rates}; fuzz / raw {ratios[-1]:.1%}; validator {warm_ratios[-1]:.1%}")
        rate = {k: n / sec for k, (n, sec) in totals.items()}
        print(f"total ({piped.checker}):")
        for k, v in rate.items():
            print(f"  {k:18s} {v:7.1f} examples/s   {1000 / v:6.1f} ms each")
        print(
            f"fuzz / raw: {rate['fuzz'] / rate['raw']:.1%} (median of the rounds' {statistics.median(ratios):.1%}, "
            f"from {min(ratios):.1%} to {max(ratios):.1%}; target >= 90 %; default: two searches, one run "
            f"at a time); one search: {rate['fuzz, 1 search'] / rate['raw, interleaved']:.1%}; "
            f"with the validator process: {rate['fuzz, validator'] / rate['raw, after validator']:.1%} (warm, "
            f"against the raw runs of its inputs right after it; median of the rounds' "
            f"{statistics.median(warm_ratios):.1%}; "
            f"target >= 60 %), {rate['fuzz, validator, fresh'] / rate['raw, after fresh']:.1%} with a new "
            f"interpreter per example (against {rate['fuzz, validator'] / rate['raw']:.1%} and "
            f"{rate['fuzz, validator, fresh'] / rate['raw']:.1%} of the first raw rate); "
            f"sandbox cost: raw is {rate['raw, interleaved'] / rate['raw, no sandbox']:.1%} of unsandboxed"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
