"""`judge similarity SUBMISSIONS_DIR`: the similarity report of a contest folder (docs/similarity.md); also
what `judge grade --similarity` writes beside the scoreboard (``write_for_grade``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from judge.commands.common import EXIT_OK, UsageError
from judge.grade.discovery import discover, load_problems
from judge.judging.jobs import Unreadable, read_submission
from judge.languages.table import Language, load_languages
from judge.package.problem import Problem
from judge.similarity.model import DEFAULT_THRESHOLD, Report, Settings, Source
from judge.similarity.render import write_report
from judge.similarity.run import similarity_report

STAFF_FOLDER = "staff/similarity"  # `judge grade --similarity`: under OUT, never linked from the board


def folder_sources(
    root: Path, problems: Mapping[str, Problem], languages: Mapping[str, Language], term: str | None = None
) -> tuple[list[Source], list[str]]:
    """The submissions of a contest folder (every attempt) as sources, and what could not be read."""
    contest = discover(root, problems, languages, attempts=True)
    sources, unread = [], [f"{i.path}: {i.reason}" for i in contest.issues if i.kind == "unreadable"]
    for e in contest.entries:
        try:
            files, _ = read_submission(e.path, root / e.contestant)
        except Unreadable as exc:
            unread.append(f"{e.rel}: {exc}")
            continue
        texts = tuple((f.name, f.data.decode("utf-8", errors="replace")) for f in files)
        sid = e.rel if term is None else f"{term}/{e.rel}"
        sources.append(Source(sid, e.contestant, e.problem, texts, term, e.rel))
    return sources, unread


def _terms(paths: Sequence[str]) -> list[tuple[str, Path]]:
    """Each --against folder and the name its submissions are shown with (its folder's name, made unique)."""
    out: list[tuple[str, Path]] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            raise UsageError(f"--against {raw}: not a folder (expected OLD_DIR/<contestant>/<problem>.<ext>)")
        name = path.resolve().name or raw
        taken = {n for n, _ in out}
        label, n = name, 2
        while label in taken:
            label, n = f"{name}-{n}", n + 1
        out.append((label, path))
    return out


def make_report(
    root: Path,
    problems: Mapping[str, Problem],
    settings: Settings,
    *,
    against: Sequence[str] = (),
    only: str | None = None,
) -> tuple[Report, dict[str, Source], list[str]]:
    """The report of ``root`` (and its earlier terms), the sources by id, and what could not be read."""
    languages = load_languages()
    sources, unread = folder_sources(root, problems, languages)
    terms = _terms(against)
    for label, path in terms:
        old, old_unread = folder_sources(path, problems, languages, label)
        sources += old
        unread += old_unread
    if only is not None:
        sources = [s for s in sources if s.problem == only]
    report = similarity_report(problems, sources, settings, [label for label, _ in terms])
    return report, {s.id: s for s in sources}, unread


def _settings(threshold: float | None) -> Settings:
    if threshold is None:
        return Settings()
    if not 0 < threshold <= 1:
        raise UsageError("--threshold must be a share: more than 0, at most 1 (e.g. 0.5)")
    return Settings(threshold=threshold)


def summary(report: Report) -> str:
    """The pairs above the threshold, ranked per problem, as the terminal shows them."""
    lines = []
    for p in report.problems:
        head = f"{p.problem}: {p.sources} submission(s)"
        head += f", {p.earlier} of earlier terms" if p.earlier else ""
        lines.append(f"{head}, {len(p.pairs)} pair(s) at or above {report.settings.threshold:.0%}")
        for rank, pair in enumerate(p.pairs, 1):
            a = pair.a.label + (f" ({pair.a.term})" if pair.a.term else "")
            b = pair.b.label + (f" ({pair.b.term})" if pair.b.term else "")
            lines.append(
                f"  {rank:>3}. {pair.score:>4.0%}  {a} ({pair.a.similarity:.0%})  ~  {b} ({pair.b.similarity:.0%})"
            )
        for c in p.clusters:
            lines.append(f"  group of {len(c.members)}: {', '.join(c.members)}")
    return "\n".join(lines)


def cmd_similarity(args: argparse.Namespace) -> int:
    root, problems_dir, out = Path(args.submissions), Path(args.problems), Path(args.out)
    if not root.is_dir():
        raise UsageError(f"{root}: not a folder (expected SUBMISSIONS_DIR/<contestant>/<problem>.<ext>)")
    if not problems_dir.is_dir():
        raise UsageError(f"{problems_dir}: not a folder of problem packages (use --problems DIR)")
    settings = _settings(args.threshold)
    problems, _bad = load_problems(problems_dir)
    if args.problem is not None and args.problem not in problems:
        known = ", ".join(sorted(problems)) or "none"
        raise UsageError(f"--problem {args.problem}: no such problem package in {problems_dir} (known: {known})")
    report, sources, unread = make_report(root, problems, settings, against=args.against or (), only=args.problem)
    index = write_report(report, sources, out)
    print(summary(report))
    for line in unread:
        print(f"not read: {line}", file=sys.stderr)
    print(f"report: {index} (JSON: {out / 'similarity.json'}); for the jury only: do not publish it")
    return EXIT_OK


def write_for_grade(root: Path, problems: Mapping[str, Problem], out: Path) -> Path:
    """`judge grade --similarity`: the report in OUT/staff/similarity/ (the board never links it)."""
    report, sources, _unread = make_report(root, problems, Settings(threshold=DEFAULT_THRESHOLD))
    (out / STAFF_FOLDER).parent.mkdir(parents=True, exist_ok=True)
    (out / STAFF_FOLDER).parent.chmod(0o700)  # OUT/staff/: the owner's only, whatever is published of OUT
    return write_report(report, sources, out / STAFF_FOLDER)
