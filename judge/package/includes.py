"""The package's ``include/`` files, added to every submission of a language (Kattis format).

``include/default/`` (2023-07 and later) goes to every language, then ``include/<language>/`` on top
(``<language>`` is the language's id in languages.toml, which follows the format's language codes);
included files overwrite the submission's own files of the same name. An included source file named
``main.*`` (any case; for Python also ``__main__.py``) becomes the program's main file: a driver that
calls the contestant's code. A language that has one of our function-style stubs (``judge: stubs:``)
uses its include folder for the stub only, when the stub's pattern matches (docs/package-format.md).
"""

from __future__ import annotations

import shutil
from pathlib import Path

DEFAULT = "default"


def include_files(problem_path: Path, language: str) -> list[tuple[Path, Path]]:
    """(relative path, file) of what is added for ``language``, later entries overwriting earlier ones."""
    out: dict[Path, Path] = {}
    for folder in (DEFAULT, language):
        base = problem_path / "include" / folder
        if not base.is_dir():
            continue
        for f in sorted(base.rglob("*")):
            if f.is_file() and not any(part.startswith(".") for part in f.relative_to(base).parts):
                out[f.relative_to(base)] = f
    return list(out.items())


def is_main_name(name: str, extensions: tuple[str, ...]) -> bool:
    stem, dot, ext = name.rpartition(".")
    if not dot or f".{ext.lower()}" not in extensions:
        return False
    return stem.lower() in ("main", "__main__")


def add_includes(
    problem_path: Path, language: str, extensions: tuple[str, ...], box: Path, main: str
) -> tuple[str, list[str]]:
    """Copy the include files into the build box. Returns (the main file, the included names)."""
    added: list[str] = []
    for rel, f in include_files(problem_path, language):
        dest = box / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_dir():
            shutil.rmtree(dest)
        shutil.copy(f, dest)
        added.append(rel.as_posix())
    drivers = [name for name in added if "/" not in name and is_main_name(name, extensions)]
    if drivers:
        main = sorted(drivers, key=lambda n: (not n.lower().startswith("main."), n))[0]
    return main, added
