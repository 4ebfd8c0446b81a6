"""A package's programs: its output validator, input validators and static validator, found on disk.

A program is a file or a folder (docs/package-format.md, "Output validators"): a folder's program is its
source file in a language of the table, or, when the folder holds a ``build`` and/or ``run`` script (the
2025-09 format's "Other programs"), those scripts (``script_folder``). Pure: reads folders, runs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from judge.languages.table import Language, is_program_source
from judge.package.errors import PackageError
from judge.package.formats import FormatVersion

BUILD, RUN = "build", "run"  # a program folder's scripts (2025-09)


def script_folder(path: Path) -> Path | None:
    """The folder of a program given as ``build``/``run`` scripts (``path`` is the folder's ``run``), else None."""
    folder = path.parent
    if path.name == RUN and ((folder / RUN).is_file() or (folder / BUILD).is_file()):
        return folder
    return None


def find_program(base: Path, languages: Mapping[str, Language]) -> Path | None:
    """A validator given as a file or a folder (see docs/package-format.md): a folder's program is its source
    file in a language of ``languages`` (one named after the folder, validate, validator or main among several)."""
    if base.is_file():
        return base
    if not base.is_dir():
        return None
    if (base / BUILD).is_file() or (base / RUN).is_file():
        return base / RUN  # built and run by its scripts (it may exist only after `build`)
    sources = sorted(p for p in base.iterdir() if p.is_file() and is_program_source(p, languages))
    if not sources:
        subdirs = [p for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))]
        return find_program(subdirs[0], languages) if len(subdirs) == 1 else None
    if len(sources) == 1:
        return sources[0]
    for stem in (base.name, "validate", "validator", "main"):
        for p in sources:
            if p.stem == stem:
                return p
    # A compiled folder of several source files: the first one stands for the folder.
    return sources[0]


def output_validator(root: Path, version: FormatVersion, languages: Mapping[str, Language]) -> Path | None:
    for folder in version.output_validator_folders:
        base = root / folder
        if not base.exists():
            continue
        if folder == "output_validator":
            found = find_program(base, languages)
        else:
            entries = sorted(e for e in base.iterdir() if not e.name.startswith((".", "__")))
            if not entries:
                continue
            if len(entries) > 1 and not all(e.is_file() for e in entries):
                dirs = [e for e in entries if e.is_dir()]
                if len(dirs) != 1:
                    raise PackageError(f"{base}: expected exactly one output validator, found {len(dirs)}")
                entries = dirs
            found = find_program(entries[0] if len(entries) == 1 else base, languages)
        if found is None:
            raise PackageError(f"{base}: no validator program found (no source file in a language the judge knows)")
        return found
    return None


INPUT_VALIDATOR_FOLDERS = ("input_validators", "input_validator", "input_format_validators")


def program_root(path: Path) -> Path:
    """What a program found at ``path`` is on disk: the file itself (a single file in an input validator
    folder or in the legacy ``output_validators/``), else its folder."""
    return path if path.parent.name in (*INPUT_VALIDATOR_FOLDERS, "output_validators") else path.parent


def program_name(path: Path) -> str:
    """The Kattis name of a package program found at ``path``: a single file's stem, or its folder's name."""
    return path.stem if path.parent.name in INPUT_VALIDATOR_FOLDERS else path.parent.name


def input_validators(root: Path, languages: Mapping[str, Language]) -> tuple[Path, ...]:
    """Every input validator (a file or a folder of the first input validator folder), in any known language."""
    bases = [root / f for f in INPUT_VALIDATOR_FOLDERS if (root / f).is_dir()]
    if not bases:
        return ()
    out: list[Path] = []
    for entry in sorted(e for e in bases[0].iterdir() if not e.name.startswith((".", "__"))):
        found = find_program(entry, languages)
        if found is not None and (is_program_source(found, languages) or script_folder(found) is not None):
            out.append(found)
    return tuple(out)


def static_validator(root: Path, languages: Mapping[str, Language]) -> Path | None:
    """2025-09 ``static_validator/`` (one program, like ``output_validator/``), or None."""
    base = root / "static_validator"
    if not base.is_dir():
        return None
    found = find_program(base, languages)
    if found is None:
        raise PackageError(f"{base}: no program found (no source file in a language the judge knows)")
    return found
