"""`judge run PROBLEM_DIR SOURCE`: judge one source file against one package."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judge.commands.common import EXIT_JE, EXIT_OK, UsageError, make_environment
from judge.judging.build import SkipLanguage, detect_language
from judge.judging.jobs import Unreadable, judge_job, make_job
from judge.judging.prepared import Packages
from judge.judging.results import CaseResult
from judge.judging.verdict import Verdict
from judge.package.problem import load_problem
from judge.scoreboard.text import submission_report


def cmd_run(args: argparse.Namespace) -> int:
    problem = load_problem(Path(args.problem))
    source = Path(args.source)
    if not source.exists():
        raise UsageError(f"{source}: no such file")
    env = make_environment(args)

    def progress(r: CaseResult) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"  {r.name}: {r.verdict.value}", file=sys.stderr)

    try:
        job = make_job(source, problem, detect_language(source, env.languages).id)
        with Packages({problem.id: problem}, env) as packages:
            result = judge_job(job, packages, env, on_test=progress)
    except SkipLanguage as exc:
        raise UsageError(str(exc)) from None
    except Unreadable as exc:
        raise UsageError(f"{source}: {exc}") from None
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(submission_report(result))
    return EXIT_JE if result.verdict is Verdict.JE else EXIT_OK
