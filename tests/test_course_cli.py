"""`judge course init`, `judge course roster import` and `judge course grades` through the real entry point:
the demo course is well formed (the course's loader and `judge serve`'s own loaders read it), its gradebook
is written; a gradebook from a contest's database matches hand computation; a roster import previews, then
applies exactly that, and gives each new student a password once."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from argon2 import PasswordHasher

import judge.commands.course as course_command
from judge.commands.cli import main
from judge.course.folder import load_course
from judge.course.sitefiles import read_roster
from judge.course.window import Phase, credit_at
from judge.serve.model.contest import load_accounts, load_contest, load_teams
from judge.serve.model.records import JudgementOutcome, NewSubmission
from judge.serve.storage import DB_NAME, open_storage

ROOT = Path(__file__).parent.parent
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # real argon2 hashes, made quickly


@pytest.fixture
def fast_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(course_command, "_hasher", lambda: FAST)


@pytest.fixture
def demo(tmp_path: Path, fast_hashes: None, capsys: pytest.CaptureFixture[str]) -> Path:
    dest = tmp_path / "course"
    assert main(["course", "init", str(dest), "--logins", str(tmp_path / "logins.csv")]) == 0
    capsys.readouterr()
    return dest


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_the_demo_course_is_well_formed(tmp_path: Path) -> None:
    """The real command in a process of its own (real argon2 parameters), then its gradebook."""
    dest = tmp_path / "course"
    done = subprocess.run(
        [sys.executable, "-m", "judge", "course", "init", str(dest)],
        capture_output=True, text=True, timeout=600, cwd=ROOT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "30 students in sections A and B, three assignments" in done.stdout
    assert dest.stat().st_mode & 0o777 == 0o700
    logins = next(dest.glob("logins-*.csv"))
    assert logins.stat().st_mode & 0o777 == 0o600
    rows = read_csv(logins)
    assert len(rows) == 30 and rows[6]["id"] == "s007" and rows[6]["section"] == "A"
    accounts = yaml.safe_load((dest / "accounts.yaml").read_text())
    by_id = {a["id"]: a for a in accounts}
    assert PasswordHasher().verify(by_id["s007"]["password"], rows[6]["password"])
    staff = {a["id"]: a["type"] for a in accounts if a["type"] != "team"}
    assert staff == {"instructor": "admin", "ta": "judge"}
    assert "  instructor  " in done.stdout
    course = load_course(dest)
    assert [a.id for a in course.assignments] == ["lab1", "hw1", "exam"]
    assert [s.section for s in course.roster.students].count("A") == 15
    lab1, hw1, exam = course.assignments
    # one extension: s007 on lab1; hw1's section override; lab1 is late now, hw1 on time, the exam not open
    assert [o.students for o in lab1.assignment.overrides] == [("s007",)]
    assert [o.sections for o in hw1.assignment.overrides] == [("B",)]
    now = lab1.assignment.window.due_s + 3600
    assert credit_at(lab1.assignment.window, now).phase is Phase.LATE
    assert credit_at(lab1.assignment.resolve("s007", "A").window, now).phase is Phase.ON_TIME
    assert credit_at(exam.assignment.window, now).phase is Phase.EARLY
    # judge serve's own loaders read every contest and the site's people
    teams = load_teams(dest / "teams.json", {"students", "A", "B"}, set())
    assert len(teams) == 30 and all(t.group_ids[0] == "students" for t in teams)
    assert len(load_accounts(dest / "accounts.yaml", {t.id for t in teams})) == 32
    for a in course.assignments:
        contest = load_contest(a.root, dest / "problems")
        assert contest.info.start_s is not None and contest.info.end_s is not None
        assert contest.info.start_s <= min(w.open_s or 0 for w in a.assignment.windows())
        assert contest.info.end_s >= max(w.close_s for w in a.assignment.windows())
    done = subprocess.run(
        [sys.executable, "-m", "judge", "course", "grades", str(dest), "--format", "canvas"],
        capture_output=True, text=True, timeout=600, cwd=ROOT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "30 students, 3 assignments, 0 submissions" in done.stdout
    book = (dest / "gradebook-canvas.csv").read_text().splitlines()
    assert book[0] == "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1,Homework 1,Exam"
    assert book[1] == "    Points Possible,,,,,200,200,100" and len(book) == 32
    assert (dest / "gradebook-canvas.csv").stat().st_mode & 0o777 == 0o600


def store(contest: Path, rows: list[tuple[str, str, float, float | None]]) -> None:
    """Submissions as `judge serve` stores them: (team, problem, time, score; None: a judge error)."""
    storage = open_storage(contest / DB_NAME)
    try:
        with storage.write() as w:
            for team, problem, t, score in rows:
                s = w.add_submission(NewSubmission(team, team, problem, "python3", None, t, b"zip"))
                j = w.add_judgement(s.id, True, t)
                verdict = "JE" if score is None else ("AC" if score == 100 else "WA")
                w.finish_judgement(
                    j.id,
                    JudgementOutcome(
                        True, t + 1, verdict, verdict, score or 0.0, 100.0, 0.1, 1000, None, None, None, "h"
                    ),
                )
            pending = w.add_submission(NewSubmission("s003", "s003", "rummy", "python3", None, rows[0][2], b"zip"))
            w.add_judgement(pending.id, True, rows[0][2])  # being judged: it counts for nothing yet
    finally:
        storage.close()


def test_grades_from_a_contests_database_match_hand_computation(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lab1 = load_course(demo).assignments[0]
    due = lab1.assignment.window.due_s
    store(
        lab1.root,
        [
            ("s001", "rummy", due - 600, 100.0),  # on time: 100
            ("s001", "coins", due + 3600, 50.0),  # late, the first day: 80 % of 50 = 40, 60 minutes late
            ("s002", "rummy", due + 2 * 86400, 100.0),  # the second step: 50 %
            ("s002", "rummy", due + 2 * 86400 + 60, None),  # a judge error after it: `last` keeps the 50
            ("s007", "rummy", due + 86400, 90.0),  # his extension: on time
            ("s016", "coins", due + 8 * 86400, 100.0),  # after the close: practice, 0
        ],
    )
    assert main(["course", "grades", str(demo), "--out", str(demo / "book.csv")]) == 0
    assert "30 students, 3 assignments, 7 submissions" in capsys.readouterr().out
    rows = {r["id"]: r for r in read_csv(demo / "book.csv")}
    keys = ["lab1", "lab1 raw", "lab1/rummy", "lab1/coins", "lab1 minutes late", "lab1 override", "lab1 override used"]
    assert [rows["s001"][k] for k in keys] == ["140", "150", "100", "40", "60", "", "no"]
    assert [rows["s002"][k] for k in keys] == ["50", "100", "50", "0", "2880", "", "no"]
    assert [rows["s007"][k] for k in keys] == ["90", "90", "90", "0", "0", "extension 2d", "yes"]
    assert [rows["s016"][k] for k in keys] == ["0", "0", "0", "0", "0", "", "no"]
    assert [rows["s003"][k] for k in keys] == ["0", "0", "0", "0", "0", "", "no"]
    assert rows["s001"]["total"] == "140" and rows["s001"]["email"] == "s001@students.example.edu"


ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section\n"
    "    Points Possible,,,,\n"
    '"Allen, Ada",1,s001,ada,A\n'  # renamed
    '"Hamilton, Alan",2,s002,alan,B\n'  # moved to section B
    '"Lovelace, Augusta",99,s099,aug,C\n'  # new, in a new section
)


def test_a_roster_import_previews_then_applies_exactly_that(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roster = tmp_path / "canvas.csv"
    roster.write_text(ROSTER)
    before = {p: (demo / p).read_bytes() for p in ("teams.json", "groups.json", "accounts.yaml")}
    assert main(["course", "roster", "import", str(roster), "--course", str(demo)]) == 0
    shown = capsys.readouterr().out
    assert "id       <- 'SIS User ID'" in shown and "row 2 skipped: not a student (Points Possible)" in shown
    assert "+ s099  Augusta Lovelace    (C)" in shown
    assert "~ s002  section: 'A' -> 'B'" in shown and "~ s001  name: 'Ada Allen' -> 'Ada Allen'" not in shown
    assert "- s030  John Engelbart  (withdrawn: no login, kept for past submissions)" in shown
    assert "1 added, 1 changed, 28 removed, 1 unchanged; nothing written" in shown
    assert {p: (demo / p).read_bytes() for p in before} == before  # a preview writes nothing
    logins = tmp_path / "new.csv"
    argv = ["course", "roster", "import", str(roster), "--course", str(demo), "--apply", "--logins", str(logins)]
    assert main(argv) == 0
    assert "1 added, 1 changed, 28 removed, 1 unchanged; applied" in capsys.readouterr().out
    after = read_roster(demo)
    assert [(s.id, s.section) for s in after.students] == [("s001", "A"), ("s002", "B"), ("s099", "C")]
    assert len(after.withdrawn) == 28
    new = read_csv(logins)
    assert [(r["id"], r["username"]) for r in new] == [("s099", "s099")] and logins.stat().st_mode & 0o777 == 0o600
    accounts = {a["id"]: a for a in yaml.safe_load((demo / "accounts.yaml").read_text())}
    assert FAST.verify(accounts["s099"]["password"], new[0]["password"])
    assert "s030" not in accounts and {"instructor", "ta"} <= set(accounts)
    # the course still loads (lab1's extension names s007, now withdrawn: allowed), and its gradebook lists three
    assert main(["course", "grades", str(demo)]) == 0
    assert "3 students, 3 assignments" in capsys.readouterr().out
    # a file of passwords is written once
    assert main(argv[:-2] + ["--logins", str(logins)]) == 0  # nothing added now: no file needed
    roster.write_text(ROSTER + '"Kay, Alan",100,s100,alan2,C\n')
    assert main(argv[:-2] + ["--logins", str(logins)]) == 2
    assert "exists (a file of passwords is written once)" in capsys.readouterr().err
    assert "s100" not in {s.id for s in read_roster(demo).students}  # and the roster is as it was


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["course", "grades", "{tmp}"], "no site.yaml (is this a course?"),
        (["course", "roster", "import", "{tmp}/none.csv", "--course", "{tmp}"], "none.csv: cannot read it"),
        (["course", "init", "{demo}"], "exists and is not an empty folder"),
    ],
)
def test_mistakes_are_one_line(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([a.format(tmp=empty, demo=demo) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_broken_assignment_is_one_line(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = demo / "contests" / "hw1" / "contest.yaml"
    path.write_text(path.read_text().replace("section: B", "section: C"))
    assert main(["course", "grades", str(demo)]) == 2
    assert "contest.yaml: assignment: no section 'C' (sections: A, B)" in capsys.readouterr().err
    path.write_text(
        path.read_text().replace("section: C", "section: B").replace('duration: "240:00:00.000"', "duration: 1h")
    )
    assert main(["course", "grades", str(demo)]) == 2
    assert "the contest ends" in capsys.readouterr().err
