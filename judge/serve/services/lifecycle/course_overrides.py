"""Overrides set while an assignment is served (issue 45, docs/course.md): the instructor gives some students, or
a section, another window from the roster page (an extension, a due time, a close) or takes it back, in bulk.
Kept in the contest's database (``course_overrides`` in ``meta``) over contest.yaml's (course/overrides.py lays
them over it, the same way for `judge course grades`), checked as contest.yaml's are (the students and sections
must be the roster's; the contest must run until the latest close), audited, in force at once: the submit
check, the board, the gradebook and the feedback rules read the rules in force."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from judge.course.folder import check_roster, check_times
from judge.course.overrides import check_entry, dumps, set_entry
from judge.course.values import CourseError
from judge.serve.model.course import course_roster
from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.coursework import OVERRIDES_KEY, in_force
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.course_feedback import republish_for
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit

KINDS = ("extension", "due", "late_until", "open", "clear")


@dataclass(frozen=True)
class OverrideChange:
    """What the roster page's form asks: whom (students, or sections), what (an extension, a due time, a
    close, an opening; or ``clear``: the assignment's own window back), the value and a note."""

    students: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    kind: str = "extension"
    value: str = ""
    note: str = ""


def _entry(change: OverrideChange) -> dict[str, object]:
    if bool(change.students) == bool(change.sections):
        raise CourseError("choose some students, or a section")
    if change.kind not in KINDS:
        raise CourseError(f"the override: expected one of {', '.join(KINDS)}, got {change.kind!r}")
    target: dict[str, object] = {"students": list(change.students)} if change.students else {}
    if change.sections:
        target = {"sections": list(change.sections)}
    if change.kind == "clear":
        return check_entry({**target, "clear": True}, "the override")
    if not change.value.strip():
        raise CourseError(f"the override: give the {change.kind.replace('_', ' ')} (e.g. 2d, or a time with its zone)")
    entry = {**target, change.kind: change.value.strip()}
    if change.note.strip():
        entry["note"] = change.note.strip()
    return check_entry(entry, "the override")


def set_overrides(server: ServedJudging, viewer: Viewer, change: OverrideChange, now: float) -> Sequence[str]:
    """Set (or clear) the override of the students or sections of ``change`` (admins). Returns whom it named."""
    access.admin(viewer, "set overrides")
    work = server.course
    with work.lock:
        state = work.state
        if state is None:
            raise Refused(404, "this contest is not a course's assignment")
        where = f"{state.served.where} (with the roster page's overrides)"
        info = server.contest.info
        try:
            entry = _entry(change)
            extra = set_entry(state.extra, entry)
            assignment = in_force(state.served, extra)
            check_roster(assignment, course_roster(server.contest.people, work.root or server.contest.root), where)
            check_times(assignment, info.start_s, info.end_s, where)
        except CourseError as exc:
            raise Refused(400, str(exc)) from None
        after = replace(state, assignment=assignment, extra=tuple(extra))
        teams = set(change.students) or {
            t.id for t in server.contest.teams if any(g in change.sections for g in t.group_ids)
        }
        work.set(after)
        try:
            with server.storage.write() as w:
                w.set_meta(OVERRIDES_KEY, dumps(extra))
                audit(w, viewer, now, "course.override", dict(entry))
                republish_for(w, server, teams, now)  # their feedback may switch at another time now
        except BaseException:
            work.set(state)
            raise
    server.bus.notify()
    return sorted(change.students or change.sections)
