"""``judge fuzz PROBLEM_DIR SOURCE``: property-based fuzzing of a submission against the reference.

Exit 0: no disagreement in N examples; 1: a counterexample (or the submission does not compile);
2: usage or package error; 3: judge error (the package's fuzz.py or validator failed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from judge.commands.common import EXIT_FAILED, EXIT_JE, EXIT_OK, UsageError, make_environment
from judge.fuzz.engine import default_cache_dir, fuzz_submission, tune_for_fuzzing
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import FuzzOutcome, FuzzStatus, show_bytes
from judge.fuzz.save import save_counterexample
from judge.fuzz.search import OnExample
from judge.fuzz.trial import Trial
from judge.judging.build import SkipLanguage
from judge.judging.submission import prepare
from judge.package.problem import PackageError, Problem, load_problem
from judge.runner.workdirs import HeldDir
from judge.scoreboard.text import warnings_banner


def cmd_fuzz(args: argparse.Namespace) -> int:
    if args.examples < 1 or args.jobs < 1:
        raise UsageError("--examples and --jobs must be at least 1")
    problem = load_problem(Path(args.problem))
    source = Path(args.source)
    if not source.exists():
        raise UsageError(f"{source}: no such file")
    if not (problem.path / "fuzz.py").is_file():
        raise PackageError(f"{args.problem}: no fuzz.py (see docs/fuzzing.md)")
    env = make_environment(args)
    tune_for_fuzzing()
    progress = sys.stderr.isatty() and not args.json
    with HeldDir("judge-fuzz-") as tmp:
        prepared = prepare(problem, env, tmp)
        try:
            outcome = fuzz_submission(
                prepared, source, env, _options(args, problem), on_example=_progress(args, progress)
            )
        except SkipLanguage as exc:
            raise UsageError(str(exc)) from None
    if progress:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    outcome = _save(outcome, problem, args)
    if args.json:
        print(json.dumps(outcome.to_json(), indent=2))
    else:
        print(warnings_banner(env.runner.info.warnings), end="")
        print(report(outcome, args))
    if outcome.status is FuzzStatus.ERROR:
        return EXIT_JE
    if outcome.status in (FuzzStatus.COUNTEREXAMPLE, FuzzStatus.NOT_BUILT):
        return EXIT_FAILED
    if outcome.status is FuzzStatus.UNAVAILABLE:
        raise PackageError(outcome.message)
    return EXIT_OK


def _options(args: argparse.Namespace, problem: Problem) -> FuzzOptions:
    """`judge fuzz`'s options; the example database in ``$JUDGE_CACHE``, else in the project's cache folder."""
    configured = os.environ.get("JUDGE_CACHE")
    return FuzzOptions(
        examples=args.examples,
        seed=args.seed,
        jobs=args.jobs,
        use_database=not args.no_db,
        database_dir=default_cache_dir(problem.path, Path(configured) if configured else None) / "hypothesis",
        use_accepts=not args.no_accepts,
        check_inputs=args.check_inputs,
        shrink_time_s=args.shrink_time,
    )


def _progress(args: argparse.Namespace, shown: bool) -> OnExample:
    """Counts the examples judged, over all searches (their threads call it); every 25th shown when ``shown``."""
    done = [0]

    def on_example(n: int, test_input: bytes, trial: Trial) -> None:
        done[0] += 1
        if shown and done[0] % 25 == 0:
            print(f"\r  {done[0]}/{args.examples} examples", end="", file=sys.stderr, flush=True)

    return on_example


def _save(outcome: FuzzOutcome, problem: Problem, args: argparse.Namespace) -> FuzzOutcome:
    """With --save, a confirmed counterexample added to the package (the outcome then says where)."""
    cex = outcome.counterexample
    if not args.save or cex is None or outcome.status is not FuzzStatus.COUNTEREXAMPLE:
        return outcome
    if cex.confirmed:  # never save a test that the package's own judging does not fail
        paths = save_counterexample(problem, cex)
        return replace(outcome, saved_as=tuple(str(p) for p in paths))
    if not args.json:
        print("not saved: the counterexample was not reproduced by judging it again", file=sys.stderr)
    return outcome


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines() or [""])


def report(o: FuzzOutcome, args: argparse.Namespace | None = None) -> str:
    """The human-readable report of one fuzzing run."""
    lines = [f"fuzz {o.problem}: {o.source} ({o.language}), seed {o.seed}, checked by {o.checker}"]
    if o.status is FuzzStatus.NOT_BUILT:
        lines += ["does not compile:", _indent(o.message.strip())]
    elif o.status is FuzzStatus.ERROR:
        lines += [f"judge error (the package's fault, not the submission's): {o.message}"]
        if o.counterexample is not None:
            lines += ["on the input:", _indent(show_bytes(o.counterexample.input))]
    elif o.status is FuzzStatus.PASSED:
        lines += [
            f"passed: {o.examples} examples, no disagreement "
            f"({o.runs} distinct inputs run in {o.elapsed_s:.1f} s, {o.examples_per_s:.1f} examples/s)"
        ]
    elif o.counterexample is not None:
        c = o.counterexample
        where = "replayed from the example database" if o.replayed else f"after {o.examples} examples"
        lines += [
            f"COUNTEREXAMPLE ({c.verdict.value}) {where}, shrunk with {o.shrink_runs} more runs",
            "input:",
            _indent(show_bytes(c.input)),
            "expected (reference answer):",
            _indent(show_bytes(c.answer)),
            "received:",
            _indent(show_bytes(c.output) if c.output is not None else f"(no answer: {c.verdict.value})"),
        ]
        if c.message:
            lines += ["judge message:", _indent(c.message.strip()[:1500])]
        if args is not None:
            lines += [
                f"reproduce: judge fuzz {args.problem} {args.source} --seed {o.seed} "
                f"--examples {args.examples}" + (f" --jobs {args.jobs}" if args.jobs > 1 else "")
            ]
        for path in o.saved_as:
            lines += [f"saved: {path}"]
    return "\n".join(lines)
