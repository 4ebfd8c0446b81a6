"""A site of contests on disk (issue 44) as frozen records: what `judge serve DIR` serves.

DIR is a site when it holds ``site.yaml``::

    SITE/
      site.yaml              name (shown on the pages), optional ``contests: [ids]`` (their order)
      accounts.yaml  teams.json  groups.json  organizations.json     the people, shared by every contest
      problems/<id>/         problem packages any contest may use
      contests/<cid>/        each a contest package (contest.yaml, problems.yaml; problems resolved in the
                             contest's own problems/ first, then the site's), without people of its own

DIR is one contest when it holds ``contest.yaml`` (today's layout): a site of that one contest, whose people
are its own. Nothing here starts a program or opens a database; every mistake is one line (``ContestError``)
naming the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from judge.package.problem import Problem
from judge.serve.model.contest import Contest, ContestError, People, load_contest, load_people, valid_id
from judge.serve.model.course import ServedAssignment, load_assignment

SITE_FILE = "site.yaml"
CONTESTS_DIR = "contests"
SITE_KEYS = ("name", "contests")


@dataclass(frozen=True)
class SiteSpec:
    """A site as loaded: its folder, name, people and contests (in the site's order)."""

    root: Path
    name: str
    people: People
    contests: tuple[Contest, ...]
    single: bool = False  # a contest folder (contest.yaml) served as a site of one: nothing changes on disk
    order: tuple[str, ...] = ()  # site.yaml's ``contests``: these first, in this order, then the others by id
    # a course's assignments (issue 45): contest.yaml's ``assignment:`` of the contests that have one, by id
    assignments: Mapping[str, ServedAssignment] = field(default_factory=dict)

    def place(self, contest_id: str) -> tuple[int, str]:
        """Where a contest goes in the site's order (a contest added live goes where a restart puts it)."""
        if contest_id in self.order:
            return self.order.index(contest_id), ""
        return len(self.order), contest_id

    def contest(self, contest_id: str) -> Contest | None:
        return next((c for c in self.contests if c.info.id == contest_id), None)


def is_site(root: Path) -> bool:
    return (root / SITE_FILE).is_file()


def _site_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ContestError(f"cannot read {path}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ContestError(f"{path}{line}: not valid YAML") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ContestError(f"{path}: expected a mapping like {{name: My site, contests: [practice, main]}}")
    unknown = sorted(str(k) for k in data if k not in SITE_KEYS)
    if unknown:
        raise ContestError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(SITE_KEYS)})")
    return data


def _order(data: dict[str, Any], path: Path) -> tuple[str, ...]:
    order = data.get("contests")
    if order is None:
        return ()
    if not isinstance(order, list) or not all(isinstance(c, str) and valid_id(c) for c in order):
        raise ContestError(f"{path}: `contests` must list contest ids (the folders of contests/), got {order!r}")
    seen: set[str] = set()
    for cid in order:
        if cid in seen:
            raise ContestError(f"{path}: contests: {cid!r} appears twice")
        seen.add(cid)
    return tuple(order)


def contest_folders(root: Path) -> list[Path]:
    """SITE/contests/<cid>/ (no hidden folders), by name."""
    base = root / CONTESTS_DIR
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))


def load_site_contest(root: Path, folder: Path, people: People, packages: dict[Path, Problem] | None = None) -> Contest:
    """One contest of the site: SITE/contests/<cid>/, its folder named by its id."""
    contest = load_contest(folder, root / "problems", people, packages)
    if contest.info.id != folder.name:
        raise ContestError(
            f"{folder / 'contest.yaml'}: id {contest.info.id!r} is not its folder's name ({folder.name!r}): "
            f"a site's contest lives in {CONTESTS_DIR}/<its id>/"
        )
    return contest


def check_problems(contests: Sequence[Contest]) -> None:
    """A problem id names one package across the site (the judges find a package by id): two different
    packages of one id in two contests are refused."""
    seen: dict[str, tuple[str, Problem]] = {}
    for c in contests:
        for p in c.problems:
            before = seen.get(p.id)
            if before is not None and before[1].content_hash != p.problem.content_hash:
                raise ContestError(
                    f"contests {before[0]!r} and {c.info.id!r} use two different packages of problem {p.id!r} "
                    f"({before[1].path} and {p.problem.path}): give one of them another id"
                )
            seen.setdefault(p.id, (c.info.id, p.problem))


def load_site(root: Path, problems_dir: Path | None = None) -> SiteSpec:
    """Read DIR: a site (site.yaml) or one contest (contest.yaml). ``problems_dir`` (`--problems`): where a
    single contest's problems are found after its own problems/ (a site's are in SITE/problems/)."""
    if not root.is_dir():
        raise ContestError(f"{root}: not a folder (a contest package or a site; `judge site init DIR` makes a site)")
    if not is_site(root):
        if not any((root / f"contest{ext}").is_file() for ext in (".yaml", ".json")):
            raise ContestError(
                f"{root}: neither a site (no {SITE_FILE}) nor a contest package (no contest.yaml): "
                "`judge site init DIR` or `judge contest init DIR` makes one"
            )
        contest = load_contest(root, problems_dir)
        found = assignments_of((contest,), contest.people, root)
        return SiteSpec(root, contest.info.name, contest.people, (contest,), single=True, assignments=found)
    path = root / SITE_FILE
    data = _site_yaml(path)
    name = data.get("name", root.resolve().name)
    if not isinstance(name, str) or not name.strip():
        raise ContestError(f"{path}: `name` must be a text, got {name!r}")
    order = _order(data, path)
    people = load_people(root)
    folders = {f.name: f for f in contest_folders(root)}
    for cid in order:
        if cid not in folders:
            raise ContestError(f"{path}: contests: no folder {CONTESTS_DIR}/{cid}/")
    packages: dict[Path, Problem] = {}
    ordered = [*order, *(cid for cid in folders if cid not in order)]
    contests = tuple(load_site_contest(root, folders[cid], people, packages) for cid in ordered)
    check_problems(contests)
    found = assignments_of(contests, people, root)
    return SiteSpec(root, name.strip(), people, contests, order=order, assignments=found)


def assignments_of(contests: Sequence[Contest], people: People, root: Path) -> dict[str, ServedAssignment]:
    """The assignments of those contests that are a course's (model/course.py; raises ContestError)."""
    found = {c.info.id: load_assignment(c, people, root) for c in contests}
    return {cid: a for cid, a in found.items() if a is not None}
