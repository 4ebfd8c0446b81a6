"""Overrides set while an assignment is served (issue 45, course/overrides.py): laid over contest.yaml's, a
student or section named by an entry gets exactly the last entry's window (or the assignment's own, cleared),
everyone else keeps contest.yaml's; the stored entries are read as strictly as contest.yaml."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.course.assignment import parse_assignment
from judge.course.overrides import check_entry, dumps, loads, set_entry, with_overrides
from judge.course.values import CourseError

RAW: dict[str, Any] = {
    "due": "2030-01-08T23:59:00Z",
    "late": [{"for": "1d", "credit": 80}],
    "overrides": [
        {"students": ["s1", "s2"], "extension": "1d", "note": "file"},
        {"section": "B", "due": "2030-01-09T23:59:00Z"},
    ],
}
STUDENTS = ("s1", "s2", "s3")
SECTIONS = ("A", "B")


def test_an_entry_replaces_contest_yamls_override_of_whom_it_names_only() -> None:
    extra = set_entry([], check_entry({"students": ["s2"], "extension": "3d"}, "e"))
    a = parse_assignment(with_overrides(RAW, extra), "a")
    assert a.resolve("s1", "A").override.label == "extension 1d"  # type: ignore[union-attr]
    assert a.resolve("s2", "A").override.label == "extension 3d"  # type: ignore[union-attr]
    extra = set_entry(extra, check_entry({"sections": ["B"], "clear": True}, "e"))
    a = parse_assignment(with_overrides(RAW, extra), "a")
    assert a.resolve("s3", "B").override is None
    assert loads(dumps(extra), "meta") == extra


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"extension": "1d"}, "name `students` or `sections`"),
        ({"students": ["s1"], "sections": ["A"], "extension": "1d"}, "name `students` or `sections`"),
        ({"students": ["s1"], "note": "hm"}, "changes nothing"),
        ({"students": ["s1"], "clear": True, "extension": "1d"}, "sets nothing else"),
        ({"students": ["s1"], "extend": "1d"}, "unknown key 'extend'"),
    ],
)
def test_a_wrong_entry_is_one_line(entry: dict[str, Any], said: str) -> None:
    with pytest.raises(CourseError, match=said):
        check_entry(entry, "the override")


entries = st.lists(
    st.tuples(
        st.sampled_from(["students", "sections"]),
        st.lists(st.sampled_from(STUDENTS), min_size=1, max_size=3, unique=True),
        st.sampled_from(SECTIONS),
        st.one_of(st.none(), st.integers(1, 9)),  # None: clear; n: an extension of n hours
    ),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(entries)
def test_whom_an_entry_names_gets_the_last_entrys_window(steps: list[tuple[str, list[str], str, int | None]]) -> None:
    extra: list[dict[str, Any]] = []
    last: dict[tuple[str, str], int | None] = {}  # the reference: (kind, name) -> the last entry's hours
    for kind, students, section, hours in steps:
        names = students if kind == "students" else [section]
        change: dict[str, Any] = {"clear": True} if hours is None else {"extension": f"{hours}h"}
        extra = set_entry(extra, check_entry({kind: names, **change}, "e"))
        for n in names:
            last[(kind, n)] = hours
    a = parse_assignment(with_overrides(RAW, extra), "a")
    for student in STUDENTS:
        for section in SECTIONS:
            resolved = a.resolve(student, section)
            label = None if resolved.override is None else resolved.override.label
            if ("students", student) in last:
                mine = last[("students", student)]
                expected = f"extension {mine}h" if mine is not None else None
                if mine is None:  # cleared: their section's override (the entries', else contest.yaml's)
                    expected = _section(last, section)
            elif student in ("s1", "s2"):
                expected = "extension 1d"  # contest.yaml's
            else:
                expected = _section(last, section)
            assert label == expected, (student, section, extra)


def _section(last: dict[tuple[str, str], int | None], section: str) -> str | None:
    if ("sections", section) in last:
        hours = last[("sections", section)]
        return None if hours is None else f"extension {hours}h"
    return "due 2030-01-09T23:59:00.000+00:00" if section == "B" else None
