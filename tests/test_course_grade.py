"""`judge grade --assignment FILE --roster COURSE`: a folder of students' files graded as a course's
assignment (the window, the late steps, a student extension, a section override, group work, practice after
the close, a folder that is nobody's), times from times.yaml; the board shows the score after the penalty and
the gradebook CSV beside it matches hand computation; and `judge course grades` on the same submissions,
stored as `judge serve` stores them, writes the same gradebook, byte for byte."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import put

from judge.commands.cli import main
from judge.course.roster import Roster
from judge.course.rostercsv import parse_roster_csv
from judge.course.rosterdiff import preview
from judge.course.sitefiles import applied_people, read_people, write_people
from judge.scoreboard.times import format_time, parse_time
from judge.serve.model.records import JudgementOutcome, NewSubmission
from judge.serve.storage import DB_NAME, open_storage

FIXTURES = Path(__file__).parent / "fixtures"
AC = FIXTURES / "sum" / "submissions" / "accepted" / "sum.py"
WA = FIXTURES / "sum" / "submissions" / "wrong_answer" / "minus.py"
PARTIAL = FIXTURES / "subtasks" / "submissions" / "partial" / "small_only.py"
DUE = parse_time("2030-01-10T12:00:00Z", "t")
HOUR, DAY = 3600.0, 86400.0
CONTEST = """id: lab
name: Lab 1
start_time: "2030-01-01T00:00:00Z"
duration: "300:00:00"
scoreboard_type: score
assignment:
  due: "2030-01-10T12:00:00Z"
  late: [{for: 1d, credit: 80}, {credit: 50}]
  late_until: "2030-01-12T12:00:00Z"
  after_close: practice
  counts: last
  overrides:
    - {students: [dan], extension: 1d}
    - {section: B, due: "2030-01-10T14:00:00Z"}
  groups: {t1: [fay, gus]}
