"""A whole report: each problem's sources compared (compare.py) with its package's boilerplate left out
(boilerplate.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from importlib import metadata

from judge.package.problem import Problem
from judge.similarity.boilerplate import given_code, hashes_for
from judge.similarity.compare import compare_problem
from judge.similarity.fingerprint import Params
from judge.similarity.model import ProblemReport, Report, Settings, Source


def engine() -> str:
    try:
        return f"copydetect {metadata.version('copydetect')}"
    except metadata.PackageNotFoundError:
        return "copydetect"


def problem_report(
    problem: Problem | None, problem_id: str, sources: Sequence[Source], settings: Settings
) -> ProblemReport:
    """One problem's report (``problem`` None: no package, so no boilerplate)."""
    given = given_code(problem) if problem is not None else []
    hashes = hashes_for(given, Params(settings.k, settings.window))
    names = [g.name for g in given]
    return compare_problem(problem_id, sources, settings, hashes, boilerplate_names=names)


def similarity_report(
    problems: Mapping[str, Problem], sources: Sequence[Source], settings: Settings, terms: Sequence[str] = ()
) -> Report:
    """Every problem that has a source of the contest, in the problems' order."""
    by_problem: dict[str, list[Source]] = defaultdict(list)
    for s in sources:
        by_problem[s.problem].append(s)
    order = [p for p in problems if p in by_problem] + sorted(p for p in by_problem if p not in problems)
    reports = [
        problem_report(problems.get(pid), pid, by_problem[pid], settings)
        for pid in order
        if any(s.term is None for s in by_problem[pid])
    ]
    return Report(settings, tuple(reports), engine(), tuple(terms))
