"""The code every contestant of a problem was given, which a match in it proves nothing about: the package's
``include/`` files (Kattis: added to every submission of a language), our function-style stubs (``judge:
stubs:``, docs/package-format.md), its ``attachments/`` (files handed to contestants) and the code blocks of
its statement (a skeleton or an example program shown to everyone). Each is used for the sources of its
own language; a statement's code block, whose language is often unsaid, for every language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judge.package.problem import Problem
from judge.similarity.fingerprint import Ints, Params, boilerplate_hashes, lexer_for

MAX_FILE_BYTES = 1024 * 1024
FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
INDENTED = re.compile(r"(?:^(?: {4}|\t)[^\n]*\n?)+", re.MULTILINE)


@dataclass(frozen=True)
class Given:
    """One piece of boilerplate: where it comes from, its text, and its language (None: any)."""

    name: str  # relative to the package
    text: str
    language: str | None


def _text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _files(root: Path, folder: Path) -> list[Given]:
    out: list[Given] = []
    if not folder.is_dir():
        return out
    for f in sorted(folder.rglob("*")):
        if not f.is_file() or any(part.startswith(".") for part in f.relative_to(folder).parts):
            continue
        text = _text(f)
        if text is None:
            continue
        lexer = lexer_for(f.name, text)
        if lexer is not None:
            out.append(Given(f.relative_to(root).as_posix(), text, str(lexer.name)))
    return out


def statement_code(markdown: str) -> list[str]:
    """The code blocks of a Markdown statement: fenced ones, and indented ones outside them."""
    fenced = [m.group(2) for m in FENCE.finditer(markdown)]
    rest = FENCE.sub("", markdown)
    indented = [m.group(0) for m in INDENTED.finditer(rest) if len(m.group(0).strip()) >= 20]
    return [b for b in fenced + indented if b.strip()]


def given_code(problem: Problem) -> list[Given]:
    """Everything contestants of ``problem`` were given (see the module's docstring)."""
    root = problem.path
    out = _files(root, root / "include")
    for stub in problem.stubs.values():
        if stub.files.resolve() != (root / "include").resolve() and root / "include" not in stub.files.parents:
            out.extend(_files(root, stub.files))
    out.extend(_files(root, root / "attachments"))
    statement_dir = problem.statement.parent if problem.statement is not None else root / "statement"
    if statement_dir.is_dir():
        for md in sorted(statement_dir.glob("*.md")):
            text = _text(md)
            if text is None:
                continue
            for n, block in enumerate(statement_code(text), 1):
                out.append(Given(f"{md.relative_to(root).as_posix()} (code block {n})", block, None))
    seen: set[str] = set()
    unique = []
    for g in out:
        if g.name not in seen:
            seen.add(g.name)
            unique.append(g)
    return unique


def hashes_for(given: list[Given], params: Params) -> Callable[[str], Ints]:
    """language -> the sorted hashes of the boilerplate of that language (and of any language)."""
    cache: dict[str, Ints] = {}

    def of(language: str) -> Ints:
        if language not in cache:
            texts = [g.text for g in given if g.language in (None, language)]
            cache[language] = boilerplate_hashes(texts, language, params) if texts else np.zeros(0, dtype=np.int64)
        return cache[language]

    return of
