"""What is in a contest folder: contestants, their submissions, and what cannot be judged (and why).

Layout: ``SUBMISSIONS_DIR/<contestant>/<problem-id>.<ext>`` (one file) or ``<problem-id>/`` (a folder of
files). The extension picks the language. For a pass-fail board (``attempts``), several files of one
problem, ``<problem-id>.<anything>.<ext>``, are that contestant's attempts (``times.yaml``, grade/times.py,
says when each was made); otherwise they are ambiguous and none is judged. Nothing here runs a program;
problems that cannot be judged become ``Issue`` records, shown in the output and on the scoreboard, and
grading goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from judge.judging.jobs import Unreadable, is_hidden, read_submission
from judge.judging.jobs import source_hash as hash_files
from judge.languages.table import Language, language_for
from judge.package.problem import PackageError, Problem, load_problem


@dataclass(frozen=True)
class Issue:
    """Something in the contest or problems folder that is not judged, and why (one line)."""

    # unknown-problem | unknown-language | unreadable | ambiguous | stray-file | bad-package | skipped
    kind: str
    path: str  # relative to the folder it was found in
    reason: str
    contestant: str | None = None
    problem: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {
            "kind": self.kind,
            "path": self.path,
            "reason": self.reason,
            "contestant": self.contestant,
            "problem": self.problem,
        }


@dataclass(frozen=True)
class Entry:
    """One submission to judge: a contestant's file or folder for one problem."""

    contestant: str
    problem: str
    path: Path
    rel: str  # "<contestant>/<name>", for messages
    language: str
    source_hash: str
    attempt: bool = False  # one of several attempts at the problem (a pass-fail board's)

    @property
    def key(self) -> tuple[str, str]:
        """What names the entry in a grading: (contestant, problem); an attempt, (contestant, its path)."""
        return (self.contestant, self.rel if self.attempt else self.problem)


@dataclass(frozen=True)
class ContestFolder:
    root: Path
    contestants: tuple[str, ...]  # every contestant folder, sorted, even one with nothing judgeable
    entries: tuple[Entry, ...]  # sorted by (contestant, problem)
    issues: tuple[Issue, ...]


def load_problems(problems_dir: Path) -> tuple[dict[str, Problem], list[Issue]]:
    """Every package under ``problems_dir`` (a folder with a problem.yaml). Broken ones become issues."""
    problems: dict[str, Problem] = {}
    issues: list[Issue] = []
    for sub in sorted(p for p in problems_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not (sub / "problem.yaml").is_file():
            continue
        try:
            problems[sub.name] = load_problem(sub)
        except PackageError as exc:
            issues.append(Issue("bad-package", sub.name, str(exc), problem=sub.name))
    return problems, issues


def source_hash(path: Path, folder: Path) -> str:
    """Content hash of a submission (file name(s) and bytes). Raises Unreadable."""
    files, _ = read_submission(path, folder)
    return hash_files(files)


def _problem_id(entry: Path) -> str:
    if entry.is_dir() and not entry.is_symlink():
        return entry.name
    return entry.name.split(".", 1)[0]


TIMES_NAME = "times.yaml"  # when the submissions were made (grade/times.py): not a contestant


def discover(
    root: Path, problems: Mapping[str, Problem], languages: Mapping[str, Language], *, attempts: bool = False
) -> ContestFolder:
    """Read a contest folder. Never raises for a contestant's mistake: it becomes an Issue. ``attempts``:
    several submissions of a contestant for one problem are its attempts (a pass-fail board's)."""
    contestants: list[str] = []
    issues: list[Issue] = []
    found: dict[tuple[str, str], list[Entry]] = {}
    for top in sorted(root.iterdir(), key=lambda p: p.name):
        if is_hidden(top):
            continue
        if not top.is_dir() or top.is_symlink():
            if not top.name.lower().startswith("readme") and top.name != TIMES_NAME:
                issues.append(Issue("stray-file", top.name, "not a contestant folder (a contestant is a folder)"))
            continue
        name = top.name
        contestants.append(name)
        for item in sorted(top.iterdir(), key=lambda p: p.name):
            if is_hidden(item):
                continue
            rel = f"{name}/{item.name}"
            pid = _problem_id(item)
            if pid not in problems:
                known = ", ".join(sorted(problems)) or "none"
                issues.append(Issue("unknown-problem", rel, f"no problem {pid!r} (known: {known})", name, pid))
                continue
            try:
                digest = source_hash(item, top)
            except Unreadable as exc:
                issues.append(Issue("unreadable", rel, str(exc), name, pid))
                continue
            lang = language_for(item, languages)
            if lang is None:
                what = "its files" if item.is_dir() else f"extension {item.suffix or '(none)'!r}"
                known_langs = ", ".join(sorted(languages))
                reason = f"unknown language ({what}); known: {known_langs}"
                issues.append(Issue("unknown-language", rel, reason, name, pid))
                continue
            found.setdefault((name, pid), []).append(Entry(name, pid, item, rel, lang.id, digest))
    entries: list[Entry] = []
    for (name, pid), group in sorted(found.items()):
        if len(group) > 1 and attempts:
            entries.extend(replace(e, attempt=True) for e in group)
            continue
        if len(group) > 1:
            files = ", ".join(e.path.name for e in group)
            reason = f"several submissions for {pid} ({files}): none is judged; keep one"
            issues.append(Issue("ambiguous", f"{name}/{pid}.*", reason, name, pid))
            continue
        entries.append(group[0])
    return ContestFolder(root, tuple(contestants), tuple(entries), tuple(issues))
