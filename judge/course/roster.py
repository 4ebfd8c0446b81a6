"""The course's people as the course tools see them: students (id, name, email, section) and the course's
sections. Pure records; reading and writing them in a site's files is ``sitefiles.py``, a roster CSV
``rostercsv.py``, the import's preview and its application ``rosterdiff.py``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True, order=True)
class Student:
    id: str  # the login, the team id, the key of every export (the roster's id column: SIS id, student number)
    name: str = ""
    email: str = ""
    section: str = ""  # the section's name as the roster writes it ("" none)

    @property
    def section_id(self) -> str | None:
        return section_id(self.section) if self.section else None


@dataclass(frozen=True)
class Roster:
    students: tuple[Student, ...] = ()  # sorted by id, ids unique
    # the students who left (removed by an import): kept for their past submissions, never in a gradebook
    withdrawn: tuple[Student, ...] = ()
    _by_id: Mapping[str, Student] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "students", tuple(sorted(self.students)))
        object.__setattr__(self, "withdrawn", tuple(sorted(self.withdrawn)))
        by_id = {s.id: s for s in self.students}
        if len(by_id) != len(self.students):
            raise ValueError("a roster names a student twice")
        object.__setattr__(self, "_by_id", by_id)

    def get(self, student_id: str) -> Student | None:
        return self._by_id.get(student_id)

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(sorted({s.section for s in self.students if s.section}))


def section_id(name: str) -> str:
    """The id of a section named ``name`` (its group's id in groups.json, what an override's ``section:``
    names): the name with every run of other characters than letters, digits, ``_ . -`` made one ``-``
    ("Lab 01" -> "Lab-01"; "B" stays "B")."""
    out = _NOT_ID.sub("-", name.strip()).lstrip("-.")[:36].rstrip(".-")
    return out or "section"


def roster_of(students: Iterable[Student]) -> Roster:
    return Roster(tuple(students))
