"""A roster import's preview (issue 45): who is added, whose name, email or section changes, who is removed;
and applying it. Pure. Applying a preview gives exactly the imported students (``apply(current,
preview(current, incoming))`` holds ``incoming``, and a second preview is empty: tests/test_course_roster.py
checks both with Hypothesis, also through the site's files).

Removed students are not deleted: they are *withdrawn* (their team stays, for their past submissions, in a
hidden group; their account goes, with their email: they cannot log in; no gradebook lists them). A withdrawn
student who is in a later import is added again, with a new password.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from judge.course.roster import Roster, Student

CHANGEABLE = ("name", "email", "section")


@dataclass(frozen=True)
class Change:
    before: Student
    after: Student

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(f for f in CHANGEABLE if getattr(self.before, f) != getattr(self.after, f))


@dataclass(frozen=True)
class RosterPlan:
    added: tuple[Student, ...]  # new students, and withdrawn ones back (by id)
    changed: tuple[Change, ...]
    removed: tuple[Student, ...]  # to be withdrawn
    unchanged: int

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)

    def lines(self) -> list[str]:
        """The preview for the instructor, one student a line: ``+ s031 Ada Lovelace (A)``, ``~ s002 section: A -> B``,
        ``- s017 Grace Hopper``."""
        out = [f"+ {s.id}  {s.name}  {s.email}  ({s.section or 'no section'})" for s in self.added]
        for c in self.changed:
            what = "; ".join(f"{f}: {getattr(c.before, f)!r} -> {getattr(c.after, f)!r}" for f in c.fields)
            out.append(f"~ {c.after.id}  {what}")
        out += [f"- {s.id}  {s.name}  (withdrawn: no login, kept for past submissions)" for s in self.removed]
        return out


def preview(current: Roster, incoming: Sequence[Student], fields: Collection[str] = CHANGEABLE) -> RosterPlan:
    """What importing ``incoming`` (unique ids) into ``current`` would do. ``fields``: those the file has a
    column for; a current student's other fields stay as they are (a roster without emails keeps them)."""
    ids = [s.id for s in incoming]
    if len(set(ids)) != len(ids):
        raise ValueError("an import names a student twice")
    added: list[Student] = []
    changed: list[Change] = []
    unchanged = 0
    for s in sorted(incoming):
        before = current.get(s.id)
        if before is None:
            added.append(s)
            continue
        after = replace(before, **{f: getattr(s, f) for f in CHANGEABLE if f in fields})
        if before != after:
            changed.append(Change(before, after))
        else:
            unchanged += 1
    keep = set(ids)
    removed = tuple(s for s in current.students if s.id not in keep)
    return RosterPlan(tuple(added), tuple(changed), removed, unchanged)


def apply(current: Roster, plan: RosterPlan) -> Roster:
    """``current`` with ``plan`` applied."""
    gone = {s.id for s in plan.removed} | {c.before.id for c in plan.changed}
    students = [s for s in current.students if s.id not in gone]
    students += [c.after for c in plan.changed] + list(plan.added)
    back = {s.id for s in plan.added}
    # a withdrawn student keeps only what names their past submissions: id and name
    withdrawn = [s for s in current.withdrawn if s.id not in back] + [Student(s.id, s.name) for s in plan.removed]
    return Roster(tuple(students), tuple(withdrawn))


@dataclass(frozen=True)
class NewLogin:
    """A new student's login, given to the instructor once (a CSV to mail-merge), never stored in clear."""

    student: Student
    username: str
    password: str


def new_logins(plan: RosterPlan, make_password: Callable[[], str]) -> tuple[NewLogin, ...]:
    """A fresh password for every added student (``make_password``: the commands' ``secrets``-based one)."""
    return tuple(NewLogin(s, s.id, make_password()) for s in plan.added)


LOGIN_COLUMNS = ("id", "name", "email", "section", "username", "password")


def login_rows(logins: Sequence[NewLogin]) -> list[list[str]]:
    """The mail-merge CSV's rows: a header, then one row per new student."""
    return [list(LOGIN_COLUMNS)] + [
        [lg.student.id, lg.student.name, lg.student.email, lg.student.section, lg.username, lg.password]
        for lg in logins
    ]
