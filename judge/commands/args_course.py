"""The `judge` command's argument tree: `judge course` (init, roster import, grades), each its parser, its own
options and the function that runs it (judge/commands/course.py). docs/course.md is the guide."""

from __future__ import annotations

import argparse

from judge.commands.args_common import Subcommands, command

FORMATS = ("csv", "canvas", "moodle")


def column_option(text: str) -> tuple[str, str]:
    """``--column FIELD=HEADER``."""
    field, sep, header = text.partition("=")
    if not sep or not field.strip() or not header.strip():
        raise argparse.ArgumentTypeError(f"expected FIELD=HEADER (e.g. id='Student Number'), got {text!r}")
    return field.strip(), header.strip()


def course_args(sub: Subcommands) -> None:
    course = sub.add_parser(
        "course",
        help="a course: a roster, assignments with deadlines and late penalties, a gradebook (docs/course.md)",
    ).add_subparsers(dest="course_command", metavar="SUBCOMMAND")
    course.required = True

    p = course.add_parser(
        "init",
        help="write a demo course (three assignments, 30 students in two sections, one extension; passwords once)",
        description="Write a demo course into DIR in the site layout: the judge's problems, 30 students in sections "
        "A and B, an instructor and a TA, and three assignments (lab1: late now; hw1: due in a week; exam: in "
        "two weeks). The students' passwords go to a CSV for mail-merge (owner-only), the staff's are printed.",
    )
    p.add_argument("dir", metavar="DIR")
    p.add_argument(
        "--problems", default=None, metavar="DIR", help="where the demo's problems are (default: the judge's own)"
    )
    logins_option(p)
    p.set_defaults(func=command("course", "cmd_course_init"))

    roster = course.add_parser("roster", help="the course's students").add_subparsers(
        dest="roster_command", metavar="SUBCOMMAND"
    )
    roster.required = True
    p = roster.add_parser(
        "import",
        help="import a roster CSV (Canvas, Moodle, Gradescope...): a preview of who is added, changed, removed",
        description="Read the students of FILE (columns found by their header: id, name or first and last name, "
        "email, section; the mapping is shown) and show what importing them into the course DIR would do: who "
        "is added, whose name, email or section changes, who is removed (withdrawn: no login, kept for their "
        "past submissions). Nothing is written without --apply; then the site's teams.json, groups.json and "
        "accounts.yaml are rewritten and each new student's password is written once to a CSV for mail-merge.",
    )
    p.add_argument("file", metavar="FILE", help="the roster CSV")
    p.add_argument("--course", required=True, metavar="DIR", help="the course (site) folder")
    p.add_argument("--apply", action="store_true", help="apply the preview (default: only show it)")
    p.add_argument(
        "--column",
        action="append",
        type=column_option,
        default=[],
        metavar="FIELD=HEADER",
        help="read FIELD (id, name, first, last, email, section, role) from the column HEADER; repeatable",
    )
    logins_option(p)
    p.set_defaults(func=command("course", "cmd_roster_import"))

    p = course.add_parser(
        "grades",
        help="the gradebook: per student and assignment the score after the late penalty, in an LMS's CSV layout",
        description="Grade every assignment of the course DIR from its contest's database (the submissions "
        "`judge serve` stored) and write the gradebook: one row per student, per assignment the score after "
        "the penalty (and per problem), the raw score, the minutes late and the override used.",
    )
    p.add_argument("dir", metavar="DIR", help="the course (site) folder")
    format_option(p, "--format")
    p.add_argument(
        "--per-problem", action="store_true", help="canvas, moodle: also a column per problem (csv always has them)"
    )
    p.add_argument(
        "--out", default=None, metavar="FILE", help="the CSV to write (default: DIR/gradebook-FORMAT.csv; owner-only)"
    )
    p.set_defaults(func=command("course", "cmd_course_grades"))


def format_option(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument(
        name,
        choices=FORMATS,
        default="csv",
        help="csv: every column (default); canvas: Canvas's gradebook import; moodle: Moodle's grade import",
    )


def logins_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--logins",
        default=None,
        metavar="FILE",
        help="where the new students' passwords go, once, owner-only (default: DIR/logins-<time>.csv); never "
        "overwritten: delete it after the mail-merge",
    )
