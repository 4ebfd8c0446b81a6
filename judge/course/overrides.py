"""Overrides set while an assignment is served (issue 45, docs/course.md): the instructor gives some students, or a
section, another window from the roster page (an extension, a due time, a close), or takes it back. Pure.

They are kept beside contest.yaml (`judge serve` stores them in the contest's database; contest.yaml stays the
instructor's file) as a list of entries, each naming ``students`` or ``sections`` and either an override's keys
(``extension``, ``due``, ``open``, ``late_until``, ``note``: assignment.py's) or ``clear: true``. Laid over
contest.yaml's ``assignment:`` (``with_overrides``), a student or section an entry names loses the override
contest.yaml gave it and gets the entry's (a ``clear`` entry: none, the assignment's own window); the result is
read by ``parse_assignment`` like any assignment (every mistake the same one line). `judge serve`, `judge course
grades` and the gradebook page all lay them over the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from judge.course.values import CourseError, ids, mapping

TARGETS = ("students", "sections")
CHANGES = ("extension", "due", "open", "late_until", "note")
ENTRY_KEYS = (*TARGETS, *CHANGES, "clear")


def _targets(entry: Mapping[str, Any], where: str) -> tuple[str, tuple[str, ...]]:
    found = [k for k in TARGETS if entry.get(k)]
    if len(found) != 1:
        raise CourseError(f"{where}: name `students` or `sections` (one of them)")
    return found[0], ids(entry[found[0]], f"{where}.{found[0]}")


def check_entry(entry: Any, where: str) -> dict[str, Any]:
    """An entry as stored: its targets, and its override's keys or ``clear: true``."""
    data = mapping(entry, where, ENTRY_KEYS)
    kind, names = _targets(data, where)
    changes = {k: data[k] for k in CHANGES if data.get(k) not in (None, "")}
    if data.get("clear"):
        if any(k != "note" for k in changes):
            raise CourseError(f"{where}: `clear` takes the override back: it sets nothing else")
        return {kind: list(names), "clear": True}
    if not any(k != "note" for k in changes):
        raise CourseError(f"{where}: changes nothing (give extension, due, open or late_until, or clear)")
    return {kind: list(names), **changes}


def _names(entry: Mapping[str, Any]) -> tuple[str, set[str]]:
    for key, single in (("students", "student"), ("sections", "section")):
        found: set[str] = set()
        for k in (key, single):
            value = entry.get(k)
            if value is not None:
                found |= {str(v) for v in (value if isinstance(value, list) else [value])}
        if found:
            return key, found
    return "", set()


def _without(entry: Mapping[str, Any], names: set[str], kind: str) -> dict[str, Any] | None:
    """``entry`` (contest.yaml's override) without the ``kind`` targets in ``names`` (None: it names nobody now)."""
    key, mine = _names(entry)
    if key != kind or not mine & names:
        return dict(entry)
    left = sorted(mine - names)
    if not left:
        return None
    out = {k: v for k, v in entry.items() if k not in (kind, kind[:-1])}
    out[kind] = left
    return out


def with_overrides(raw: Any, extra: Sequence[Mapping[str, Any]]) -> Any:
    """contest.yaml's ``assignment:`` mapping ``raw`` with the ``extra`` entries (``set_entry``'s: no two name
    the same student or section) laid over its ``overrides``; ``raw`` as it is when there are none, or when it
    is no mapping (parse_assignment then says what is wrong)."""
    if not extra or not isinstance(raw, Mapping):
        return raw
    overrides = raw.get("overrides") or []
    if not isinstance(overrides, list):
        return raw
    out: list[Any] = list(overrides)
    for entry in extra:
        kind, names = _names(entry)
        out = [e for e in (_without(o, names, kind) if isinstance(o, Mapping) else o for o in out) if e is not None]
    out += [{k: v for k, v in e.items() if k != "clear"} for e in extra if not e.get("clear")]
    return {**raw, "overrides": out}


def set_entry(extra: Sequence[Mapping[str, Any]], entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The stored entries after ``entry``: the earlier entries lose the targets it names."""
    kind, names = _names(entry)
    kept = [e for e in (_without(x, names, kind) for x in extra) if e is not None]
    return [*kept, dict(entry)]


def dumps(extra: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(list(extra), sort_keys=True, ensure_ascii=False)


def loads(text: str | None, where: str) -> list[dict[str, Any]]:
    """The stored entries (checked: a file edited by hand is read as strictly as contest.yaml)."""
    if not text:
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise CourseError(f"{where}: not valid JSON") from None
    if not isinstance(data, list):
        raise CourseError(f"{where}: expected a list of overrides")
    return [check_entry(e, f"{where}[{i}]") for i, e in enumerate(data)]
