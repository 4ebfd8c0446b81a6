"""`judge grade LMS_EXPORT.zip|DIR --roster FILE [--assignment FILE]` (issue 48; docs/course.md, "Grading an LMS
download"): the edge between `judge grade` and an LMS's bulk download. The download is read (grade/lmsdownload.py),
each file placed by student and problem (course/lmsmatch.py), the placed files written as a contest folder under
OUT that `judge grade` then grades as the assignment; afterwards the LMS's import file and the report of every file
are written beside the board."""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.commands.common import UsageError
from judge.course.assignment import Assignment
from judge.course.export import GradedAssignment, csv_text
from judge.course.folder import assignment_problems, check_roster, load_assignment_file
from judge.course.lmsexport import lms_rows
from judge.course.lmsmatch import Plan, plan
from judge.course.lmsnames import Layout, detect_layout
from judge.course.lmsroster import LmsRoster, parse_lms_roster
from judge.course.roster import Roster
from judge.course.sitefiles import read_roster, write_private
from judge.course.values import CourseError
from judge.course.window import LateStep, Window
from judge.grade.assignment import AssignmentSettings
from judge.grade.lmsdownload import (
    Download,
    DownloadError,
    Staged,
    looks_like_download,
    read_download,
    report_rows,
    stage,
    write_report,
)
from judge.grade.progress import printable
from judge.package.problem import Problem

STAGING = "lms-submissions"  # under OUT: the placed files, as a contest folder (owner-only)
REPORT = "lms-files.csv"  # under OUT: every file of the download, graded or not and why
IMPORT_FILE = {Layout.CANVAS: "canvas-grades.csv", Layout.MOODLE: "moodle-grading-worksheet.csv"}
NO_PENALTY_S = 100 * 366 * 86400.0  # without --assignment: every file counts in full


@dataclass(frozen=True)
class LmsGrading:
    download: Download
    layout: Layout
    roster: LmsRoster
    plan: Plan
    staged: Staged
    settings: AssignmentSettings


def is_download(args: argparse.Namespace) -> bool:
    """Whether SUBMISSIONS is an LMS's download (``--lms``, a zip, or a folder of LMS names)."""
    return args.lms is not None or looks_like_download(Path(args.submissions))


def _zone(name: str) -> tzinfo:
    if name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f"--lms-timezone {name!r}: not a time zone (e.g. Europe/Berlin, UTC)") from None


def _roster(path: Path, zone: tzinfo) -> LmsRoster:
    if path.is_dir():
        return LmsRoster(read_roster(path).students)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CourseError(f"{path}: cannot read it ({exc.strerror})") from None
    return parse_lms_roster(data, str(path), zone)


def _assignment(
    args: argparse.Namespace, problems: Mapping[str, Problem], now: float
) -> tuple[Assignment, str, str, tuple[str, ...] | None]:
    """The assignment (without --assignment: one whose every file counts in full), its id, its name, its
    problems (None: every problem of --problems)."""
    if args.assignment is None:
        window = Window(None, now, (LateStep(now + NO_PENALTY_S, 100.0),))
        aid = Path(args.submissions).stem.split()[0] if Path(args.submissions).stem.split() else "assignment"
        return Assignment(window), aid, aid, None
    path = Path(args.assignment)
    assignment = load_assignment_file(path)
    aid = path.parent.name if path.name == "contest.yaml" else path.stem
    return assignment, aid, assignment.name or aid, assignment_problems(path)


def prepare(args: argparse.Namespace, problems: Mapping[str, Problem], out: Path, gradebook: str) -> LmsGrading:
    """Read the download, place its files and write them as a contest folder under OUT. Raises UsageError."""
    source = Path(args.submissions)
    if args.roster is None:
        raise UsageError(
            f"{source}: an LMS download needs --roster FILE (Canvas's gradebook export, Moodle's grading worksheet, "
            "or any roster CSV) to know whose each file is"
        )
    zone = _zone(args.lms_timezone)
    try:
        download = read_download(source)
    except DownloadError as exc:
        raise UsageError(str(exc)) from None
    layout = Layout(args.lms) if args.lms is not None else detect_layout(download.files)
    if layout is None:
        raise UsageError(
            f"{source}: no file is named as Moodle's or Canvas's download names them (docs/course.md, "
            "Grading an LMS download); a contest folder is SUBMISSIONS_DIR/<contestant>/<problem>.<ext>"
        )
    try:
        roster = _roster(Path(args.roster), zone)
        assignment, aid, name, problem_ids = _assignment(args, problems, time.time())
        check_roster(assignment, Roster(roster.students), f"{args.assignment}: assignment")
        ids = problem_ids if problem_ids is not None else tuple(sorted(problems))
        placed = plan(list(download.files), layout, roster, ids, assignment)
    except CourseError as exc:
        raise UsageError(str(exc)) from None
    try:
        staged = stage(placed, download, out / STAGING)
    except DownloadError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{out / STAGING}: cannot write it ({exc.strerror})") from None
    settings = AssignmentSettings(assignment, Roster(roster.students), aid, name, gradebook, problem_ids)
    print(
        f"{source}: {layout.value.title()}'s download, {len(download.files)} files: {len(placed.placed)} placed, "
        f"{len(placed.unplaced)} not; roster: {roster.kind}, {len(roster.students)} students"
    )
    for note in roster.notes:
        print(f"  note: {printable(note)}")
    return LmsGrading(download, layout, roster, placed, staged, settings)


def finish(out: Path, lms: LmsGrading, graded: GradedAssignment) -> str:
    """Write the LMS's import file and the report; print what was not graded. Returns the last line's part."""
    rows, left_out = lms_rows(lms.layout, graded, lms.roster, lms.plan.lms_ids)
    import_path = out / IMPORT_FILE[lms.layout]
    report_path = out / REPORT
    try:
        write_private(import_path, csv_text(rows))
        write_report(report_path, report_rows(lms.plan, lms.staged, lms.download))
    except OSError as exc:
        raise UsageError(f"{out}: cannot write the grades ({exc.strerror})") from None
    for u in lms.plan.unplaced:
        print(f"  not graded: {printable(u.path)}: {printable(u.reason)}")
    for path, why in lms.download.skipped:
        print(f"  skipped: {printable(path)}: {why}")
    for s in left_out:
        print(f"  not in {import_path.name}: {s.id} ({printable(s.name)}): the download gave no participant id")
    unplaced = f"{len(lms.plan.unplaced)} file(s) not graded" if lms.plan.unplaced else "every file graded"
    return f"; {lms.layout.value.title()}'s import file: {import_path}; {unplaced}, the report: {report_path}"
