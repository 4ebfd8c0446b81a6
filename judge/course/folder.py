"""A course folder on disk (docs/course.md): a site (``site.yaml``; the people in ``teams.json``,
``groups.json``, ``accounts.yaml``; ``problems/``) whose contests under ``contests/<id>/`` are assignments, each
its ``contest.yaml`` with an ``assignment:`` mapping (assignment.py) and its ``problems.yaml``. Read into frozen
records; every mistake is a ``CourseError`` of one line. Reads files only: the submissions are the caller's
(`judge course grades` reads each contest's database through `judge serve`'s storage).

Checked here, across files: the students and sections an assignment names are in the roster; the contest runs
from its assignment's earliest opening to its latest close (else `judge serve` would refuse a submission
the assignment allows); each problem of problems.yaml is a package, whose maximum score the gradebook uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from judge.course.assignment import Assignment, parse_assignment
from judge.course.overrides import with_overrides
from judge.course.roster import Roster
from judge.course.sitefiles import read_roster
from judge.course.values import CourseError, an_id, span_s, text, time_s, valid_id
from judge.package.problem import PackageError, load_problem
from judge.scoreboard.times import TimeError, format_time, parse_reltime

SITE_FILE = "site.yaml"
CONTESTS = "contests"


@dataclass(frozen=True)
class CourseAssignment:
    id: str  # the contest's id (its folder under contests/)
    name: str
    root: Path
    assignment: Assignment
    problems: tuple[tuple[str, float], ...]  # (problem id, its maximum score), in problems.yaml's order
    start_s: float | None = None  # contest.yaml's start_time
    end_s: float | None = None  # its start_time + duration

    @property
    def max_scores(self) -> dict[str, float]:
        return dict(self.problems)


@dataclass(frozen=True)
class Course:
    root: Path
    name: str
    roster: Roster
    assignments: tuple[CourseAssignment, ...]
    skipped: tuple[str, ...] = ()  # contests without an `assignment:` (a practice contest): not graded


def read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CourseError(f"cannot read {path}: {type(exc).__name__}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise CourseError(f"{path}{line}: not valid YAML") from None


def load_assignment_file(path: Path) -> Assignment:
    """`judge grade --assignment FILE`: a contest.yaml with an ``assignment:`` mapping, or the mapping alone."""
    data = read_yaml(path)
    if isinstance(data, dict) and "assignment" in data:
        assignment = parse_assignment(data["assignment"], f"{path}: assignment")
        if assignment.name is None and data.get("name") is not None:
            return replace(assignment, name=text(data["name"], f"{path}: name"))
        return assignment
    return parse_assignment(data, str(path))


def assignment_problems(contest_yaml: Path) -> tuple[str, ...] | None:
    """The problem ids of the problems.yaml beside a contest.yaml, in order (None: there is none)."""
    path = contest_yaml.parent / "problems.yaml"
    if contest_yaml.name != "contest.yaml" or not path.is_file():
        return None
    data = read_yaml(path)
    if not isinstance(data, list) or not all(isinstance(e, dict) and "id" in e for e in data):
        raise CourseError(f"{path}: expected a list of problems, each with an `id`")
    return tuple(an_id(e["id"], f"{path} entry {i + 1}: id") for i, e in enumerate(data))


def _max_score(pid: str, roots: tuple[Path, ...], where: str) -> float:
    for r in roots:
        if (r / pid / "problem.yaml").is_file():
            try:
                return float(load_problem(r / pid).secret.max_score)
            except PackageError as exc:
                raise CourseError(f"{where}: {exc}") from None
    raise CourseError(f"{where}: no problem package {pid!r} at {' or '.join(str(r / pid) for r in roots)}")


def _problems(folder: Path, site: Path) -> tuple[tuple[str, float], ...]:
    path = folder / "problems.yaml"
    data = read_yaml(path) if path.is_file() else None
    if not isinstance(data, list) or not data or not all(isinstance(e, dict) and "id" in e for e in data):
        raise CourseError(f"{path}: expected a list of problems, each with an `id`")
    roots = (folder / "problems", site / "problems")
    return tuple(
        (pid, _max_score(pid, roots, f"{path} entry {i + 1}"))
        for i, pid in ((i, an_id(e["id"], f"{path} entry {i + 1}: id")) for i, e in enumerate(data))
    )


def _times(data: Mapping[str, Any], where: str) -> tuple[float | None, float | None]:
    if data.get("start_time") is None:
        return None, None
    start = time_s(data["start_time"], f"{where}: start_time")
    try:
        duration = parse_reltime(data.get("duration"), f"{where}: duration")
    except TimeError:
        duration = span_s(data.get("duration"), f"{where}: duration")
    return start, start + duration


def check_roster(assignment: Assignment, roster: Roster, where: str) -> None:
    """The students and sections ``assignment`` names are in ``roster`` (a withdrawn student may be named)."""
    known = {s.id for s in (*roster.students, *roster.withdrawn)}
    unknown = sorted(assignment.students_named - known)
    if unknown:
        raise CourseError(f"{where}: {unknown[0]!r} is not a student of the roster")
    sections = {s.section_id for s in roster.students if s.section_id}
    unknown = sorted(assignment.sections_named - sections)
    if unknown:
        raise CourseError(f"{where}: no section {unknown[0]!r} (sections: {', '.join(sorted(sections)) or 'none'})")
    clash = sorted(set(assignment.groups) & known)
    if clash:
        raise CourseError(f"{where}.groups: {clash[0]!r} is a student's id, not a group's")


def check_times(a: Assignment, start: float | None, end: float | None, where: str) -> None:
    """The contest (``start``..``end``) runs from the assignment's earliest opening to its latest close."""
    if start is None or end is None:
        return
    opens = [w.open_s for w in a.windows() if w.open_s is not None]
    if opens and min(opens) < start:
        raise CourseError(f"{where}: start_time is after the assignment opens ({format_time(min(opens))})")
    close = max(w.close_s for w in a.windows())
    if close > end:
        raise CourseError(
            f"{where}: the contest ends ({format_time(end)}) before a window closes ({format_time(close)}): "
            "make its duration longer"
        )


