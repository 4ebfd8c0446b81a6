"""The `judge` command: the argument tree (all of it, here: one function per command, the shared options apart)
and the dispatch; the commands live in judge/commands/, one module each.

Exit codes: 0 judged (whatever the verdict), 1 a check failed (verify, fuzz, doctor), 2 usage or bad package
(one line, no traceback), 3 judge error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import TypeAlias

from judge import __version__
from judge.cluster import ClusterError
from judge.commands.common import EXIT_JE, EXIT_OK, EXIT_USAGE, SelfTestFailed, UsageError
from judge.commands.defaults import (
    BOARD_INTERVAL_S,
    FEED_INTERVAL_S,
    REQUEST_THREADS,
    SERVE_NICENESS,
    default_jobs,
    non_negative_seconds,
)
from judge.fuzz.options import FUZZ_SHRINK_TIME_S, LIVE_FUZZ_EXAMPLES, LIVE_FUZZ_SECONDS
from judge.grade.options import FUZZ_SEED, GRADE_DB_NAME, PENALTY_MINUTES
from judge.languages.table import LanguageError
from judge.package.problem import PackageError

Command = Callable[[argparse.Namespace], int]
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # what add_subparsers returns


def command(module: str, name: str) -> Command:
    """``judge.commands.<module>.<name>``, imported when the command runs (judge/commands/defaults.py says why)."""

    def run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(f"judge.commands.{module}"), name)(args))

    return run


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
        _run_args,
        _verify_args,
        _export_args,
        _doctor_args,
        _grade_args,
        _fuzz_args,
        _serve_args,
        _contest_args,
        _worker_args,
    ):
        add_command(sub)
    return parser


# The options several commands share.


def _problem_dir(p: argparse.ArgumentParser) -> None:
    """`run`, `verify`, `export`, `fuzz`: the problem package, the first argument."""
    p.add_argument("problem", metavar="PROBLEM_DIR")


def _json_option(p: argparse.ArgumentParser, *, help_text: str | None) -> None:
    """`--json`: machine-readable output; ``help_text`` says what the command prints or writes."""
    p.add_argument("--json", action="store_true", help=help_text)


def _jobs_option(p: argparse.ArgumentParser, *, default: int, metavar: str | None = None) -> None:
    """`verify`, `grade`, `serve`: how many submissions are judged at once."""
    p.add_argument("--jobs", type=int, default=default, metavar=metavar, help="submissions judged at once")


def _cluster_options(p: argparse.ArgumentParser) -> None:
    """`grade` and `serve`: judge on a Dask cluster (judge/commands/cluster.py)."""
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="judge on a Dask cluster: a scheduler's address (tcp://HOST:8786, tls://...) whose workers run "
        "`judge worker`, or local:N for N worker processes on this machine (--jobs is then ignored; see "
        "docs/cluster.md)",
    )
    p.add_argument(
        "--cluster-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long to try reaching the scheduler (default 10)",
    )
    _tls_options(p)


def _tls_options(p: argparse.ArgumentParser) -> None:
    """`grade`, `serve` (with --cluster) and `worker`: the certificates for tls:// addresses."""
    p.add_argument("--tls-ca-file", default=None, metavar="FILE", help="CA certificate(s) for TLS (tls:// addresses)")
    p.add_argument("--tls-cert", default=None, metavar="FILE", help="this end's TLS certificate")
    p.add_argument("--tls-key", default=None, metavar="FILE", help="this end's TLS private key")


# One function per command: its parser, its own options, and the function that runs it (judge/commands/<module>.py).


def _run_args(sub: Subcommands) -> None:
    p = sub.add_parser("run", help="judge one source file against one problem package")
    _problem_dir(p)
    p.add_argument("source", metavar="SOURCE")
    _json_option(p, help_text="print one JSON object")
    p.set_defaults(func=command("run", "cmd_run"))


def _verify_args(sub: Subcommands) -> None:
    p = sub.add_parser("verify", help="check every submission in PROBLEM_DIR/submissions gets what is expected of it")
    _problem_dir(p)
    _json_option(p, help_text=None)
    p.add_argument(
        "--all-tests",
        action="store_true",
        help="judge every test, also those after a rejection (checks submissions.yaml rules exactly)",
    )
    _jobs_option(p, default=os.cpu_count() or 1)
    p.set_defaults(func=command("verify", "cmd_verify"))


