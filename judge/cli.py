"""The `judge` command: argument parsing and output only; the work is done elsewhere.

Exit codes: 0 judged (whatever the verdict), 1 a check failed (verify, fuzz), 2 usage or bad package
(one line, no traceback), 3 judge error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from judge import __version__
from judge.build import SkipLanguage
from judge.doctor import language_status
from judge.judging import Environment, judge_submission, prepare
from judge.languages import LanguageError, load_languages, toolchain
from judge.problem import PackageError, load_problem
from judge.runner import make_runner
from judge.textreport import submission_report, table, warnings_banner
from judge.verdict import Verdict
from judge.verify import verify

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_JE = 0, 1, 2, 3


class UsageError(Exception):
    """Bad arguments or input files: one line for the user, exit 2."""


def make_environment(args: argparse.Namespace) -> Environment:
    return Environment(runner=make_runner(args.sandbox), languages=load_languages(), tools=toolchain())


def _problem(path: str):  # type: ignore[no-untyped-def]
    return load_problem(Path(path))


def cmd_run(args: argparse.Namespace) -> int:
    problem = _problem(args.problem)
    source = Path(args.source)
    if not source.exists():
        raise UsageError(f"{source}: no such file")
    env = make_environment(args)
    with tempfile.TemporaryDirectory(prefix="judge-run-") as tmp:
        prepared = prepare(problem, env, Path(tmp))

        def progress(r):  # type: ignore[no-untyped-def]
            if not args.json and sys.stderr.isatty():
                print(f"  {r.name}: {r.verdict.value}", file=sys.stderr)

        try:
            result = judge_submission(prepared, source, env, on_test=progress)
        except SkipLanguage as exc:
            raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(submission_report(result))
    return EXIT_JE if result.verdict is Verdict.JE else EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    problem = _problem(args.problem)
    env = make_environment(args)
    with tempfile.TemporaryDirectory(prefix="judge-verify-") as tmp:
        prepared = prepare(problem, env, Path(tmp))
        if prepared.error and not args.json:
            print(f"warning: {prepared.error}", file=sys.stderr)

        def progress(row):  # type: ignore[no-untyped-def]
            if not args.json:
                got = row.result.verdict.value if row.result else "skipped"
                print(f"  {row.submission}: {got}", file=sys.stderr, flush=True)

        rows, inputs = verify(prepared, env, jobs=args.jobs, on_row=progress)
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
            table_rows.append(
                [
                    r.submission,
                    res.language,
                    r.expected,
                    res.verdict.value,
                    f"{res.score:g}/{res.max_score:g}",
                    f"{res.time_s:.2f}",
                    "ok" if r.ok else "MISMATCH",
                ]
            )
    print(table(["submission", "lang", "expected", "got", "score", "max cpu s", "check"], table_rows))
    print(f"input validators: {len(inputs) - len(bad_inputs)}/{len(inputs)} checks passed")
    for c in bad_inputs[:20]:
        print(f"  invalid input {c.test} ({c.validator}): {c.message}")
    if not rows:
        print("no submissions found under submissions/")
    n_ok = sum(1 for r in rows if r.ok and r.result is not None)
    n_skip = sum(1 for r in rows if r.result is None)
    print(
        f"{problem.id}: {n_ok} as expected, {len(rows) - n_ok - n_skip} mismatched, {n_skip} skipped -> "
        + ("OK" if all_ok else "FAILED")
    )
    return EXIT_OK if all_ok else EXIT_FAILED


def cmd_doctor(args: argparse.Namespace) -> int:
    env = make_environment(args)
    info = env.runner.info
    print(warnings_banner(info.warnings), end="")
    print(f"judge {__version__}, Python {sys.version.split()[0]} at {env.tools.python}")
    print(f"sandbox backend: {info.backend}")
    print(f"runs start by: {info.mode}")
    print(f"enforced limits: {', '.join(info.enforced) or 'none'}")
    statuses = language_status(env.languages, env.tools, env.runner)
    rows = [[s.id, s.name, "yes" if s.present else "NO", s.detail[:80] if s.present else s.detail] for s in statuses]
    print(table(["language", "name", "present", "version / what to install"], rows))
    return EXIT_OK


Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judge", description="A competition-style judge and grader.")
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    parser.add_argument(
        "--sandbox",
        choices=("auto", "bwrap", "rlimits"),
        default=os.environ.get("JUDGE_SANDBOX", "auto"),
        help="sandbox backend (default: auto = bwrap when it works, else rlimits with a warning)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("run", help="judge one source file against one problem package")
    p.add_argument("problem", metavar="PROBLEM_DIR")
    p.add_argument("source", metavar="SOURCE")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("verify", help="check every submission in PROBLEM_DIR/submissions gets its folder's verdict")
    p.add_argument("problem", metavar="PROBLEM_DIR")
    p.add_argument("--json", action="store_true")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions judged at once")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("doctor", help="toolchains, sandbox backend, enforced limits")
    p.set_defaults(func=cmd_doctor)

    for register in _plugins():
        register(sub)
    return parser


def _plugins() -> list[Callable[[argparse._SubParsersAction], None]]:  # type: ignore[type-arg]
    """Commands that live in their own modules (grade, fuzz)."""
    out = []
    for module in ("judge.grade.command", "judge.fuzz.command"):
        try:
            mod = __import__(module, fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name is not None and module.startswith(exc.name):
                continue
            raise
        out.append(mod.register)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (PackageError, LanguageError, UsageError) as exc:
        print(f"judge: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `judge ... | head`: the reader went away; not an error
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        print("judge: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the judge's own bug: say so in one line, JE exit code
        if os.environ.get("JUDGE_DEBUG"):
            traceback.print_exc()
        print(
            f"judge: internal error (judge error, not the contestant's fault): {type(exc).__name__}: {exc}"
            " (set JUDGE_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_JE


if __name__ == "__main__":
    sys.exit(main())
