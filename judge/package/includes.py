"""The package's ``include/`` files, added to every submission of a language (Kattis format).

``<language>`` is the language's code in the format (languages.toml's id, or its ``format_code``).
Legacy and 2023-07 packages (as problemtools reads them): ``include/default/`` goes to every language, then
``include/<language>/`` on top. 2025-09, as its spec says ("files ... copied from a language directory",
"overriding the default"): ``include/<language>/`` when the package has one, else ``include/default/``.
Included files overwrite the submission's own files of the same name (2025-09: with the constants
substituted). An included source file named
``main.*`` (any case; for Python also ``__main__.py``) becomes the program's main file: a driver that
calls the contestant's code. A language that has one of our function-style stubs (``judge: stubs:``)
uses its include folder for the stub only, when the stub's pattern matches (docs/package-format.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

DEFAULT = "default"
Render = Callable[[bytes, str], bytes]  # (data, where) -> data: 2025-09 constants in included files


def include_folders(problem_path: Path, language: str, *, replace_default: bool = False) -> tuple[str, ...]:
    """The folders of ``include/`` that ``language`` gets, in the order they are copied (``replace_default``:
    2025-09, the language's own folder instead of ``default``)."""
    if replace_default and (problem_path / "include" / language).is_dir():
        return (language,)
    return (DEFAULT, language)


def include_files(problem_path: Path, language: str, *, replace_default: bool = False) -> list[tuple[Path, Path]]:
    """(relative path, file) of what is added for ``language``, later entries overwriting earlier ones."""
    out: dict[Path, Path] = {}
    for folder in include_folders(problem_path, language, replace_default=replace_default):
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
    problem_path: Path,
    language: str,
    extensions: tuple[str, ...],
    box: Path,
    main: str,
    *,
    replace_default: bool = False,
    render: Render | None = None,
) -> tuple[str, list[str]]:
    """Copy the include files into the build box (``render``: applied to each file's bytes). Returns (the
    main file, the included names)."""
    added: list[str] = []
    for rel, f in include_files(problem_path, language, replace_default=replace_default):
        dest = box / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_dir():
            shutil.rmtree(dest)
        if render is None:
            shutil.copy(f, dest)
        else:
            dest.write_bytes(render(f.read_bytes(), f"include/{f.relative_to(problem_path / 'include')}"))
            shutil.copymode(f, dest)
        added.append(rel.as_posix())
    drivers = [name for name in added if "/" not in name and is_main_name(name, extensions)]
    if drivers:
        main = sorted(drivers, key=lambda n: (not n.lower().startswith("main."), n))[0]
    return main, added