def _export_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "export",
        help="write a self-contained Kattis package (the reference modules its programs import copied in)",
        description="Copy PROBLEM_DIR to OUT as a package that needs nothing outside it: every module of the "
        "project's `reference` package that its validators, stubs or generators import is copied in beside "
        'them; our extensions stay in judge.yaml. See docs/package-format.md, "Exporting a package".',
    )
    _problem_dir(p)
    p.add_argument("out", metavar="OUT", help="a new folder (named like the problem id, for Kattis tools)")
    p.add_argument("--zip", action="store_true", help="write OUT as a zip archive instead (problem.yaml at its root)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    _json_option(p, help_text="print what was done as one JSON object")
    p.set_defaults(func=command("export", "cmd_export"))


def _doctor_args(sub: Subcommands) -> None:
    p = sub.add_parser("doctor", help="toolchains, sandbox backend, enforced limits")
    p.set_defaults(func=command("doctor", "cmd_doctor"))


def _grade_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "grade",
        help="grade a whole contest folder, store the results in SQLite, write the HTML scoreboard",
        description="Grade SUBMISSIONS_DIR/<contestant>/<problem-id>.<ext> (or <problem-id>/ for "
        "several files). Results are stored in SQLite and reused until the source, the package or the "
        "judge changes.",
    )
    p.add_argument("submissions", metavar="SUBMISSIONS_DIR")
    p.add_argument("--problems", default="problems", metavar="DIR", help="problem packages (default: problems/)")
    p.add_argument("--out", default="scoreboard", metavar="DIR", help="scoreboard folder (default: scoreboard/)")
    p.add_argument("--db", default=None, metavar="FILE", help=f"SQLite database (default: OUT/{GRADE_DB_NAME})")
    _jobs_option(p, default=default_jobs(), metavar="N")
    _json_option(p, help_text="also write OUT/results.json")
    p.add_argument("--rejudge", action="store_true", help="judge everything again, ignoring stored results")
    p.add_argument("--title", default="Scoreboard", help="the board's title")
    p.add_argument(
        "--scoreboard",
        choices=("score", "pass-fail"),
        default="score",
        help="score: ranked by total score (default); pass-fail: the ICPC way (solved, then penalty time; several "
        "files of one problem are attempts, timed by SUBMISSIONS_DIR/times.yaml or the files' times)",
    )
    p.add_argument(
        "--penalty-minutes",
        type=float,
        default=None,
        metavar="M",
        help=f"pass-fail: the minutes a rejected attempt before the accepted one costs (default {PENALTY_MINUTES:g})",
    )
    p.add_argument(
        "--fuzz",
        type=int,
        default=None,
        metavar="N",
        help="also fuzz every submission with the full score on a problem with a fuzz.py, with N examples "
        "(shown on the board; changes no score)",
    )
    p.add_argument(
        "--fuzz-seed",
        type=int,
        default=FUZZ_SEED,
        metavar="S",
        help=f"the fuzzer's seed (default {FUZZ_SEED}: the same contest gives the same board)",
    )
    _cluster_options(p)
    p.set_defaults(func=command("grade", "cmd_grade"))


def _fuzz_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "fuzz",
        help="fuzz a submission against the reference with the package's Hypothesis strategy (fuzz.py)",
        description="Generate inputs with PROBLEM_DIR/fuzz.py, judge SOURCE on each with the package's own "
        "checks, and shrink the first disagreement to a minimal input. See docs/fuzzing.md.",
    )
    _problem_dir(p)
    p.add_argument("source", metavar="SOURCE")
    p.add_argument("--examples", type=int, default=200, metavar="N", help="examples to try (default 200)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="make the run reproducible")
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="J",
        help="submission runs at once, each with its own Hypothesis search plus one spare that draws while "
        "they run (the result depends on --seed and --jobs, not on timing; default 1)",
    )
    p.add_argument("--save", action="store_true", help="add the shrunk input to the package as a regression test")
    _json_option(p, help_text="print one JSON object")
    p.add_argument(
        "--no-accepts",
        action="store_true",
        help="judge every example with the package's output validator even if fuzz.py defines accepts()",
    )
    p.add_argument(
        "--check-inputs",
        action="store_true",
        help="run the package's input validators on every example (default: on the counterexample only)",
    )
    p.add_argument("--no-db", action="store_true", help="neither replay nor record failures (example database)")
    p.add_argument(
        "--shrink-time",
        type=float,
        default=FUZZ_SHRINK_TIME_S,
        metavar="SECONDS",
        help=f"time spent shrinking a counterexample (default {FUZZ_SHRINK_TIME_S:g})",
    )
    p.set_defaults(func=command("fuzz", "cmd_fuzz"))


