"""Checks across a 2025-09 package that no single file shows (docs/package-format.md).

- every ``{{name}}`` where the spec substitutes constants names one (``check_constants``);
- ``include/<language>/`` only for languages the problem allows (``check_includes``);
- ``require_pass`` names groups that exist and are ``pass-fail`` (``check_require_pass``).

Pure: reads files, runs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from judge.package.constants import STATEMENT_COMMANDS, Constants, check_files, check_latex
from judge.package.errors import PackageError
from judge.package.includes import DEFAULT as DEFAULT_INCLUDE
from judge.package.testgroups import ScoreAggregation, TestGroup


def check_constants(root: Path, constants: Constants, *, statements: Iterable[Path], programs: Iterable[Path]) -> None:
    """The files where the spec substitutes constants (Markdown statements, the input and output validators,
    include/, the example submissions; test_group.yaml is substituted as it is read) name no undefined one;
    nor does a LaTeX statement's ``\\constant{name}``."""
    markdown = [p for p in statements if p.suffix == ".md"]
    check_files(constants, markdown, root, ignore=STATEMENT_COMMANDS)
    check_latex(constants, [p for p in statements if p.suffix == ".tex"], root)
    folders = [root / "include", root / "submissions", *programs]
    check_files(constants, [p for p in folders if p.exists()], root)


def statement_files(root: Path, folders: Iterable[str]) -> list[Path]:
    """Every statement file (every language; Markdown and LaTeX) of the package."""
    out: list[Path] = []
    for folder in folders:
        base = root / folder
        if base.is_dir():
            out.extend(sorted(p for p in base.glob("problem*.*") if p.is_file() and p.suffix in (".md", ".tex")))
    return out


def check_includes(root: Path, allowed: frozenset[str] | None) -> None:
    """``include/<language>/``: the spec says the language is one the problem allows."""
    base = root / "include"
    if allowed is None or not base.is_dir():
        return
    for folder in sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if folder.name != DEFAULT_INCLUDE and folder.name not in allowed:
            codes = ", ".join(sorted(allowed))
            raise PackageError(f"include/{folder.name}/: not a language this problem allows (languages: {codes})")


def check_require_pass(groups: Iterable[TestGroup], *, scoring: bool) -> None:
    """``require_pass``: scoring problems only, naming ``sample`` or a ``pass-fail`` group that exists."""
    by_name = {g.name: g for g in groups}
    for group in by_name.values():
        for other in group.require_pass:
            where = f"data/{group.name}: require_pass"
            if not scoring:
                raise PackageError(f"{where}: a pass-fail problem has no require_pass (the spec)")
            if other == "sample":
                continue
            found = by_name.get(other)
            if found is None:
                raise PackageError(f"{where}: there is no group {other!r}")
            if found.aggregation is not ScoreAggregation.PASS_FAIL:
                raise PackageError(f"{where}: {other!r} must have score_aggregation: pass-fail")
