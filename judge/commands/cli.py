"""The `judge` command: the argument tree (its root here; each command's parser in args_judge.py and
args_serve.py, the shared options in args_common.py) and the dispatch; the commands live in judge/commands/,
one module each.

Exit codes: 0 judged (whatever the verdict), 1 a check failed (verify, fuzz, doctor), 2 usage or bad package
(one line, no traceback), 3 judge error.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence

from judge import __version__
from judge.cluster import ClusterError
from judge.commands.args_course import course_args
from judge.commands.args_judge import (
    doctor_args,
    export_args,
    fuzz_args,
    grade_args,
    run_args,
    similarity_args,
    verify_args,
)
from judge.commands.args_serve import contest_args, db_args, serve_args, site_args, worker_args
from judge.commands.common import EXIT_JE, EXIT_OK, EXIT_USAGE, SelfTestFailed, UsageError
from judge.languages.table import LanguageError
from judge.package.problem import PackageError


def build_parser() -> argparse.ArgumentParser:
    """The whole argument tree: the options before the command, then each command's, in `judge --help`'s order."""
    parser = argparse.ArgumentParser(prog="judge", description="A competition-style judge and grader.")
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    parser.add_argument(
        "--sandbox",
        choices=("auto", "bwrap", "rlimits"),
        default=None,
        help="sandbox backend (default: $JUDGE_SANDBOX, else auto = bwrap when it works, else rlimits with a warning)",
    )
    parser.add_argument(
        "--warm-validators",
        choices=("on", "off"),
        default=None,
        help="the package's Python validators start from a warm interpreter, forked per run (default: on; off: "
        "a new interpreter per run, also $JUDGE_NO_WARM=1; docs/sandbox.md)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add_command in (
        run_args,
        verify_args,
        export_args,
        doctor_args,
        grade_args,
        similarity_args,
        fuzz_args,
        serve_args,
        contest_args,
        course_args,
        site_args,
        db_args,
        worker_args,
    ):
        add_command(sub)
    return parser


class Terminated(BaseException):
    """SIGTERM (`docker stop`, a service manager): stop as on Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    main_thread = threading.current_thread() is threading.main_thread()
    # As pid 1 of a container the judge would otherwise ignore SIGTERM (no default action there).
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if main_thread else None
    try:
        return _run(args)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except (PackageError, LanguageError, UsageError) as exc:
        print(f"judge: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ClusterError as exc:
        print(f"judge: error: {exc}", file=sys.stderr)
        return EXIT_JE
    except SelfTestFailed as exc:
        print(
            f"judge: error: the sandbox cannot run programs and validators here, so nothing was judged: {exc}"
            " (see `judge doctor`)",
            file=sys.stderr,
        )
        return EXIT_JE
    except BrokenPipeError:  # `judge ... | head`: the reader went away; not an error
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        print("judge: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("judge: terminated", file=sys.stderr)
        return 143
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