def _serve_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "serve",
        help="run a live contest: the ICPC Contest API (teams submit, the judge judges, a live scoreboard)",
        description="Serve the contest package CONTEST_DIR (contest.yaml, problems.yaml, accounts.yaml, "
        "teams.json) over the ICPC Contest API under /api, judging submissions as they come. Everything "
        "is kept in CONTEST_DIR/contest.sqlite. See docs/serve.md.",
    )
    p.add_argument("contest_dir", metavar="CONTEST_DIR", nargs="?", default=None)
    p.add_argument(
        "--problems",
        default=None,
        metavar="DIR",
        help="where to look for problem packages not in CONTEST_DIR/problems/",
    )
    p.add_argument(
        "--replay",
        default=None,
        metavar="ARCHIVE",
        help="serve a finished contest again, read-only, from its contest package archive (`judge contest "
        "export`, or the admin download; a zip or a folder): the public's view, no CONTEST_DIR",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    _jobs_option(p, default=default_jobs(), metavar="N")
    p.add_argument(
        "--judge-nice",
        type=int,
        default=SERVE_NICENESS,
        metavar="N",
        help=f"the nice value (0..19) of the programs, compilers and validators the server runs (default "
        f"{SERVE_NICENESS}: judging yields the CPU to the pages and the API; verdicts count CPU time only)",
    )
    p.add_argument(
        "--board-interval",
        type=non_negative_seconds,
        default=BOARD_INTERVAL_S,
        metavar="SECONDS",
        help=f"at most one new scoreboard per SECONDS (default {BOARD_INTERVAL_S:g}; 0: a new one at every change): "
        "in a submission rush the board is ranked and drawn once per interval, not per submission; the event "
        "feed stays exact",
    )
    p.add_argument(
        "--feed-interval",
        type=non_negative_seconds,
        default=FEED_INTERVAL_S,
        metavar="SECONDS",
        help=f"open event feeds are woken at most once per SECONDS (default {FEED_INTERVAL_S:g}; 0: at every "
        "change) and get what was published meanwhile in one write: 500 feeds in a submission rush",
    )
    p.add_argument(
        "--request-threads",
        type=int,
        default=REQUEST_THREADS,
        metavar="N",
        help=f"at most N requests at once in worker threads (default {REQUEST_THREADS}); the others wait their "
        "turn: the threads share one interpreter lock, so more do not serve more, and each one waiting for it "
        "takes a core from the event loop",
    )
    p.add_argument(
        "--forwarded-allow-ips",
        default="",
        metavar="IPS",
        help="the proxies whose X-Forwarded-For and X-Forwarded-Proto are trusted: comma-separated addresses or "
        "networks, or * (default none: the peer's own address counts; docs/security.md)",
    )
    p.add_argument(
        "--account-lockout",
        default="5/60",
        metavar="N/SECONDS",
        help="after N failed logins for one username within SECONDS, refuse that username's logins until the "
        "window has passed (default 5/60; 0 turns it off; docs/security.md says what it costs)",
    )
    p.add_argument(
        "--address-lockout",
        default="20/60",
        metavar="N/SECONDS",
        help="the same for failed logins from one client address (default 20/60; 0 turns it off)",
    )
    p.add_argument(
        "--fuzz",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="live fuzzing: fuzz each accepted submission of a problem with a fuzz.py against its reference on "
        "idle judging slots; the jury sees the counterexamples (default: contest.yaml's `fuzz`, else off; "
        "docs/live-fuzzing.md)",
    )
    p.add_argument(
        "--fuzz-examples",
        type=int,
        default=LIVE_FUZZ_EXAMPLES,
        metavar="N",
        help=f"live fuzzing's examples per accepted submission (default {LIVE_FUZZ_EXAMPLES})",
    )
    p.add_argument(
        "--fuzz-seconds",
        type=float,
        default=LIVE_FUZZ_SECONDS,
        metavar="S",
        help=f"live fuzzing's seconds per accepted submission, counted while it runs (default {LIVE_FUZZ_SECONDS:g})",
    )
    _cluster_options(p)
    p.set_defaults(func=command("serve", "cmd_serve"))


def _contest_args(sub: Subcommands) -> None:
    """`judge contest init` and `judge contest export`."""
    contest_sub = sub.add_parser("contest", help="contest packages for `judge serve`").add_subparsers(
        dest="contest_command", metavar="SUBCOMMAND"
    )
    contest_sub.required = True
    p = contest_sub.add_parser(
        "init",
        help="write a ready demo contest package (the problems, a few teams; passwords printed once)",
    )
    p.add_argument("dir", metavar="DIR")
    p.add_argument(
        "--problems",
        default=None,
        metavar="DIR",
        help="problem packages to copy in (default: the judge's own demo problems, from any folder)",
    )
    p.add_argument("--teams", type=int, default=4, metavar="N", help="number of teams (default 4)")
    p.add_argument(
        "--type",
        choices=("score", "pass-fail"),
        default="score",
        help="score: ranked by total score (default); pass-fail: an ICPC contest (solved, then penalty time)",
    )
    p.add_argument(
        "--start",
        default=None,
        metavar="TIME",
        help="start time, e.g. 2026-11-22T10:00:00+01, or +SPAN from now, e.g. +2m (default: now)",
    )
    p.add_argument(
        "--duration",
        default="5:00:00",
        metavar="SPAN",
        help="how long it runs: h:mm:ss, or 30m, 2h, 90s (default 5:00:00)",
    )
    p.add_argument(
        "--freeze",
        default="1:00:00",
        metavar="SPAN",
        help="the scoreboard freeze before the end, as --duration; 0 never freezes (default 1:00:00)",
    )
    p.add_argument(
        "--weak-tests",
        default=None,
        metavar="PROBLEM",
        help="give PROBLEM (one with a fuzz.py, e.g. rummy) only its samples as secret data: a deliberately weak "
        "test set, for live fuzzing's demo (docs/live-fuzzing.md)",
    )
    p.set_defaults(func=command("serve", "cmd_contest_init"))
    p = contest_sub.add_parser(
        "export",
        help="write a served contest as a contest package archive (every file the spec lists, as an admin sees it)",
    )
    p.add_argument("dir", metavar="DIR", help="the contest package `judge serve` ran (with its contest.sqlite)")
    p.add_argument("out", metavar="OUT", help="the archive to write: OUT.zip, or a new (or empty) folder")
    p.add_argument(
        "--problems", default=None, metavar="DIR", help="where to look for problem packages not in DIR/problems/"
    )
    p.set_defaults(func=command("serve", "cmd_contest_export"))


def _worker_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "worker",
        help="serve a Dask scheduler as a judge worker (docs/cluster.md)",
        description="Run the sandbox self-test, then join the Dask scheduler at SCHEDULER_ADDRESS (started with "
        "`dask scheduler`) as a worker that judges up to N submissions at once for `judge grade --cluster`. "
        "It refuses to join when the self-test fails, and retires when its sandbox breaks.",
    )
    p.add_argument("scheduler", metavar="SCHEDULER_ADDRESS", help="e.g. tcp://judge-host:8786")
    p.add_argument(
        "--slots",
        type=int,
        default=default_jobs(),
        metavar="N",
        help="submissions judged at once (default: the usable cores)",
    )
    p.add_argument("--name", default=None, help="the worker's name in the scheduler (default: its address)")
    p.add_argument(
        "--host",
        default=None,
        metavar="HOST",
        help="listen on this address (default: every interface, advertising the one that reaches the scheduler)",
    )
    p.add_argument("--port", type=int, default=0, help="listen on this port (default: any free one)")
    p.add_argument(
        "--contact-address",
        default=None,
        metavar="ADDRESS",
        help="the address the scheduler and the others reach this worker at, when it differs from where it "
        "listens (a container, NAT): e.g. tcp://judge-3.example.org:9000",
    )
    p.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="where packages are unpacked, by content hash (default: $JUDGE_CACHE_DIR/packages, else "
        "~/.cache/judge/packages)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long to try reaching the scheduler (default 60)",
    )
    _tls_options(p)
    p.set_defaults(func=command("worker", "cmd_worker"))


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
