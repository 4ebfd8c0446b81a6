"""What a package offers the contestants besides its samples (`judge serve`: the API's problem object and the
problem page): a PDF statement of its own, its ``attachments/`` (testing tools, stubs, ...), and the key a PDF
typeset from its statement is kept under. Reads the package's folder; never changes a verdict
(judging/identity.NOT_VERDICT_FILES)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from judge.package.problem import Problem

ATTACHMENTS = "attachments"


def statement_pdf(problem: Problem) -> Path | None:
    """The package's own PDF statement: in its statement folder (``statement/`` or the legacy
    ``problem_statement/``), English first (``problem.en.pdf``, ``problem.pdf``), else the first PDF by name."""
    for folder in problem.format_version.statement_folders:
        where = problem.path / folder
        if not where.is_dir():
            continue
        for name in ("problem.en.pdf", "problem.pdf"):
            if (where / name).is_file():
                return where / name
        pdfs = sorted(p for p in where.iterdir() if p.suffix.lower() == ".pdf" and p.is_file())
        if pdfs:
            return pdfs[0]
    return None


def attachments(problem: Problem) -> list[Path]:
    """The files of ``attachments/``, by name: regular files at its top (the spec's file references need a
    file name unique within the problem), not hidden."""
    where = problem.path / ATTACHMENTS
    if not where.is_dir():
        return []
    return sorted(p for p in where.iterdir() if p.is_file() and not p.is_symlink() and not p.name.startswith("."))


def statement_key(problem: Problem) -> str:
    """A hash of what a PDF typeset from the package depends on: problem.yaml (its name) and every file of its
    statement folders. A new package version with the same statement keeps its PDF."""
    h = hashlib.sha256()
    files = [problem.path / "problem.yaml"]
    for folder in problem.format_version.statement_folders:
        root = problem.path / folder
        if root.is_dir():
            files += sorted(p for p in root.rglob("*") if p.is_file())
    for f in files:
        if f.is_file():
            h.update(f.relative_to(problem.path).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()[:16]
