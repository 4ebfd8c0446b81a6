"""The `judge` command's argument tree: the commands of a live contest (serve, contest, worker), each its
parser, its own options and the function that runs it (judge/commands/<module>.py)."""

from __future__ import annotations

import argparse

from judge.commands.args_common import Subcommands, cluster_options, command, jobs_option, tls_options
from judge.commands.defaults import (
    BOARD_INTERVAL_S,
    FEED_INTERVAL_S,
    REQUEST_THREADS,
    SERVE_NICENESS,
    default_jobs,
    non_negative_seconds,
    positive_seconds,
)
from judge.fuzz.options import LIVE_FUZZ_EXAMPLES, LIVE_FUZZ_SECONDS


def database_options(p: argparse.ArgumentParser) -> None:
    """`judge serve --database` / `--database-file` (issue 51; read by commands/database.engine_of)."""
    p.add_argument(
        "--database",
        default=None,
        metavar="DSN",
        help="keep the site's databases in PostgreSQL (postgresql://USER@HOST/DBNAME: one database per site, a "
        "schema per contest) instead of SQLite files in its folders (the default); a password belongs in "
        "~/.pgpass or --database-file, not on the command line (docs/serve.md)",
    )
    p.add_argument(
        "--database-file",
        default=None,
        metavar="FILE",
        help="the same, read from FILE (owner-only: chmod 600), so that no password shows in the process list",
    )
    p.add_argument(
        "--shared",
        action="store_true",
        help="several `judge serve --shared` processes (on this machine or others) serve the one PostgreSQL "
        "database: claims are leases, feeds and boards hear of the others' changes (docs/serve.md); without it "
        "a second process on the database is refused",
    )
    p.add_argument(
        "--lease",
        type=positive_seconds,
        default=30.0,
        metavar="SECONDS",
        help="with --shared: a job this process claimed is its own this long without a renewal (renewed while it "
        "judges); a killed process's jobs are judged by another after it (default: 30)",
    )


def serve_args(sub: Subcommands) -> None:
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
        action="extend",
        nargs="+",
        default=None,
        metavar="ARCHIVE",
        help="serve a finished contest again, read-only, from its contest package archive (`judge contest "
        "export`, or the admin download; a zip or a folder): the public's view, no CONTEST_DIR; several "
        "archives (--replay A.zip B.zip, or --replay again) make one site of their contests, listed at /",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    jobs_option(p, default=default_jobs(), metavar="N")
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
    database_options(p)
    cluster_options(p)
    p.set_defaults(func=command("serve", "cmd_serve"))


def contest_args(sub: Subcommands) -> None:
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
    p.set_defaults(func=command("contest", "cmd_contest_init"))
    p = contest_sub.add_parser(
        "export",
        help="write a served contest as a contest package archive (every file the spec lists, as an admin sees it)",
    )
    p.add_argument("dir", metavar="DIR", help="the contest package `judge serve` ran (with its contest.sqlite)")
    p.add_argument("out", metavar="OUT", help="the archive to write: OUT.zip, or a new (or empty) folder")
    p.add_argument(
        "--problems", default=None, metavar="DIR", help="where to look for problem packages not in DIR/problems/"
    )
    p.set_defaults(func=command("contest", "cmd_contest_export"))


def site_args(sub: Subcommands) -> None:
    """`judge site init` (issue 44)."""
    site_sub = sub.add_parser("site", help="sites of several contests for `judge serve`").add_subparsers(
        dest="site_command", metavar="SUBCOMMAND"
    )
    site_sub.required = True
    p = site_sub.add_parser(
        "init",
        help="write a ready demo site: a practice contest running now and a main contest an hour later, "
        "sharing the teams and the problems (passwords printed once)",
    )
    p.add_argument("dir", metavar="DIR")
    p.add_argument(
        "--problems",
        default=None,
        metavar="DIR",
        help="problem packages to copy in (default: the judge's own demo problems, from any folder)",
    )
    p.add_argument("--teams", type=int, default=4, metavar="N", help="number of teams (default 4)")
    p.set_defaults(func=command("contest", "cmd_site_init"))


def db_args(sub: Subcommands) -> None:
    """`judge db copy` (issue 51)."""
    db_sub = sub.add_parser("db", help="`judge serve`'s databases: SQLite and PostgreSQL").add_subparsers(
        dest="db_command", metavar="SUBCOMMAND"
    )
    db_sub.required = True
    p = db_sub.add_parser(
        "copy",
        help="copy a site's (or a contest folder's) databases from SQLite to PostgreSQL or back, every row",
        description="Copy every database of the folder (a site: site.sqlite and each contest's contest.sqlite; "
        "a contest served alone: its contest.sqlite) into PostgreSQL (one schema each), or back from there into "
        "new SQLite files. One of SRC and DST is the folder, the other a postgresql://... DSN (a password: in "
        "~/.pgpass). The destination must be new; no `judge serve` may run on the folder meanwhile.",
    )
    p.add_argument("src", metavar="SRC", help="the folder, or postgresql://USER@HOST/DBNAME")
    p.add_argument("dst", metavar="DST", help="postgresql://USER@HOST/DBNAME, or the folder")
    p.add_argument(
        "--problems", default=None, metavar="DIR", help="where a contest folder's problems are, after its problems/"
    )
    p.set_defaults(func=command("db", "cmd_db_copy"))


def worker_args(sub: Subcommands) -> None:
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
    tls_options(p)
    p.set_defaults(func=command("worker", "cmd_worker"))