def load_contest_assignment(
    folder: Path, site: Path, roster: Roster, extra: Sequence[Mapping[str, Any]] = ()
) -> CourseAssignment | None:
    """``contests/<id>/``'s assignment (None: its contest.yaml has no ``assignment:``); ``extra``: the overrides
    set while it was served (overrides.py), laid over contest.yaml's."""
    path = folder / "contest.yaml"
    data = read_yaml(path) if path.is_file() else None
    if not isinstance(data, dict):
        raise CourseError(f"{path}: expected a contest.yaml (a mapping)")
    if data.get("assignment") is None:
        return None
    where = f"{path}: assignment"
    assignment = parse_assignment(with_overrides(data["assignment"], extra), where)
    check_roster(assignment, roster, where)
    start, end = _times(data, str(path))
    check_times(assignment, start, end, str(path))
    cid = str(data.get("id", folder.name))
    name = assignment.name or (text(data["name"], f"{path}: name") if data.get("name") is not None else cid)
    return CourseAssignment(cid, name, folder, assignment, _problems(folder, site), start, end)


def _contest_ids(root: Path, site: Mapping[str, Any]) -> list[str]:
    listed = site.get("contests")
    if listed is None:
        folder = root / CONTESTS
        return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    if not isinstance(listed, list) or not all(isinstance(c, str) and valid_id(c) for c in listed):
        raise CourseError(f"{root / SITE_FILE}: contests must be a list of contest ids")
    for c in listed:
        if not (root / CONTESTS / c).is_dir():
            raise CourseError(f"{root / SITE_FILE}: contests lists {c!r}, and there is no {root / CONTESTS / c}")
    return list(listed)


def load_course(root: Path, extra: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> Course:
    """The course in ``root`` (a site folder: site.yaml, the people, contests/<id>/); ``extra``: per contest,
    the overrides set while it was served."""
    if not (root / SITE_FILE).is_file():
        raise CourseError(f"{root}: no {SITE_FILE} (is this a course? `judge course init DIR` makes one)")
    site = read_yaml(root / SITE_FILE) or {}
    if not isinstance(site, dict):
        raise CourseError(f"{root / SITE_FILE}: expected a mapping (name, contests)")
    roster = read_roster(root)
    assignments, skipped = [], []
    for cid in _contest_ids(root, site):
        found = load_contest_assignment(root / CONTESTS / cid, root, roster, (extra or {}).get(cid, ()))
        if found is None:
            skipped.append(cid)
        else:
            assignments.append(found)
    name = text(site["name"], f"{root / SITE_FILE}: name") if site.get("name") is not None else root.name
    return Course(root, name, roster, tuple(assignments), tuple(skipped))
