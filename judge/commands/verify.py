"""`judge verify PROBLEM_DIR`: every submission in the package gets what its author expects of it."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from judge.authoring.verify import verify
from judge.commands.common import EXIT_FAILED, EXIT_OK, make_environment
from judge.judging.submission import prepare
from judge.package.problem import load_problem
from judge.scoreboard.text import table, warnings_banner


def cmd_verify(args: argparse.Namespace) -> int:
    problem = load_problem(Path(args.problem))
    env = make_environment(args)
    with tempfile.TemporaryDirectory(prefix="judge-verify-") as tmp:
        prepared = prepare(problem, env, Path(tmp))
        if prepared.error and not args.json:
            print(f"warning: {prepared.error}", file=sys.stderr)

        def progress(row):  # type: ignore[no-untyped-def]
            if not args.json:
                got = row.result.verdict.value if row.result else "skipped"
                print(f"  {row.submission}: {got}", file=sys.stderr, flush=True)

        rows, inputs = verify(prepared, env, jobs=args.jobs, on_row=progress, all_tests=args.all_tests)
    bad_inputs = [c for c in inputs if not c.ok]
    all_ok = all(r.ok for r in rows) and not bad_inputs and bool(rows)
    if args.json:
        print(
            json.dumps(
                {
                    "problem": problem.id,
                    "ok": all_ok,
                    "submissions": [r.to_json() for r in rows],
                    "input_validation": {"checked": len(inputs), "failed": [c.__dict__ for c in bad_inputs]},
                    "sandbox_warnings": list(env.runner.info.warnings),
                },
                indent=2,
            )
        )
        return EXIT_OK if all_ok else EXIT_FAILED
    print(warnings_banner(env.runner.info.warnings), end="")
    table_rows = []
    for r in rows:
        if r.result is None:
            table_rows.append([r.submission, "-", r.expected, "skipped", "", "", "skip: " + (r.skipped or "")])
        else:
            res = r.result
            check = "ok" if r.ok and r.checked else "not checked" if r.ok else "MISMATCH"
            table_rows.append(
                [
                    r.submission,
                    res.language,
                    r.expected,
                    res.verdict.value,
                    f"{res.score:g}/{res.max_score:g}",
                    f"{res.time_s:.2f}",
                    check,
                ]
            )
    print(table(["submission", "lang", "expected", "got", "score", "max cpu s", "check"], table_rows))
    for r in rows:
        for line in r.failures:
            print(f"  {r.submission}: {line}")
        for line in r.notes:
            print(f"  {r.submission}: note: {line}")
    print(f"input validators: {len(inputs) - len(bad_inputs)}/{len(inputs)} checks passed")
    for c in bad_inputs[:20]:
        print(f"  invalid input {c.test} ({c.validator}): {c.message}")
    if not rows:
        print("no submissions found under submissions/")
    n_ok = sum(1 for r in rows if r.ok and r.checked and r.result is not None)
    n_unchecked = sum(1 for r in rows if not r.checked and r.result is not None)
    n_skip = sum(1 for r in rows if r.result is None)
    n_bad = len(rows) - n_ok - n_unchecked - n_skip
    print(
        f"{problem.id}: {n_ok} as expected, {n_bad} mismatched, {n_unchecked} not checked, {n_skip} skipped -> "
        + ("OK" if all_ok else "FAILED")
    )
    return EXIT_OK if all_ok else EXIT_FAILED