"""
ROSTER = "SID,Name,Email,Section\n" + "".join(
    f"{s},{s.title()} Doe,{s}@uni.example,{sec}\n"
    for s, sec in [("ann", "A"), ("bob", "A"), ("cid", "B"), ("dan", "A")]
    + [("eve", "A"), ("fay", "B"), ("gus", "A"), ("hal", "A")]
)
# (folder, file, problem, when, the score it gets)
FILES = [
    ("ann", "sum.py", "sum", DUE - HOUR, AC),
    ("ann", "subtasks.py", "subtasks", DUE + HOUR, PARTIAL),  # late by an hour: 80 %
    ("bob", "sum.1.py", "sum", DUE - HOUR, WA),
    ("bob", "sum.2.py", "sum", DUE + 25 * HOUR, AC),  # the second step: 50 %; `last` counts it
    ("cid", "sum.py", "sum", DUE + HOUR, AC),  # section B's due time is two hours later
    ("dan", "sum.py", "sum", DUE + 20 * HOUR, AC),  # his extension: on time
    ("t1", "sum.py", "sum", DUE - 2 * HOUR, AC),  # group work: fay's and gus's
    ("hal", "sum.py", "sum", DUE + 3 * DAY, AC),  # after the close: practice, 0
    ("zed", "sum.py", "sum", DUE, AC),  # nobody's
]


@pytest.fixture
def course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    (root / "contests" / "lab").mkdir(parents=True)
    (root / "site.yaml").write_text("name: Test course\n")
    (root / "contests" / "lab" / "contest.yaml").write_text(CONTEST)
    (root / "contests" / "lab" / "problems.yaml").write_text("- id: sum\n- id: subtasks\n")
    for p in ("sum", "subtasks"):
        shutil.copytree(FIXTURES / p, root / "problems" / p, ignore=shutil.ignore_patterns("submissions"))
    people = read_people(root)
    students = parse_roster_csv(ROSTER.encode(), "roster.csv").students
    write_people(applied_people(people, preview(Roster(), students), lambda s: "$argon2id$not-a-login"))
    return root


def folder(root: Path) -> Path:
    times = ['start: "2030-01-01T00:00:00Z"']
    for who, name, _, when, source in FILES:
        put(root, who, name, source)
        times.append(f'{who}/{name}: "{format_time(when)}"')
    (root / "times.yaml").write_text("\n".join(times) + "\n")
    return root


def rows(path: Path) -> dict[str, dict[str, str]]:
    return {r["id"]: r for r in csv.DictReader(io.StringIO(path.read_text()))}


def test_a_folder_graded_as_the_assignment_and_the_same_from_the_database(
    course: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    subs, out = folder(tmp_path / "subs"), tmp_path / "board"
    argv = ["grade", str(subs), "--problems", str(course / "problems"), "--out", str(out), "--json", "--jobs", "2"]
    argv += ["--assignment", str(course / "contests" / "lab" / "contest.yaml"), "--roster", str(course)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "not graded: zed: not a student of the roster nor a group" in printed
    assert "gradebook: " in printed and "(80 %)" in printed
    doc = json.loads((out / "results.json").read_text())
    partial = doc["assignment"]["counts"]["ann"]["subtasks"]["raw"]
    assert 0 < partial < 100  # small_only: the easy group only
    book = rows(out / "gradebook.csv")
    assert (out / "gradebook.csv").stat().st_mode & 0o777 == 0o600
    keys = ["lab", "lab raw", "lab/sum", "lab/subtasks", "lab minutes late", "lab override", "lab override used"]
    late = round(partial * 0.8, 4)
    expected = {
        "ann": [f"{100 + late:g}", f"{100 + partial:g}", "100", f"{late:g}", "60", "", "no"],
        "bob": ["50", "100", "50", "0", "1500", "", "no"],
        "cid": ["100", "100", "100", "0", "0", "due 2030-01-10T14:00:00.000+00:00", "yes"],
        "dan": ["100", "100", "100", "0", "0", "extension 1d", "yes"],
        "eve": ["0", "0", "0", "0", "0", "", "no"],
        "fay": ["100", "100", "100", "0", "0", "due 2030-01-10T14:00:00.000+00:00", "no"],
        "gus": ["100", "100", "100", "0", "0", "", "no"],
        "hal": ["0", "0", "0", "0", "0", "", "no"],
    }
    assert {s: [r[k] for k in keys] for s, r in book.items()} == expected
    board = (out / "index.html").read_text()
    assert f"{partial:g} × 80 %: late 1 h" in board
    assert (
        "extension 1d: on time" in board
        and "section B: on time" in board
        and "after the close: practice, counts 0" in board
    )
    assert "the last submission counts" in board and "gradebook.csv" in board
    assert (out / "submissions" / "fay" / "sum.html").is_file()  # the group's run, on each member's row
    assert "80 %" not in (out / "submissions" / "ann" / "sum.html").read_text()
    assert "counts</dt><dd>" in (out / "submissions" / "ann" / "subtasks.html").read_text()
    screenshot(out, tmp_path)
    # the same submissions, stored as judge serve stores them: judge course grades writes the same gradebook
    scores = {"sum.py": 100.0, "sum.1.py": 0.0, "sum.2.py": 100.0, "subtasks.py": partial}
    storage = open_storage(course / "contests" / "lab" / DB_NAME)
    with storage.write() as w:
        for who, name, problem, when, _ in FILES:
            s = w.add_submission(NewSubmission(who, who, problem, "python3", None, when, b"zip"))
            j = w.add_judgement(s.id, True, when)
            o = JudgementOutcome(True, when + 1, "AC", "AC", scores[name], 100.0, 0.1, 1, None, None, None, "h")
            w.finish_judgement(j.id, o)
    storage.close()
    assert main(["course", "grades", str(course)]) == 0
    assert (course / "gradebook-csv.csv").read_text() == (out / "gradebook.csv").read_text()


def test_options_that_do_not_go_together(course: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    subs = tmp_path / "subs"
    put(subs, "ann", "sum.py", AC)
    base = ["grade", str(subs), "--problems", str(course / "problems"), "--out", str(tmp_path / "o")]
    lab = str(course / "contests" / "lab" / "contest.yaml")
    for extra, message in [
        (["--roster", str(course)], "--roster and --gradebook-format go with --assignment"),
        (["--assignment", lab, "--scoreboard", "pass-fail"], "leave out --scoreboard pass-fail"),
        (["--assignment", str(tmp_path / "none.yaml")], "cannot read "),
        (["--assignment", lab, "--roster", str(tmp_path)], "'dan' is not a student of the roster"),
    ]:
        assert main(base + extra) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def screenshot(board: Path, tmp_path: Path) -> None:
    """The board as Chromium draws it, kept in $JUDGE_ARTIFACTS/course-board/ (else beside the board): a person
    looks at it (the late cells' penalty in words)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return
    artifacts = os.environ.get("JUDGE_ARTIFACTS")
    where = Path(artifacts) / "course-board" if artifacts else board
    where.mkdir(parents=True, exist_ok=True)
    shot = where / "screenshot.png"
    argv = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1100,800",
        (board / "index.html").resolve().as_uri(),
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False)
    assert shot.is_file() and shot.stat().st_size > 20_000, done.stderr[-2000:]


