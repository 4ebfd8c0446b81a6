"""A roster CSV as instructors have them (issue 45): Canvas's gradebook export (``Student, ID, SIS User ID,
SIS Login ID, Section``), Moodle's participants or grades export (``First name, Last name, ID number, Email
address``, ``Groups``), Gradescope's roster (``First Name, Last Name, Email, SID, Role, Sections``), or any
file with such headers. Columns are found by their header (case, spaces and ``_`` do not matter), and the
mapping is reported; ``columns`` names a column for a field when the headers are something else. Pure: it
reads the file's bytes, never the disk.

Rows that are not students are skipped and reported: Canvas's ``Points Possible`` row and its ``Test
Student``, rows whose role (when there is a role column) is not a student's, rows without an id. A repeated
id, an id that is not a valid id or a file without an id column is an error of one line.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judge.course.roster import Student
from judge.course.values import CourseError, valid_id

FIELDS = ("id", "name", "first", "last", "email", "section", "role")
# the headers each field is found by, the first found winning (normalized: lower case, single spaces)
ALIASES: Mapping[str, tuple[str, ...]] = {
    "id": (
        "sis user id",
        "student id",
        "sid",
        "id number",
        "idnumber",
        "student number",
        "matriculation number",
        "user id",
        "username",
        "login id",
        "sis login id",
        "id",
    ),
    "name": ("name", "full name", "student name", "student"),
    "first": ("first name", "firstname", "given name", "first"),
    "last": ("last name", "lastname", "surname", "family name", "last"),
    "email": ("email", "email address", "e-mail", "e-mail address", "mail"),
    "section": ("section", "sections", "section name", "lab section", "group", "groups"),
    "role": ("role", "roles"),
}
STUDENT_ROLES = ("student", "learner")
NOT_STUDENTS = ("points possible", "test student", "student, test")


@dataclass(frozen=True)
class RosterFile:
    students: tuple[Student, ...]  # in the file's order
    mapping: tuple[tuple[str, str | None], ...]  # (field, the header it was read from; None: not in the file)
    ignored: tuple[str, ...]  # the headers not read
    skipped: tuple[tuple[int, str], ...]  # (row number, 1 = the header, why it is not a student)
    encoding: str

    @property
    def fields(self) -> frozenset[str]:
        """The student's fields the file has a column for (the others are kept as they are by an import)."""
        found = {f for f, h in self.mapping if h is not None}
        return frozenset({"email", "section"} & found | ({"name"} if found & {"name", "first", "last"} else set()))

    def mapping_lines(self) -> list[str]:
        """The mapping for the instructor: ``id <- "SIS User ID"``, one field a line."""
        lines = [f"{f:<8} <- {h!r}" if h is not None else f"{f:<8} (no column)" for f, h in self.mapping]
        if self.ignored:
            lines.append(f"ignored: {', '.join(repr(h) for h in self.ignored)}")
        return lines


def normalize(header: str) -> str:
    return " ".join(header.replace("\ufeff", "").replace("_", " ").strip().lower().split())


def _decode(data: bytes, where: str) -> tuple[str, str]:
    try:
        return data.decode("utf-8-sig"), "UTF-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "Windows-1252"  # Excel's "CSV" on Windows
    except UnicodeDecodeError:
        raise CourseError(f"{where}: neither UTF-8 nor Windows-1252 text: save it as CSV UTF-8") from None


def _rows(text: str, where: str) -> list[list[str]]:
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise CourseError(f"{where}: not a CSV file ({exc})") from None
    if not rows:
        raise CourseError(f"{where}: empty (expected a header row, then one row per student)")
    return rows


