"""`judge course init`, `judge course roster import` and `judge course grades` (issue 45; docs/course.md): the
edge of judge/course/ (its records built here from the arguments and the files, passwords made and hashed
here, each contest's submissions read through `judge serve`'s storage)."""

from __future__ import annotations

import argparse
import secrets
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.commands.common import EXIT_OK, UsageError
from judge.course.book import Gradebook, gradebook
from judge.course.demo import write_demo_course
from judge.course.export import Format, csv_text, gradebook_rows, number
from judge.course.folder import Course, load_course
from judge.course.gradebook import Submission
from judge.course.rostercsv import parse_roster_csv
from judge.course.rosterdiff import NewLogin, login_rows, new_logins, preview
from judge.course.sitefiles import applied_people, read_people, roster_from, write_people, write_private
from judge.course.values import CourseError
from judge.scoreboard.text import table
from judge.scoreboard.times import format_time

if TYPE_CHECKING:
    from argon2 import PasswordHasher


def make_password() -> str:
    return secrets.token_urlsafe(9)


def _hasher() -> PasswordHasher:
    """`judge serve`'s argon2 parameters (every stored hash is made with them), imported when needed."""
    from judge.serve.services.people.accounts import password_hasher

    return password_hasher()


def _logins_path(args: argparse.Namespace, course: Path) -> Path:
    if args.logins is not None:
        return Path(args.logins)
    return course / f"logins-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.csv"


def _write_logins(path: Path, logins: Sequence[NewLogin]) -> None:
    try:
        write_private(path, csv_text(login_rows(logins)), exclusive=True)
    except FileExistsError:
        raise UsageError(f"{path}: exists (a file of passwords is written once): name another with --logins") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot write it ({exc.strerror})") from None


def cmd_course_init(args: argparse.Namespace) -> int:
    from judge.commands.contest import demo_problems
    from judge.grade.discovery import load_problems

    dest = Path(args.dir)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(f"{dest}: exists and is not an empty folder (nothing was written)")
    problems_dir = Path(args.problems) if args.problems is not None else demo_problems()
    if not problems_dir.is_dir():
        raise UsageError(f"{problems_dir}: not a folder of problem packages: use --problems DIR")
    problems, issues = load_problems(problems_dir)
    if issues:
        raise UsageError(f"{problems_dir}/{issues[0].path}: {issues[0].reason}")
    hasher = _hasher()
    try:
        demo = write_demo_course(dest, problems, time.time(), make_password, hasher.hash)
    except ValueError as exc:
        raise UsageError(f"{problems_dir}: {exc}") from None
    logins = _logins_path(args, dest)
    _write_logins(logins, demo.students)
    course = _load(dest)
    print(f"wrote the demo course {dest}: {len(demo.students)} students in sections A and B, three assignments")
    for a in course.assignments:
        w = a.assignment.window
        late = f", late until {format_time(w.close_s)}" if w.late else ""
        print(f"  {a.id:<5} {a.name}: due {format_time(w.due_s)}{late} ({', '.join(p for p, _ in a.problems)})")
    print(f"the students' passwords (once, owner-only, for a mail-merge): {logins}")
    print("staff passwords (shown only this once; accounts.yaml keeps argon2 hashes):")
    for s in demo.staff:
        print(f"  {s.username:<10}  {s.password}  ({s.type})")
    print(f"grades: judge course grades {dest}; serve it: judge serve {dest}")
    return EXIT_OK