def test_without_a_roster_the_folders_are_the_students(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", problems / "sum", ignore=shutil.ignore_patterns("submissions"))
    subs, out = tmp_path / "subs", tmp_path / "out"
    put(subs, "ann", "sum.py", AC)
    put(subs, "t1", "sum.py", AC)
    (subs / "times.yaml").write_text('start: "2030-01-10T00:00:00Z"\nann/sum.py: "13:00:00"\nt1/sum.py: "1:00:00"\n')
    rules = tmp_path / "lab2.yaml"  # the mapping alone; its name is the gradebook's column
    rules.write_text('due: "2030-01-10T12:00:00Z"\nlate: [{for: 2h, credit: 75}]\ngroups: {t1: [fay, gus]}\n')
    argv = ["grade", str(subs), "--problems", str(problems), "--out", str(out), "--assignment", str(rules)]
    assert main([*argv, "--gradebook-format", "moodle"]) == 0
    capsys.readouterr()
    assert (out / "gradebook.csv").read_text().splitlines() == [
        "First name,Last name,ID number,Email address,lab2 (Real)",
        "ann,,ann,,75",  # 13:00 is an hour late: 75 %
        "fay,,fay,,100",
        "gus,,gus,,100",
    ]


def test_when_files_were_made(tmp_path: Path) -> None:
    from judge.grade.discovery import Entry
    from judge.grade.times import TimesError, made_at

    put(tmp_path, "ann", "sum.py", AC)
    put(tmp_path, "bob", "sum.py", AC)
    entries = [Entry(w, "sum", tmp_path / w / "sum.py", f"{w}/sum.py", "python3", "h") for w in ("ann", "bob")]
    (tmp_path / "times.yaml").write_text('ann/sum.py: "1:00:00"\nbob/sum.py: "2030-01-10T12:00:00Z"\n')
    assert made_at(tmp_path, entries, DUE - DAY) == {"ann/sum.py": DUE - DAY + HOUR, "bob/sum.py": DUE}
    with pytest.raises(TimesError, match="neither times.yaml nor the assignment says when that is"):
        made_at(tmp_path, entries, None)
    (tmp_path / "times.yaml").write_text('start: "2030-01-01T00:00:00Z"\nann/sum.py: "1:00:00"\n')
    made = made_at(tmp_path, entries, DUE)
    assert made["ann/sum.py"] == parse_time("2030-01-01T01:00:00Z", "t")
    assert made["bob/sum.py"] == (tmp_path / "bob" / "sum.py").stat().st_mtime  # the file's own time


def test_a_roster_csv_for_judge_grade(tmp_path: Path) -> None:
    from judge.grade.assignment import load_roster

    (tmp_path / "r.csv").write_text(ROSTER)
    roster = load_roster(tmp_path / "r.csv")
    assert [(s.id, s.section) for s in roster.students][:3] == [("ann", "A"), ("bob", "A"), ("cid", "B")]
