"""`judge verify PROBLEM_DIR`: every submission in the package gets what its author expects of it."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from judge.authoring.datachecks import InputCheck
from judge.authoring.verify import VerifyRow, verify
from judge.commands.common import EXIT_FAILED, EXIT_OK, make_environment
from judge.judging.submission import prepare
from judge.package.problem import load_problem
from judge.runner.workdirs import HeldDir
from judge.scoreboard.text import table, warnings_banner


def cmd_verify(args: argparse.Namespace) -> int:
    problem = load_problem(Path(args.problem))
    env = make_environment(args)
    with HeldDir("judge-verify-") as tmp:
        prepared = prepare(problem, env, tmp)
        if prepared.error and not args.json:
            print(f"warning: {prepared.error}", file=sys.stderr)
        if not args.json:
            for line in problem.warnings:
                print(f"warning: {line}", file=sys.stderr)

        def progress(row: VerifyRow) -> None:
            if not args.json:
                got = row.result.verdict.value if row.result else "skipped"
                print(f"  {row.submission}: {got}", file=sys.stderr, flush=True)

        notes: list[str] = []
        rows, inputs = verify(
            prepared, env, jobs=args.jobs, on_row=progress, all_tests=args.all_tests, on_note=notes.append
        )
    bad_inputs = [c for c in inputs if not c.ok]
    all_ok = all(r.ok for r in rows) and not bad_inputs and bool(rows)
    warnings = env.runner.info.warnings
    if args.json:
        report = {
            "problem": problem.id,
            "ok": all_ok,
            "submissions": [r.to_json() for r in rows],
            "input_validation": {"checked": len(inputs), "failed": [c.__dict__ for c in bad_inputs]},
            "sandbox_warnings": list(warnings),
            "package_warnings": list(problem.warnings),
            "notes": notes,
        }
        print(json.dumps(report, indent=2))
    else:
        print(warnings_banner(warnings), end="")
        _print_report(rows, inputs, bad_inputs=bad_inputs)
        for line in notes:
            print(line)
        print(f"{problem.id}: {_summary(rows)} -> " + ("OK" if all_ok else "FAILED"))
    return EXIT_OK if all_ok else EXIT_FAILED


def _print_report(rows: Sequence[VerifyRow], inputs: Sequence[InputCheck], *, bad_inputs: Sequence[InputCheck]) -> None:
    """The table of submissions, why each mismatched, and the input validators' findings."""
    print(
        table(["submission", "lang", "expected", "got", "score", "max cpu s", "check"], [_table_row(r) for r in rows])
    )
    for r in rows:
        for line in r.failures:
            print(f"  {r.submission}: {line}")
        for line in r.notes:
            print(f"  {r.submission}: note: {line}")
    print(f"validators: {len(inputs) - len(bad_inputs)}/{len(inputs)} checks passed")
    for c in bad_inputs[:20]:
        print(f"  {c.test} ({c.validator}): {c.message}")
    for c in inputs:
        if c.ok and c.message:
            print(f"  {c.validator}: note: {c.message}")
    if not rows:
        print("no submissions found under submissions/")


def _table_row(r: VerifyRow) -> list[str]:
    """One submission's line in the table."""
    if r.result is None:
        return [r.submission, "-", r.expected, "skipped", "", "", "skip: " + (r.skipped or "")]
    res = r.result
    check = "ok" if r.ok and r.checked else "not checked" if r.ok else "MISMATCH"
    score = f"{res.score:g}/{res.max_score:g}"
    return [r.submission, res.language, r.expected, res.verdict.value, score, f"{res.time_s:.2f}", check]


def _summary(rows: Sequence[VerifyRow]) -> str:
    """How many submissions met their expectation, did not, were not checked, were skipped."""
    n_ok = sum(1 for r in rows if r.ok and r.checked and r.result is not None)
    n_unchecked = sum(1 for r in rows if not r.checked and r.result is not None)
    n_skip = sum(1 for r in rows if r.result is None)
    n_bad = len(rows) - n_ok - n_unchecked - n_skip
    return f"{n_ok} as expected, {n_bad} mismatched, {n_unchecked} not checked, {n_skip} skipped"