def cmd_roster_import(args: argparse.Namespace) -> int:
    course, path = Path(args.course), Path(args.file)
    if not course.is_dir():
        raise UsageError(f"{course}: not a folder (a course: `judge course init DIR` makes one)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        roster_file = parse_roster_csv(data, str(path), dict(args.column))
        people = read_people(course)
        plan = preview(roster_from(people), roster_file.students, roster_file.fields)
    except CourseError as exc:
        raise UsageError(str(exc)) from None
    print(f"{path}: {len(roster_file.students)} students ({roster_file.encoding}); the columns:")
    for line in roster_file.mapping_lines():
        print(f"  {line}")
    for row, why in roster_file.skipped:
        print(f"  row {row} skipped: {why}")
    for line in plan.lines():
        print(line)
    counts = (
        f"{len(plan.added)} added, {len(plan.changed)} changed, {len(plan.removed)} removed, {plan.unchanged} unchanged"
    )
    if not args.apply:
        print(f"{counts}; nothing written (run again with --apply to apply exactly this)")
        return EXIT_OK
    logins = new_logins(plan, make_password)
    passwords = {lg.student.id: lg.password for lg in logins}
    logins_path = _logins_path(args, course)
    hasher = _hasher()
    try:
        updated = applied_people(people, plan, lambda s: hasher.hash(passwords[s.id]))
    except CourseError as exc:
        raise UsageError(str(exc)) from None
    if logins:
        _write_logins(logins_path, logins)  # first: a failure here leaves the roster as it was
    written = write_people(updated)
    print(f"{counts}; applied: {', '.join(str(p) for p in written)}")
    if logins:
        print(f"the new students' passwords (once, owner-only, for a mail-merge; then delete it): {logins_path}")
    return EXIT_OK


def _load(root: Path, extra: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> Course:
    try:
        return load_course(root, extra)
    except CourseError as exc:
        raise UsageError(str(exc)) from None


def stored_overrides(contest_dir: Path) -> list[dict[str, Any]]:
    """The overrides set on `judge serve`'s roster page for one assignment (none when it never ran)."""
    from judge.course.overrides import loads
    from judge.serve.services.core.coursework import OVERRIDES_KEY
    from judge.serve.storage import DB_NAME, StorageError, open_storage

    db = contest_dir / DB_NAME
    if not db.is_file():
        return []
    try:
        storage = open_storage(db)
    except StorageError as exc:
        raise UsageError(str(exc)) from None
    try:
        with storage.read() as reader:
            text = reader.get_meta(OVERRIDES_KEY)
    finally:
        storage.close()
    try:
        return loads(text, f"{db}: the overrides set while serving")
    except CourseError as exc:
        raise UsageError(str(exc)) from None


def stored_submissions(contest_dir: Path) -> list[Submission]:
    """The submissions `judge serve` stored for one assignment (none when it never ran): each with its current
    judgement's score (None: pending, or a judge error); ignored ones left out."""
    from judge.serve.model.course import course_submissions
    from judge.serve.storage import DB_NAME, StorageError, open_storage

    db = contest_dir / DB_NAME
    if not db.is_file():
        return []
    try:
        storage = open_storage(db)
    except StorageError as exc:
        raise UsageError(str(exc)) from None
    try:
        with storage.read() as reader:
            counted = reader.counted(None)
    finally:
        storage.close()
    return course_submissions(counted)


def summary_table(book: Gradebook) -> str:
    headers = ["id", "name", "section", *(f"{a.id} (of {number(a.max_score)})" for a in book.assignments), "total"]
    rows = [
        [s.id, s.name, s.section, *(number(a.grades[i].score) for a in book.assignments), number(book.total(i))]
        for i, s in enumerate(book.students)
    ]
    return table(headers, rows)


def cmd_course_grades(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    folders = sorted(p for p in (root / "contests").iterdir() if p.is_dir()) if (root / "contests").is_dir() else []
    course = _load(root, {p.name: stored_overrides(p) for p in folders})
    submissions = {a.id: stored_submissions(a.root) for a in course.assignments}
    book = gradebook(course, submissions)
    fmt = Format(args.format)
    out = Path(args.out) if args.out else root / f"gradebook-{fmt.value}.csv"
    text = csv_text(gradebook_rows(fmt, book.students, book.assignments, per_problem=args.per_problem))
    try:
        write_private(out, text)
    except OSError as exc:
        raise UsageError(f"{out}: cannot write it ({exc.strerror})") from None
    print(summary_table(book))
    stored = sum(len(s) for s in submissions.values())
    skipped = f"; not assignments (no `assignment:`): {', '.join(course.skipped)}" if course.skipped else ""
    print(
        f"{len(book.students)} students, {len(book.assignments)} assignments, {stored} submissions{skipped}; "
        f"gradebook ({fmt.value}, owner-only): {out}"
    )
    return EXIT_OK