def _find(
    headers: Sequence[str], rows: Sequence[Sequence[str]], columns: Mapping[str, str], where: str
) -> dict[str, int]:
    normalized = [normalize(h) for h in headers]
    found: dict[str, int] = {}
    for fieldname, header in columns.items():
        if fieldname not in FIELDS:
            raise CourseError(f"--column {fieldname}=...: not a field (fields: {', '.join(FIELDS)})")
        if normalize(header) not in normalized:
            raise CourseError(f"{where}: no column {header!r} (--column {fieldname}=...); the headers: {headers}")
        found[fieldname] = normalized.index(normalize(header))
    for fieldname, aliases in ALIASES.items():
        if fieldname in found:
            continue
        present = [
            normalized.index(a) for a in aliases if a in normalized and normalized.index(a) not in found.values()
        ]
        if not present:
            continue
        # an id column empty in some rows (Canvas's SIS User ID in a course without SIS ids) yields to the next
        full = [i for i in present if all(i < len(r) and r[i].strip() for r in rows)] if fieldname == "id" else []
        found[fieldname] = (full or present)[0]
    if "id" not in found:
        raise CourseError(
            f"{where}: no id column (looked for {', '.join(repr(a) for a in ALIASES['id'][:6])}, ...); "
            f"name it with --column id=HEADER (the headers: {', '.join(headers)})"
        )
    return found


def _name(row: Sequence[str], cols: Mapping[str, int], headers: Sequence[str]) -> str:
    def at(fieldname: str) -> str:
        i = cols.get(fieldname)
        return row[i].strip() if i is not None and i < len(row) else ""

    name = at("name")
    if name and normalize(headers[cols["name"]]) == "student" and name.count(",") == 1:
        last, first = (p.strip() for p in name.split(","))  # Canvas's "Lovelace, Ada"
        return f"{first} {last}".strip()
    return name or " ".join(p for p in (at("first"), at("last")) if p)


def _student_rows(
    rows: Sequence[Sequence[str]], cols: Mapping[str, int], headers: Sequence[str]
) -> tuple[list[tuple[int, Student]], list[tuple[int, str]]]:
    out: list[tuple[int, Student]] = []
    skipped: list[tuple[int, str]] = []
    for n, row in enumerate(rows, start=2):

        def at(fieldname: str, row: Sequence[str] = row) -> str:
            i = cols.get(fieldname)
            return row[i].strip() if i is not None and i < len(row) else ""

        name = _name(row, cols, headers)
        first_cell = row[0].strip().lower() if row else ""
        if first_cell in NOT_STUDENTS or name.lower() in NOT_STUDENTS:
            skipped.append((n, f"not a student ({row[0].strip() or name})"))
        elif "role" in cols and not any(r in at("role").lower() for r in STUDENT_ROLES):
            skipped.append((n, f"role {at('role')!r} is not a student's"))
        elif not at("id"):
            skipped.append((n, "no id"))
        else:
            out.append((n, Student(at("id"), name or at("id"), at("email"), at("section"))))
    return out, skipped


def parse_roster_csv(data: bytes, where: str, columns: Mapping[str, str] | None = None) -> RosterFile:
    """The students of a roster CSV's bytes (``where`` names it in messages); ``columns``: field -> header, for
    the columns whose header is not one the fields are found by."""
    text, encoding = _decode(data, where)
    rows = _rows(text, where)
    headers = [h.replace("\ufeff", "").strip() for h in rows[0]]
    cols = _find(headers, rows[1:], dict(columns or {}), where)
    found, skipped = _student_rows(rows[1:], cols, headers)
    seen: dict[str, int] = {}
    for n, s in found:
        if not valid_id(s.id):
            raise CourseError(f"{where} row {n}: id {s.id!r} is not a valid id (letters, digits, _ . -; at most 36)")
        if s.id in seen:
            raise CourseError(f"{where} rows {seen[s.id]} and {n}: the id {s.id!r} twice")
        seen[s.id] = n
    mapping = tuple((f, headers[cols[f]] if f in cols else None) for f in FIELDS)
    ignored = tuple(h for i, h in enumerate(headers) if i not in cols.values() and h)
    return RosterFile(tuple(s for _, s in found), mapping, ignored, tuple(skipped), encoding)
