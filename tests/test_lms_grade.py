"""The acceptance of issue 48's download half: a Canvas-style download (a zip) and a Moodle-style download (the
folder it unpacks to) of the demo submissions, written by hand after the documented naming
(tests/fixtures/lms/, docs/course.md "Grading an LMS download"), graded by the real `judge grade` entry point for
the demo course's lab1 into the LMS's import file, compared with golden files, byte for byte; the report lists
every file, the unmapped ones with why.

The fixtures: Ada Allen (s001) sends two files (coins and rummy, both accepted); Alan Hamilton (s002) a late
rummy; Barbara Naur (s003) a coins that is wrong on some tests (59.09) and a file that is no problem (Canvas:
notes.txt; Moodle: an online text); Charles Backus (s004) nothing; Frances Conway (s007, a two-day extension) a
late rummy; Leslie Spärck Jones (s012) a re-uploaded ``coins-1.py`` (``coins (1).py``), found by name on Canvas
(the roster has no Canvas ID for her); Grace Jones, not on the roster, a rummy.

Canvas: LATE is one second after the student's due time (80 %). Moodle: the grading worksheet's Last modified
(submission), in Europe/Berlin: Alan 2.5 h late (80 %), Frances within her extension (100 %), Leslie two days
late (50 %); the worksheet's Maximum Grade is 100 and the assignment's 200, so the grades are halved."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest

from judge.commands.cli import main

LMS = Path(__file__).parent / "fixtures" / "lms"
PROBLEMS = Path(__file__).parent.parent / "problems"
GOLDEN = LMS / "golden"
LAB1 = LMS / "lab1" / "contest.yaml"


def _zip_of(folder: Path, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(folder.rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(folder).as_posix())
    return dest


def _check_golden(produced: Path, golden: Path) -> None:
    if not golden.is_file():  # writing a golden file is a person's decision: this test never does it silently
        pytest.fail(f"no golden file {golden}: compare {produced} by hand, then copy it there")
    assert produced.read_text(encoding="utf-8") == golden.read_text(encoding="utf-8"), produced


def _column(path: Path, key: str, value: str, skip: int = 0) -> dict[str, str]:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))[skip:]
    header = rows[0]
    return {r[header.index(key)]: r[header.index(value)] for r in rows[1:]}


def test_canvas_and_moodle_downloads_graded_into_their_import_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "results.sqlite"  # shared: the same programs are judged once
    base = ["--problems", str(PROBLEMS), "--assignment", str(LAB1), "--db", str(db), "--jobs", "2"]

    canvas_zip = _zip_of(LMS / "canvas", tmp_path / "lab1 submissions.zip")
    out = tmp_path / "canvas"
    argv = ["grade", str(canvas_zip), "--roster", str(LMS / "canvas-roster.csv"), "--out", str(out), *base]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Canvas's download, 8 files: 6 placed, 2 not; roster: Canvas gradebook, 6 students" in printed
    assert "not graded: jonesgrace_1008_90008_rummy.py: no student of the roster" in printed
    assert "not graded: naurbarbara_1003_90005_notes.txt: 'notes.txt' is no problem of the assignment" in printed
    grades = out / "canvas-grades.csv"
    assert grades.stat().st_mode & 0o777 == 0o600
    assert _column(grades, "SIS User ID", "Lab 1 (4242)") == {
        "": "200",  # Points Possible
        "s001": "200",
        "s002": "80",
        "s003": "59.0909",
        "s004": "0",
        "s007": "80",
        "s012": "100",
    }
    _check_golden(grades, GOLDEN / "canvas-grades.csv")
    _check_golden(out / "lms-files.csv", GOLDEN / "canvas-lms-files.csv")

    out = tmp_path / "moodle"
    argv = ["grade", str(LMS / "moodle"), "--roster", str(LMS / "moodle-worksheet.csv"), "--out", str(out), *base]
    assert main([*argv, "--lms-timezone", "Europe/Berlin"]) == 0
    printed = capsys.readouterr().out
    assert "Moodle's download, 8 files: 6 placed, 2 not; roster: Moodle grading worksheet, 6 students" in printed
    assert "an online text entry, not an uploaded file" in printed
    sheet = out / "moodle-grading-worksheet.csv"
    assert _column(sheet, "ID number", "Grade") == {
        "s001": "100",
        "s002": "40",
        "s003": "29.55",
        "s004": "0",
        "s007": "50",
        "s012": "25",
    }
    _check_golden(sheet, GOLDEN / "moodle-grading-worksheet.csv")
    _check_golden(out / "lms-files.csv", GOLDEN / "moodle-lms-files.csv")
    board = (out / "index.html").read_text(encoding="utf-8")
    assert "100 × 50 %: late 2 d 1 h" in board  # the penalty in words, as `judge grade --assignment` says it
    assert _column(out / "gradebook.csv", "id", "lab1 minutes late")["s012"] == "2940"
