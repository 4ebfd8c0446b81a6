"""Languages as data: judge/languages.toml -> frozen ``Language`` records and argv builders.

Pure: builds command lines, runs nothing. Toolchain presence is looked up on PATH.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from judge.model import Mount

LANGUAGES_FILE = Path(__file__).with_name("languages.toml")
EXE_NAME = "prog"


class LanguageError(Exception):
    """A language file is malformed, or a toolchain is missing. One line, for the organizer."""


@dataclass(frozen=True)
class Language:
    id: str
    name: str
    extensions: tuple[str, ...]
    run: tuple[str, ...]
    compile: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    packages: tuple[str, ...] = ()
    check: tuple[str, ...] = ()
    processes: int = 1
    address_space_limit: bool = True
    exclude_shebang: str = ""  # a file whose #! line contains this is not in this language

    def claims(self, path: Path) -> bool:
        if path.suffix.lower() not in self.extensions:
            return False
        if self.exclude_shebang:
            try:
                with path.open("rb") as f:
                    first = f.readline(200)
            except OSError:
                return True
            if first.startswith(b"#!") and self.exclude_shebang.encode() in first:
                return False
        return True

    @property
    def compiled(self) -> bool:
        return bool(self.compile)

    def tool(self) -> str:
        """The program this language needs on the host (compiler, or interpreter for interpreted ones)."""
        argv = self.compile or self.run
        return argv[0]


@dataclass(frozen=True)
class Toolchain:
    """Where the language's tools are on this machine."""

    python: str  # the judge's own interpreter (real path)
    python_mounts: tuple[Mount, ...]
    python_site: str = ""  # its site-packages (numpy), for PYTHONPATH under `python -S`
    # the folder holding the project's `reference` package: on the PYTHONPATH of the package's Python programs
    # (validators, interactors), so that `from reference import x` works in every package ("" = not found)
    reference_root: str = ""


def load_languages(path: Path = LANGUAGES_FILE) -> dict[str, Language]:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LanguageError(f"{path}: {exc}") from None
    out: dict[str, Language] = {}
    for lang_id, spec in raw.items():
        try:
            out[lang_id] = Language(
                id=lang_id,
                name=str(spec.get("name", lang_id)),
                extensions=tuple(spec["extensions"]),
                run=tuple(spec["run"]),
                compile=tuple(spec.get("compile", ())),
                env=dict(spec.get("env", {})),
                packages=tuple(spec.get("packages", ())),
                check=tuple(spec.get("check", ())),
                processes=int(spec.get("processes", 1)),
                address_space_limit=bool(spec.get("address_space_limit", True)),
                exclude_shebang=str(spec.get("exclude_shebang", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LanguageError(f"{path} [{lang_id}]: missing or bad field {exc}") from None
    return out


def language_for(path: Path, languages: Mapping[str, Language]) -> Language | None:
    """The language of a source file (by extension) or of a folder (by the extensions of its files)."""
    if path.is_dir():
        found = {
            lang.id
            for f in path.iterdir()
            if f.is_file()
            for lang in languages.values()
            if f.suffix.lower() in lang.extensions
        }
        if len(found) == 1:
            return languages[found.pop()]
        if "cpp" in found and found <= {"c", "cpp"}:
            return languages["cpp"]
        return None
    for lang in languages.values():
        if lang.claims(path):
            return lang
    return None


def toolchain() -> Toolchain:
    """The judge's own Python, and what must be mounted for it to run inside the sandbox."""
    exe = Path(sys.executable).resolve()
    mounts: list[Mount] = []
    for prefix in {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}:
        if not str(prefix).startswith(("/usr/", "/bin", "/lib")) and str(prefix) != "/usr":
            mounts.append(Mount(prefix))
    paths = sysconfig.get_paths()
    candidates = [paths["purelib"], paths["platlib"]]
    candidates += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]  # venv + system site
    site = os.pathsep.join(dict.fromkeys(str(Path(c).resolve()) for c in candidates if Path(c).is_dir()))
    return Toolchain(
        python=str(exe),
        python_mounts=tuple(sorted(mounts, key=lambda m: str(m.source))),
        python_site=site,
        reference_root=reference_root(),
    )


def reference_root(package: str = "reference") -> str:
    """The folder that makes ``import reference`` find the same package the judge itself would import."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.submodule_search_locations:
        return ""
    return str(Path(next(iter(spec.submodule_search_locations))).resolve().parent)


def missing_tool(lang: Language, tools: Toolchain) -> str | None:
    """None if the toolchain is present; else a one-line message naming what to install."""
    tool = lang.tool()
    if tool == "{python}":
        return None if Path(tools.python).exists() else "the judge's Python interpreter is missing"
    if shutil.which(tool) is None:
        pkgs = " ".join(lang.packages) or tool
        return f"{lang.name}: `{tool}` not found; install it (Debian: apt-get install {pkgs})"
    if lang.compiled and lang.run[0] not in ("./{exe}",) and shutil.which(lang.run[0]) is None:
        return f"{lang.name}: `{lang.run[0]}` not found; install it (Debian: apt-get install {' '.join(lang.packages)})"
    return None


def expand_env(env: Mapping[str, str], tools: Toolchain) -> dict[str, str]:
    """Fill the placeholders of environment values (only {python_site} and {python})."""
    return {k: v.replace("{python_site}", tools.python_site).replace("{python}", tools.python) for k, v in env.items()}


def expand(
    argv: tuple[str, ...],
    *,
    main: str,
    files: tuple[str, ...],
    tools: Toolchain,
    memory_mib: int,
) -> tuple[str, ...]:
    """Fill the placeholders of a command (see languages.toml)."""
    values = {
        "python_site": tools.python_site,
        "main": main,
        "exe": EXE_NAME,
        "class": Path(main).stem,
        "python": tools.python,
        "memory_mib": str(memory_mib),
        "heap_mib": str(max(16, memory_mib * 3 // 4)),
    }
    out: list[str] = []
    for arg in argv:
        if arg == "{files}":
            out.extend(files)
        else:
            out.append(arg.format(**values))
    return tuple(out)
