"""`judge course init DIR`: a demo course in the site layout (docs/course.md): the judge's problems copied into
``DIR/problems/``, 30 students in two sections and their accounts (written the way a roster import writes
them: sitefiles.py), an instructor (admin) and a TA (judge), and three assignments as contests under
``DIR/contests/``, each a contest.yaml with its ``assignment:`` and a problems.yaml:

- ``lab1``, due an hour ago: late now (80 % for a day, then 50 % for a week, then practice); counts the last
  submission; 5 submissions, one back every 30 minutes; student ``s007`` has a two-day extension;
- ``hw1``, due in a week: 80 % for a day after; counts the best; the samples only before the due time; 3
  submissions, one back every hour; section B's due time is a day later;
- ``exam``, in two weeks, three hours, no late submissions: each test's verdict during the exam, everything
  (and the score) once the instructor publishes the grades.

A rejected submission gets an input it fails on (`judge serve`'s ``counterexamples``, docs/explain.md): shown
to the student in lab1 and hw1, to the staff only in the exam.

Passwords are random, stored as argon2 hashes (the commands hash them) and given out once: the students' in
a CSV to mail-merge, the staff's printed. The folder is owner-only (0700) and its people files 0600.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from judge.course.roster import Roster, Student
from judge.course.rosterdiff import NewLogin, new_logins, preview
from judge.course.sitefiles import applied_people, read_people, write_people
from judge.package.problem import Problem
from judge.scoreboard.times import format_reltime, format_time

HOUR, DAY = 3600.0, 86400.0
FIRST = (
    "Ada", "Alan", "Barbara", "Charles", "Donald", "Edsger", "Frances", "Grace", "Hedy", "John",
    "Karen", "Leslie", "Margaret", "Niklaus", "Ole-Johan", "Radia", "Shafi", "Tim", "Tony", "Ursula",
)  # fmt: skip
LAST = (
    "Allen", "Backus", "Conway", "Dahl", "Engelbart", "Floyd", "Goldwasser", "Hamilton", "Iverson", "Jones",
    "Kay", "Lamport", "Liskov", "McCarthy", "Naur", "Perlman", "Ritchie", "Spärck Jones", "Thompson", "Wirth",
)  # fmt: skip
STUDENTS = 30
SECTIONS = ("A", "B")
EXTENDED = "s007"  # lab1's extension
ASSIGNMENT_PROBLEMS = {"lab1": ("rummy", "coins"), "hw1": ("memory", "klondike"), "exam": ("go",)}
COLORS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4")
# who is shown an input a rejected submission fails on (issue 46, docs/explain.md): the student in the lab and the
# homework; the exam's show verdicts only while it runs (its feedback), so its counterexamples are the staff's
COUNTEREXAMPLES = {"lab1": "team", "hw1": "team", "exam": "jury"}


@dataclass(frozen=True)
class StaffLogin:
    username: str
    password: str
    type: str


@dataclass(frozen=True)
class DemoCourse:
    students: tuple[NewLogin, ...]
    staff: tuple[StaffLogin, ...]
    assignments: tuple[str, ...]


def demo_students() -> tuple[Student, ...]:
    out = []
    for i in range(STUDENTS):
        name = f"{FIRST[i % len(FIRST)]} {LAST[(i * 7 + i // len(FIRST)) % len(LAST)]}"  # 30 different names
        sid = f"s{i + 1:03d}"
        out.append(Student(sid, name, f"{sid}@students.example.edu", SECTIONS[i * len(SECTIONS) // STUDENTS]))
    return tuple(out)


def _t(x: float) -> str:
    return format_time(x)


def _assignments(now: float) -> dict[str, tuple[str, float, float, str]]:
    """id -> (name, the contest's start, its duration, the ``assignment:`` YAML)."""
    hour = now // HOUR * HOUR
    lab_due = hour - HOUR
    lab_open = lab_due - 7 * DAY
    hw_open = hour - DAY
    hw_due = hour + 7 * DAY - 60  # ...:59
    exam_open = hour + 14 * DAY
    lab = (
        f'  open: "{_t(lab_open)}"\n'
        f'  due: "{_t(lab_due)}"\n'
        "  late:                      # 80 % for a day after the due time, then 50 % until late_until\n"
        "    - {for: 1d, credit: 80}\n"
        "    - {credit: 50}\n"
        f'  late_until: "{_t(lab_due + 7 * DAY)}"\n'
        "  after_close: practice      # afterwards: judged, never counted\n"
        "  counts: last\n"
        "  rate_limit: {submissions: 5, every: 30m}\n"
        "  overrides:\n"
        f"    - {{students: [{EXTENDED}], extension: 2d, note: medical certificate}}\n"
    )
    hw = (
        f'  open: "{_t(hw_open)}"\n'
        f'  due: "{_t(hw_due)}"\n'
        "  late: [{for: 1d, credit: 80}]\n"
        "  after_close: closed\n"
        "  counts: best\n"
        "  rate_limit: {submissions: 3, every: 1h}\n"
        "  feedback: {before: samples, after: details, switch: due}\n"
        "  overrides:\n"
        f'    - {{section: B, due: "{_t(hw_due + DAY)}"}}   # section B meets a day later\n'
    )
    exam = (
        f'  open: "{_t(exam_open)}"\n'
        f'  due: "{_t(exam_open + 3 * HOUR)}"\n'
        "  after_close: closed\n"
        "  counts: last\n"
        "  rate_limit: {submissions: 10, every: 5m}\n"
        "  feedback: {before: verdicts, after: details, switch: published, score: published}\n"
    )
    return {
        "lab1": ("Lab 1", lab_open, 21 * DAY, lab),  # a week of practice after the close
        "hw1": ("Homework 1", hw_open, 10 * DAY, hw),
        "exam": ("Exam", exam_open, 3 * HOUR, exam),
    }


def _contest_yaml(cid: str, name: str, start: float, duration: float, assignment: str) -> str:
    return (
        "# An assignment of the course: a contest of the site (docs/course.md). Its window is `assignment:`;\n"
        "# the contest runs from the earliest opening to the latest close of any student's window.\n"
        f"id: {cid}\n"
        f"name: {name}\n"
        f'start_time: "{_t(start)}"\n'
        f'duration: "{format_reltime(duration)}"\n'
        "scoreboard_type: score\n"
        f"counterexamples: {COUNTEREXAMPLES[cid]}   # an input a rejected submission fails on: off | jury | team\n"
        "assignment:\n"
        f"{assignment}"
    )


def _problems_yaml(problems: Sequence[Problem]) -> str:
    entries = [
        {"id": p.id, "label": "ABCDE"[i], "name": p.name, "rgb": COLORS[i % len(COLORS)]}
        for i, p in enumerate(problems)
    ]
    return yaml.safe_dump(entries, sort_keys=False, allow_unicode=True)


def _staff(root: Path, make_password: Callable[[], str], hash_password: Callable[[str], str]) -> tuple[StaffLogin, ...]:
    staff = (StaffLogin("instructor", make_password(), "admin"), StaffLogin("ta", make_password(), "judge"))
    entries = [
        {"id": s.username, "username": s.username, "password": hash_password(s.password), "type": s.type} for s in staff
    ]
    (root / "accounts.yaml").write_text(yaml.safe_dump(entries, sort_keys=False), encoding="utf-8")
    (root / "accounts.yaml").chmod(0o600)
    return staff


def write_demo_course(
    dest: Path,
    problems: Mapping[str, Problem],
    now: float,
    make_password: Callable[[], str],
    hash_password: Callable[[str], str],
) -> DemoCourse:
    """Write the demo course into ``dest`` (new or empty; made 0700). ``problems``: the judge's own."""
    missing = sorted({p for ps in ASSIGNMENT_PROBLEMS.values() for p in ps} - set(problems))
    if missing:
        raise ValueError(f"the demo course needs the judge's problems {', '.join(missing)}")
    dest.mkdir(mode=0o700, parents=True, exist_ok=True)
    dest.chmod(0o700)
    assignments = _assignments(now)
    (dest / "site.yaml").write_text(
        "# A course: a site whose contests are assignments (docs/course.md)\n"
        "name: Demo course\n"
        f"contests: [{', '.join(assignments)}]\n",
        encoding="utf-8",
    )
    (dest / "problems").mkdir()
    for pid in sorted({p for ps in ASSIGNMENT_PROBLEMS.values() for p in ps}):
        shutil.copytree(problems[pid].path, dest / "problems" / pid, ignore=shutil.ignore_patterns("__pycache__"))
    for cid, (name, start, duration, assignment) in assignments.items():
        folder = dest / "contests" / cid
        folder.mkdir(parents=True)
        (folder / "contest.yaml").write_text(_contest_yaml(cid, name, start, duration, assignment), encoding="utf-8")
        ordered = [problems[p] for p in ASSIGNMENT_PROBLEMS[cid]]
        (folder / "problems.yaml").write_text(_problems_yaml(ordered), encoding="utf-8")
    staff = _staff(dest, make_password, hash_password)
    plan = preview(Roster(), demo_students())
    logins = new_logins(plan, make_password)
    by_id = {lg.student.id: lg.password for lg in logins}
    write_people(applied_people(read_people(dest), plan, lambda s: hash_password(by_id[s.id])))
    return DemoCourse(logins, staff, tuple(assignments))
