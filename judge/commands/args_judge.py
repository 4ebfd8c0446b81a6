"""The `judge` command's argument tree: the commands that judge a package or a folder (run, verify, export,
doctor, grade, similarity, fuzz), each its parser, its own options and the function that runs it
(judge/commands/<module>.py)."""

from __future__ import annotations

import os

from judge.commands.args_common import Subcommands, cluster_options, command, jobs_option, json_option, problem_dir
from judge.commands.defaults import (
    default_jobs,
)
from judge.fuzz.options import EXPLAIN_EXAMPLES, EXPLAIN_SECONDS, FUZZ_SHRINK_TIME_S
from judge.grade.options import FUZZ_SEED, GRADE_DB_NAME, PENALTY_MINUTES


def run_args(sub: Subcommands) -> None:
    p = sub.add_parser("run", help="judge one source file against one problem package")
    problem_dir(p)
    p.add_argument("source", metavar="SOURCE")
    json_option(p, help_text="print one JSON object")
    p.set_defaults(func=command("run", "cmd_run"))


def verify_args(sub: Subcommands) -> None:
    p = sub.add_parser("verify", help="check every submission in PROBLEM_DIR/submissions gets what is expected of it")
    problem_dir(p)
    json_option(p, help_text=None)
    p.add_argument(
        "--all-tests",
        action="store_true",
        help="judge every test, also those after a rejection (checks submissions.yaml rules exactly)",
    )
    jobs_option(p, default=os.cpu_count() or 1)
    p.set_defaults(func=command("verify", "cmd_verify"))


def export_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "export",
        help="write a self-contained Kattis package (the reference modules its programs import copied in)",
        description="Copy PROBLEM_DIR to OUT as a package that needs nothing outside it: every module of the "
        "project's `reference` package that its validators, stubs or generators import is copied in beside "
        'them; our extensions stay in judge.yaml. See docs/package-format.md, "Exporting a package".',
    )
    problem_dir(p)
    p.add_argument("out", metavar="OUT", help="a new folder (named like the problem id, for Kattis tools)")
    p.add_argument("--zip", action="store_true", help="write OUT as a zip archive instead (problem.yaml at its root)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    json_option(p, help_text="print what was done as one JSON object")
    p.set_defaults(func=command("export", "cmd_export"))


def doctor_args(sub: Subcommands) -> None:
    p = sub.add_parser("doctor", help="toolchains, sandbox backend, enforced limits")
    p.set_defaults(func=command("doctor", "cmd_doctor"))


def grade_args(sub: Subcommands) -> None:
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
    jobs_option(p, default=default_jobs(), metavar="N")
    json_option(p, help_text="also write OUT/results.json")
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
    p.add_argument(
        "--explain",
        action="store_true",
        help="also search every rejected submission (WA, RTE, PV) on a problem with a fuzz.py for a fresh, small "
        "input it fails on, never one of the tests, and show it on the submission's page (docs/explain.md)",
    )
    p.add_argument(
        "--explain-examples",
        type=int,
        default=EXPLAIN_EXAMPLES,
        metavar="N",
        help=f"--explain: generated inputs per submission at most (default {EXPLAIN_EXAMPLES})",
    )
    p.add_argument(
        "--explain-seconds",
        type=float,
        default=EXPLAIN_SECONDS,
        metavar="S",
        help=f"--explain: seconds per submission at most, the build and the shrinking included "
        f"(default {EXPLAIN_SECONDS:g})",
    )
    p.add_argument(
        "--similarity",
        action="store_true",
        help="also write the similarity report (judge similarity) to OUT/staff/similarity/, for the jury only: "
        "the board never links it (docs/similarity.md)",
    )
    p.add_argument(
        "--assignment",
        default=None,
        metavar="FILE",
        help="grade the folder as a course's assignment (docs/course.md): FILE is a contest.yaml with an "
        "`assignment:` (or that mapping alone): the window, the late penalty, overrides, last or best; every "
        "file of a problem is an attempt, made when SUBMISSIONS_DIR/times.yaml or the file's time says; the "
        "board shows the score after the penalty and OUT/gradebook.csv is written",
    )
    p.add_argument(
        "--roster",
        default=None,
        metavar="PATH",
        help="with --assignment: the students (a roster CSV, columns by header, or a course folder); default: "
        "every contestant folder that is not a group's",
    )
    p.add_argument(
        "--gradebook-format",
        choices=("csv", "canvas", "moodle"),
        default="csv",
        help="with --assignment: OUT/gradebook.csv's columns: csv (everything, default), canvas, moodle",
    )
    cluster_options(p)
    p.set_defaults(func=command("grade", "cmd_grade"))


def similarity_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "similarity",
        help="per problem, the pairs of submissions that share the most code (for the jury; docs/similarity.md)",
        description="Compare the submissions of SUBMISSIONS_DIR problem by problem (names, comments and layout "
        "normalised; the code the package gives everyone left out) and write a report of the pairs above the "
        "threshold: OUT/index.html (side by side, matches highlighted) and OUT/similarity.json.",
    )
    p.add_argument("submissions", metavar="SUBMISSIONS_DIR")
    p.add_argument("--problems", default="problems", metavar="DIR", help="problem packages (default: problems/)")
    p.add_argument("--problem", default=None, metavar="P", help="only this problem")
    p.add_argument(
        "--against",
        action="append",
        default=None,
        metavar="OLD_DIR",
        help="also compare with this earlier term's or contest's folder (never among those themselves); repeatable",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="T",
        help="report pairs at least this similar, a share 0..1 (default 0.5, tuned on the demo contest)",
    )
    p.add_argument("--out", default="similarity", metavar="DIR", help="the report's folder (default: similarity/)")
    p.set_defaults(func=command("similarity", "cmd_similarity"))


def fuzz_args(sub: Subcommands) -> None:
    p = sub.add_parser(
        "fuzz",
        help="fuzz a submission against the reference with the package's Hypothesis strategy (fuzz.py)",
        description="Generate inputs with PROBLEM_DIR/fuzz.py, judge SOURCE on each with the package's own "
        "checks, and shrink the first disagreement to a minimal input. See docs/fuzzing.md.",
    )
    problem_dir(p)
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
    json_option(p, help_text="print one JSON object")
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
