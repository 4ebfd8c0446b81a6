"""The names of an LMS download's files (course/lmsnames.py) and how a file finds its student and its problem
(course/lmsmatch.py): Hypothesis round trips of generated names through the documented conventions (Moodle's
folders and flat names, Canvas's with and without LATE), the documented examples, and the matching order."""

from __future__ import annotations

import string
from datetime import UTC

from hypothesis import given
from hypothesis import strategies as st

from judge.course.assignment import Assignment
from judge.course.lmsmatch import plan, problem_of
from judge.course.lmsnames import (
    Layout,
    canvas_name,
    canvas_user_name,
    detect_layout,
    file_key,
    moodle_name,
    name_keys,
    parse_canvas,
    parse_entry,
    parse_moodle,
)
from judge.course.lmsroster import LmsRoster, parse_lms_roster
from judge.course.roster import Student
from judge.course.window import LateStep, Window

# a person's name: letters (accented ones too), spaces, hyphens, apostrophes; what both LMSs put in a name
LETTERS = string.ascii_letters + "äöüéèçñßøåÅÆłŁőŐ"
word = st.text(LETTERS, min_size=1, max_size=10)
full_names = st.lists(word, min_size=1, max_size=4).map(" ".join)
hyphenated = st.tuples(word, word).map("-".join)
names = st.one_of(full_names, st.tuples(full_names, hyphenated).map(" ".join), st.just("O'Neil Smith")).filter(
    lambda n: n != "Participant"  # blind marking's name
)
ids = st.integers(min_value=1, max_value=10**9).map(str)
# a student's own file name: what a program is called (Canvas turns / \ : * ? " < > | into _)
file_names = st.tuples(
    st.text(string.ascii_letters + string.digits + "_-() ", min_size=1, max_size=20).filter(lambda s: s.strip()),
    st.sampled_from([".py", ".cpp", ".c", ".java", ".pas", ".txt", ""]),
).map("".join)


@given(names, ids, file_names, st.booleans())
def test_moodle_names_round_trip(full_name: str, participant: str, file_name: str, folders: bool) -> None:
    path = moodle_name(full_name, participant, file_name, folders=folders)
    f = parse_moodle(path)
    assert f is not None and f.layout is Layout.MOODLE
    assert (f.lms_id, f.name, f.file_name, f.late, f.plugin) == (participant, full_name, file_name, False, "file")
    assert file_key(f) in name_keys(full_name)  # the roster's name finds the file


@given(st.lists(word, min_size=2, max_size=4), ids, ids, file_names, st.booleans())
def test_canvas_names_round_trip(words: list[str], user: str, attachment: str, file_name: str, late: bool) -> None:
    first, last = " ".join(words[:-1]), words[-1]
    path = canvas_name(f"{last}, {first}", user, attachment, file_name, late=late)
    f = parse_canvas(path)
    assert f is not None and f.layout is Layout.CANVAS
    assert (f.lms_id, f.name, f.file_name, f.late) == (user, canvas_user_name(f"{last}, {first}"), file_name, late)
    assert file_key(f) in name_keys(f"{first} {last}")  # "First Last" in the roster finds "lastfirst"


def test_the_documented_examples() -> None:
    f = parse_canvas("doejohn_LATE_12345_67890_coins.py")
    assert f is not None and (f.name, f.late, f.lms_id, f.file_name) == ("doejohn", True, "12345", "coins.py")
    f = parse_canvas("doejohn_late_12345_67890_coins.py")  # older Canvas
    assert f is not None and f.late and f.lms_id == "12345"
    assert canvas_name("Doe, John", "12345", "67890", "coins.py", late=True) == "doejohn_LATE_12345_67890_coins.py"
    assert canvas_user_name("Spärck Jones, Leslie") == "spärckjonesleslie"
    f = parse_canvas("anon_Xy12Z_5001_a.py")
    assert f is not None and f.anonymous and f.name == ""
    f = parse_canvas("doejohn_12345_text.html")
    assert f is not None and f.plugin == "text"
    f = parse_moodle("Ada Allen_2841301_assignsubmission_file_/src/coins.py")
    assert f is not None and (f.name, f.lms_id, f.file_name) == ("Ada Allen", "2841301", "src/coins.py")
    f = parse_moodle("Ada Allen_2841301_assignsubmission_file_coins.py")  # "Download submissions in folders" off
    assert f is not None and (f.name, f.lms_id, f.file_name) == ("Ada Allen", "2841301", "coins.py")
    f = parse_moodle("unpacked/Ada Allen_2841301_assignsubmission_file_/coins.py")  # unpacked into a folder
    assert f is not None and (f.name, f.lms_id, f.file_name) == ("Ada Allen", "2841301", "coins.py")
    f = parse_moodle("Participant_77_assignsubmission_file_/x.py")  # blind marking
    assert f is not None and f.anonymous and f.lms_id == "77"
    assert parse_moodle("alder/coins.cpp") is None and parse_canvas("alder/coins.cpp") is None
    assert detect_layout(["alder/coins.cpp"]) is None
    assert detect_layout(["Ada Allen_1_assignsubmission_file_/coins.py"]) is Layout.MOODLE
    assert detect_layout(["allenada_1001_90001_coins.py"]) is Layout.CANVAS


