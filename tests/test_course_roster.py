"""The roster (judge/course/rostercsv.py, rosterdiff.py, sitefiles.py): the common roster CSVs mapped by
header (Canvas, Moodle, Gradescope), the mapping reported, rows that are not students skipped; the import's
preview (added, changed, removed) is exactly what applying does, in memory and through the site's files
(Hypothesis); the files stay what `judge serve` reads; staff and other teams are left alone."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.course.roster import Roster, Student, section_id
from judge.course.rostercsv import parse_roster_csv
from judge.course.rosterdiff import apply, login_rows, new_logins, preview
from judge.course.sitefiles import applied_people, read_people, read_roster, roster_from, write_people
from judge.course.values import CourseError
from judge.serve.model.contest import load_accounts, load_teams

CANVAS = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (1234)\n"
    "    Points Possible,,,,,100\n"
    '"Lovelace, Ada",901,s001,ada@uni.example,Section A,80\n'
    '"Hopper, Grace",902,s002,grace@uni.example,Section B,\n'
    '"Student, Test",903,,,Section A,\n'
)
MOODLE = (
    "\ufeffFirst name;Last name;ID number;Email address;Groups;Last access to course\n"
    "Ada;Lovelace;s001;ada@uni.example;A;never\n"
    "Grace;Hopper;s002;grace@uni.example;B;never\n"
)
GRADESCOPE = (
    "First Name,Last Name,Email,SID,Role,Sections\n"
    "Ada,Lovelace,ada@uni.example,s001,Student,A\n"
    "Alan,Turing,alan@uni.example,t9,TA,\n"
    "Grace,Hopper,grace@uni.example,s002,Student,B\n"
)


def test_canvas_gradebook_export() -> None:
    f = parse_roster_csv(CANVAS.encode(), "canvas.csv")
    assert f.students == (
        Student("s001", "Ada Lovelace", "", "Section A"),
        Student("s002", "Grace Hopper", "", "Section B"),
    )
    assert dict(f.mapping) == {
        "id": "SIS User ID",
        "name": "Student",
        "first": None,
        "last": None,
        "email": None,
        "section": "Section",
        "role": None,
    }
    assert f.skipped == ((2, "not a student (Points Possible)"), (5, "not a student (Student, Test)"))
    assert "ignored: 'ID', 'SIS Login ID', 'Lab 1 (1234)'" in f.mapping_lines()


def test_moodle_participants_semicolons_and_a_byte_order_mark() -> None:
    f = parse_roster_csv(MOODLE.encode(), "moodle.csv")
    assert f.students == (
        Student("s001", "Ada Lovelace", "ada@uni.example", "A"),
        Student("s002", "Grace Hopper", "grace@uni.example", "B"),
    )
    assert dict(f.mapping)["id"] == "ID number" and dict(f.mapping)["section"] == "Groups"


def test_gradescope_roster_skips_the_staff() -> None:
    f = parse_roster_csv(GRADESCOPE.encode(), "gs.csv")
    assert [s.id for s in f.students] == ["s001", "s002"]
    assert f.skipped == ((3, "role 'TA' is not a student's"),)


def test_an_id_column_empty_somewhere_yields_to_the_next() -> None:
    """Canvas without SIS ids: SIS User ID is empty, its own ID is used."""
    text = 'Student,ID,SIS User ID,Section\n"Lovelace, Ada",901,,A\n"Hopper, Grace",902,,B\n'
    f = parse_roster_csv(text.encode(), "c.csv")
    assert [s.id for s in f.students] == ["901", "902"] and dict(f.mapping)["id"] == "ID"


def test_columns_named_by_the_instructor_and_windows_1252() -> None:
    text = "Matrikel;Nom;Courriel;Gruppe\n12345;Zoë Müller;zoe@uni.example;Mo\n".encode("cp1252")
    with pytest.raises(CourseError, match="no id column"):
        parse_roster_csv(text, "r.csv", {"name": "Nom", "email": "courriel", "section": "Gruppe"})
    f = parse_roster_csv(text, "r.csv", {"id": "Matrikel", "name": "Nom", "email": "Courriel", "section": "Gruppe"})
    assert f.students == (Student("12345", "Zoë Müller", "zoe@uni.example", "Mo"),)
    assert f.encoding == "Windows-1252"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SID,Name\ns1,A\ns1,B\n", "r.csv rows 2 and 3: the id 's1' twice"),
        ("SID,Name\nnot valid,A\n", "r.csv row 2: id 'not valid' is not a valid id"),
        ("", "r.csv: empty"),
        ("Name,Email\nA,a@x\n", "r.csv: no id column"),
    ],
)
def test_bad_rosters_are_one_line(text: str, message: str) -> None:
    with pytest.raises(CourseError) as info:
        parse_roster_csv(text.encode(), "r.csv")
    assert message in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(CourseError, match="not a field"):
        parse_roster_csv(b"SID\ns1\n", "r.csv", {"phone": "SID"})


# --- preview == applied ---------------------------------------------------------------------------------

IDS = [f"s{i:02d}" for i in range(8)]
students = st.builds(
    Student,
    st.sampled_from(IDS),
    st.sampled_from(["Ada", "Grace Hopper", "Zoë"]),
    st.sampled_from(["", "a@uni.example", "b@uni.example"]),
    st.sampled_from(["", "A", "Lab 01", "B"]),
)
rosters = st.lists(students, unique_by=lambda s: s.id, max_size=8)


def hash_of(s: Student) -> str:
    return f"$argon2id$fake${s.id}"


def write_roster(root: Path, current: list[Student]) -> None:
    """A site whose files hold ``current`` (made the way an instructor would: importing it), with staff and a
    team of another kind around it."""
    (root / "accounts.yaml").write_text(
        yaml.safe_dump(
            [
                {"id": "prof", "username": "prof", "password": "x", "type": "admin"},
                {"id": "ta", "username": "ta", "password": "y", "type": "judge"},
                {"id": "grp1", "username": "grp1", "password": "z", "type": "team", "team_id": "grp1"},
            ]
        )
    )
    (root / "teams.json").write_text(json.dumps([{"id": "grp1", "name": "Group 1", "group_ids": ["projects"]}]))
    (root / "groups.json").write_text(json.dumps([{"id": "projects", "name": "Project teams"}]))
    people = read_people(root)
    write_people(applied_people(people, preview(roster_from(people), current), hash_of))


@settings(max_examples=150, deadline=None)
@given(rosters, rosters, rosters)
def test_the_preview_is_exactly_what_applying_does(
    first: list[Student], now: list[Student], later: list[Student]
) -> None:
    current = apply(Roster(), preview(Roster(), first))
    assert current.students == tuple(sorted(first))
    plan = preview(current, now)
    after = apply(current, plan)
    assert after.students == tuple(sorted(now))
    assert preview(after, now).empty
    assert {s.id for s in after.withdrawn} == {s.id for s in first} - {s.id for s in now}
    assert len(plan.added) + len(plan.changed) + plan.unchanged == len(now)
    # the same through the site's files, with a third import on top (withdrawn students coming back)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_roster(root, first)
        for incoming in (now, later):
            before = read_roster(root)
            plan = preview(before, incoming)
            write_people(applied_people(read_people(root), plan, hash_of))
            read = read_roster(root)
            assert read == apply(before, plan)
            assert read.students == tuple(sorted(incoming))
            assert preview(read, incoming).empty
        people = read_people(root)
        accounts = {a["id"]: a for a in people.accounts}
        assert {"prof", "ta", "grp1"} <= set(accounts) and accounts["prof"]["password"] == "x"
        assert set(accounts) == {"prof", "ta", "grp1"} | {s.id for s in later}
        team_ids = {t["id"] for t in people.teams}
        teams = load_teams(people.teams_path, {g["id"] for g in people.groups}, set())  # judge serve reads them
        load_accounts(people.accounts_path, team_ids)
        assert {t.id for t in teams} == {"grp1"} | {s.id for s in (*first, *now, *later)}
        assert next(t for t in teams if t.id == "grp1").group_ids == ("projects",)
        assert all((root / n).stat().st_mode & 0o777 == 0o600 for n in ("teams.json", "groups.json", "accounts.yaml"))


def test_a_preview_in_words_and_the_passwords() -> None:
    current = apply(Roster(), preview(Roster(), [Student("s1", "Ada", "", "A"), Student("s2", "Bob", "", "A")]))
    plan = preview(current, [Student("s1", "Ada", "ada@x", "B"), Student("s3", "Cy", "", "")])
    assert plan.lines() == [
        "+ s3  Cy    (no section)",
        "~ s1  email: '' -> 'ada@x'; section: 'A' -> 'B'",
        "- s2  Bob  (withdrawn: no login, kept for past submissions)",
    ]
    logins = new_logins(plan, iter(["pw-1"]).__next__)
    assert login_rows(logins) == [
        ["id", "name", "email", "section", "username", "password"],
        ["s3", "Cy", "", "", "s3", "pw-1"],
    ]


def test_ids_that_are_taken_and_sections_that_clash(tmp_path: Path) -> None:
    write_roster(tmp_path, [Student("s1", "Ada", "", "A")])
    people = read_people(tmp_path)
    for incoming, message in [
        ([Student("grp1", "G", "", "")], "the team 'grp1' exists and is not a student's"),
        ([Student("prof", "P", "", "")], "an account 'prof' exists already"),
        ([Student("s1", "Ada", "", "Lab 1"), Student("s2", "B", "", "Lab-1")], "would have the same id 'Lab-1'"),
        ([Student("s1", "Ada", "", "students")], "a section cannot be called 'students'"),
        ([Student("s1", "Ada", "", "projects")], "the group 'projects' exists and is not a section"),
    ]:
        with pytest.raises(CourseError, match=message):
            applied_people(people, preview(roster_from(people), incoming), hash_of)
    assert section_id("Lab 01") == "Lab-01" and section_id("B") == "B" and section_id("  ") == "section"


def test_a_file_without_a_column_keeps_that_field() -> None:
    """Canvas's gradebook export has no email column: importing it keeps the emails the roster has."""
    current = apply(Roster(), preview(Roster(), [Student("s001", "Ada", "ada@x", "Section A")]))
    f = parse_roster_csv(CANVAS.encode(), "canvas.csv")
    assert f.fields == frozenset({"name", "section"})
    plan = preview(current, f.students, f.fields)
    assert [c.after for c in plan.changed] == [Student("s001", "Ada Lovelace", "ada@x", "Section A")]
    assert plan.added == (Student("s002", "Grace Hopper", "", "Section B"),)
    assert parse_roster_csv(b"SID\ns1\n", "r.csv").fields == frozenset()