def test_a_file_finds_its_problem() -> None:
    problems = ("rummy", "coins", "coins2")
    assert problem_of("coins.py", problems) == "coins"
    assert problem_of("Coins.PY", problems) == "coins"
    assert problem_of("coins-1.py", problems) == "coins"  # a re-upload
    assert problem_of("coins (2).py", problems) == "coins"
    assert problem_of("coins2.cpp", problems) == "coins2"
    assert problem_of("src/rummy.c", problems) == "rummy"
    assert problem_of("coinsx.py", problems) is None and problem_of("notes.txt", problems) is None


def _assignment() -> Assignment:
    return Assignment(Window(None, 1000.0, (LateStep(2000.0, 80.0),)))


def test_the_student_by_lms_id_then_id_then_name_and_never_a_guess() -> None:
    roster = LmsRoster(
        (
            Student("s1", "Ada Allen"),
            Student("s2", "Alan Hamilton"),
            Student("1003", "Barbara Naur"),
            Student("s4", "John Doe"),
            Student("s5", "John Doe"),
        ),
        lms_ids={"s1": "1001", "s2": "1002"},
    )
    paths = [
        "allenada_1001_1_coins.py",  # the roster's LMS id
        "whoever_1002_2_coins.py",  # the LMS id wins over the name
        "naurbarbara_1003_3_coins.py",  # a roster whose id is the LMS's number
        "hamiltonalan_1099_4_rummy.py",  # by name: Alan's (another LMS id in the name: the name decides)
        "doejohn_1005_5_coins.py",  # two John Does: neither
        "nobody_1006_6_coins.py",
        "allenada_1001_7_notes.txt",
    ]
    p = plan(paths, Layout.CANVAS, roster, ("rummy", "coins"), _assignment())
    placed = {x.file.path: (x.student.id, x.found_by) for x in p.placed}
    assert placed == {
        "allenada_1001_1_coins.py": ("s1", "LMS id 1001"),
        "whoever_1002_2_coins.py": ("s2", "LMS id 1002"),
        "naurbarbara_1003_3_coins.py": ("1003", "id 1003"),
        "hamiltonalan_1099_4_rummy.py": ("s2", "name"),
    }
    reasons = {u.path: u.reason for u in p.unplaced}
    assert "more than one student's (s4, s5)" in reasons["doejohn_1005_5_coins.py"]
    assert "no student of the roster" in reasons["nobody_1006_6_coins.py"]
    assert "'notes.txt' is no problem" in reasons["allenada_1001_7_notes.txt"]
    assert len(p.placed) + len(p.unplaced) == len(paths)  # nothing dropped


def test_late_markers_and_worksheet_times_are_kept_as_times() -> None:
    roster = LmsRoster((Student("s1", "Ada Allen"), Student("s2", "Alan Hamilton")), submitted_s={"s2": 1500.0})
    paths = ["allenada_1_1_coins.py", "allenada_LATE_1_2_rummy.py"]
    p = plan(paths, Layout.CANVAS, roster, ("rummy", "coins"), _assignment())
    assert sorted((x.problem, x.time_s) for x in p.placed) == [("coins", 1000.0), ("rummy", 1001.0)]
    m = plan(
        [moodle_name("Ada Allen", "7", "coins.py"), moodle_name("Alan Hamilton", "8", "coins.py")],
        Layout.MOODLE,
        roster,
        ("coins",),
        _assignment(),
    )
    assert sorted((x.student.id, x.time_s) for x in m.placed) == [("s1", 1000.0), ("s2", 1500.0)]
    assert parse_entry("allenada_LATE_1_2_rummy.py", Layout.CANVAS) is not None


def test_a_moodle_worksheet_is_a_roster_with_participant_ids_and_times() -> None:
    sheet = (
        b'Identifier,"Full name","Email address",Status,Grade,"Last modified (submission)","Last modified (grade)"\n'
        b'"Participant 11","Ada Allen",a@x.edu,"Submitted for grading",,"Thursday, 10 January 2030, 1:05 PM",-\n'
        b'"Participant 12","Alan Hamilton",b@x.edu,"No submission",,-,-\n'
        b'"Participant 13","Bo Li",c@x.edu,"Submitted for grading",,"10/01/2030 13:05",-\n'
    )
    r = parse_lms_roster(sheet, "ws.csv", UTC)
    assert [s.id for s in r.students] == ["participant11", "participant12", "participant13"]
    assert r.lms_ids == {"participant11": "11", "participant12": "12", "participant13": "13"}
    assert r.submitted_s == {"participant11": 1894280700.0}  # 2030-01-10T13:05:00Z
    assert len(r.notes) == 1 and "row 4" in r.notes[0] and "on time" in r.notes[0]
    assert r.worksheet is not None and r.worksheet.grade_column == 4
