"""Languages as data: judge/languages/languages.toml -> frozen ``Language`` records and argv builders.

Pure: builds command lines, runs nothing. Toolchain presence is looked up on PATH.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import sysconfig
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from judge.runner.spec import SANDBOX_PATH, Mount

LANGUAGES_FILE = Path(__file__).with_name("languages.toml")
EXE_NAME = "prog"
DETECT_BYTES = 4096  # how much of a file `detect_regex` sees


class LanguageError(Exception):
    """A language file is malformed, or a toolchain is missing. One line, for the organizer."""


class EntryPoint(StrEnum):
    """What a submission's entry point (the Contest API's ``entry_point``) names in a language, if anything."""

    NONE = ""  # the language takes none: the build picks the main file (see main_regex)
    FILE = "file"  # the file to run, e.g. "main.py"
    CLASS = "class"  # the class to run, e.g. "Main" or "zoo.b.Main"; its simple name is its file's stem


MAIN = "{main}"  # the placeholder of trusted_run that is the program's file


@dataclass(frozen=True)
class Language:
    """One table of languages.toml. Everything the judge decides per language is a field here."""

    id: str
    name: str
    extensions: tuple[str, ...]
    run: tuple[str, ...]
    compile: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    packages: tuple[str, ...] = ()
    install_hint: str = ""  # what to tell the organizer when `packages` cannot be had (e.g. not in Debian)
    check: tuple[str, ...] = ()
    processes: int = 1
    open_files: int = 64  # RLIMIT_NOFILE of its runs (R refuses to start below 64 + what it reserves)
    mounts: tuple[str, ...] = ()  # host paths it needs besides /usr, /etc, /bin, /lib* (read-only), if present
    address_space_limit: bool = True
    priority: int = 0  # which language wins when several claim the same files (higher wins)
    # Files with one of these extensions count as this language only if their beginning matches `detect_regex`.
    detect_extensions: tuple[str, ...] = ()
    detect_regex: str = ""
    main_regex: str = ""  # among several source files, the main one is the first whose text matches
    file_name_regex: str = ""  # a single source is saved as <group 1><extension> when its text matches (Java)
    class_regex: str = ""  # {class} is the first matched group of its first match in the main file (none: CE)
    package_regex: str = ""  # ... prefixed by group 1 of this one and a dot, when it matches
    safe_file_name: bool = False  # a single source's name keeps only [A-Za-z0-9_.] (others become "_")
    default_install: bool = False  # `.ci/setup` installs it when no language list is given
    # A package's own program (validator) in this language runs in place with this command, uncompiled, on the
    # judge's machine (placeholders {python} and {main}, the program's full path); empty: it is built first.
    trusted_run: tuple[str, ...] = ()
    trusted_env: Mapping[str, str] = field(default_factory=dict)  # ... with this environment ({package_pythonpath})
    # ... and may start forked from a warm interpreter that has loaded its imports (judge/runner/warm.py: the
    # judge's own CPython): trusted_run is that interpreter, its options, then {main}, then the program's arguments
    trusted_warm: bool = False
    entry_point: EntryPoint = EntryPoint.NONE  # what an uploaded submission's entry point names
    format_code: str = ""  # the Kattis format's code for it, when it is not the id ("" = the id)

    @property
    def code(self) -> str:
        """The language's code in the Kattis format (problem.yaml ``languages``, ``include/<code>/``)."""
        return self.format_code or self.id

    def is_source(self, path: Path) -> bool:
        """A file of this language (by extension alone): it is staged and passed as {files}."""
        return path.suffix.lower() in self.extensions

    def claims(self, path: Path) -> bool:
        """A file that counts as evidence for this language when detecting a submission's language."""
        if not self.is_source(path):
            return False
        if path.suffix.lower() in self.detect_extensions:
            try:
                with path.open("rb") as f:
                    head = f.read(DETECT_BYTES).decode("utf-8", "replace")
            except OSError:
                return False
            return re.search(self.detect_regex, head, re.MULTILINE) is not None
        return True

    @property
    def compiled(self) -> bool:
        """It has a compile (or syntax-check) step before running."""
        return bool(self.compile)

    @property
    def native(self) -> bool:
        """The compile step makes an executable that runs by itself (``./{exe}``)."""
        return bool(self.run) and self.run[0] == "./{exe}"

    @property
    def uses_judge_python(self) -> bool:
        """Its commands run the judge's own interpreter, which must then be mounted in the sandbox."""
        return any("{python}" in arg for argv in (self.compile, self.run, self.check) for arg in argv)

    @property
    def takes_entry_point(self) -> bool:
        """An upload in this language may name its entry point (the file or the class to run)."""
        return self.entry_point is not EntryPoint.NONE

    def entry_point_names(self, entry_point: str, file_name: str) -> bool:
        """Whether ``entry_point`` names the file ``file_name``: its very name, or (a class) its stem is the
        class's simple name (``zoo.b.Main`` names ``Main.java``)."""
        if file_name == entry_point:
            return True
        return self.entry_point is EntryPoint.CLASS and Path(file_name).stem == entry_point.rsplit(".", 1)[-1]

    def default_entry_point(self, main_name: str, text: str) -> str | None:
        """The entry point of an upload that gives none, from its main file: the file's name, or the class
        ``file_name_regex`` finds (else the file's stem); None for a language that takes no entry point."""
        if self.entry_point is EntryPoint.FILE:
            return main_name
        if self.entry_point is EntryPoint.CLASS:
            found = re.search(self.file_name_regex, text, re.MULTILINE) if self.file_name_regex else None
            return found.group(1) if found else Path(main_name).stem
        return None

    @property
    def default_file_name(self) -> str:
        """The name of a source given without one (pasted code): ``main`` with its first extension, ``Main``
        for a language whose entry point is a class (the class a JVM runs is named after its file)."""
        stem = "Main" if self.entry_point is EntryPoint.CLASS else "main"
        return stem + self.extensions[0]

    def tools(self) -> tuple[str, ...]:
        """The programs this language needs on the machine (placeholders and ./{exe} excluded)."""
        out: list[str] = []
        for argv in (self.compile, self.run):
            if argv and "{" not in argv[0] and not argv[0].startswith("./") and argv[0] not in out:
                out.append(argv[0])
        return tuple(out)

    def tool(self) -> str:
        """The main program this language needs (compiler, or interpreter for interpreted ones)."""
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
    # the PYTHONPATH the judge was started with: kept for those programs, after reference_root
    inherited_pythonpath: str = ""

    @property
    def package_pythonpath(self) -> str:
        """The PYTHONPATH of the package's Python programs (see reference_root)."""
        return os.pathsep.join(p for p in (self.reference_root, self.inherited_pythonpath) if p)


_FIELDS = {
    "name",
    "extensions",
    "run",
    "compile",
    "env",
    "packages",
    "install_hint",
    "check",
    "processes",
    "open_files",
    "mounts",
    "address_space_limit",
    "priority",
    "detect_extensions",
    "detect_regex",
    "main_regex",
    "file_name_regex",
    "class_regex",
    "package_regex",
    "safe_file_name",
    "default_install",
    "trusted_run",
    "trusted_env",
    "trusted_warm",
    "entry_point",
    "format_code",
}


def _extensions(values: object) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) and v.startswith(".") for v in values):
        raise ValueError("extensions: a list of strings starting with '.'")
    return tuple(v.lower() for v in values)


def _strings(values: object, what: str) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError(f"{what}: a list of strings")
    return tuple(values)


def _regex(value: object, what: str) -> str:
    text = str(value)
    try:
        re.compile(text)
    except re.error as exc:
        raise ValueError(f"{what}: bad regex: {exc}") from None
    return text


def _string_table(value: object, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{what}: a table of strings")
    return {str(k): v for k, v in value.items()}


def _entry_point(value: object) -> EntryPoint:
    try:
        return EntryPoint(str(value))
    except ValueError:
        raise ValueError(f"entry_point: one of {', '.join(repr(e.value) for e in EntryPoint)}") from None


def _language(lang_id: str, spec: object) -> Language:
    """One table of the file (raises KeyError, TypeError or ValueError naming what is wrong)."""
    if not isinstance(spec, dict):
        raise ValueError("not a table")
    unknown = sorted(set(spec) - _FIELDS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}")
    lang = Language(
        id=lang_id,
        name=str(spec.get("name", lang_id)),
        extensions=_extensions(spec["extensions"]),
        run=_strings(spec["run"], "run"),
        compile=_strings(spec.get("compile", []), "compile"),
        env=_string_table(spec.get("env", {}), "env"),
        packages=_strings(spec.get("packages", []), "packages"),
        install_hint=str(spec.get("install_hint", "")),
        check=_strings(spec.get("check", []), "check"),
        processes=int(spec.get("processes", 1)),
        open_files=int(spec.get("open_files", 64)),
        mounts=_strings(spec.get("mounts", []), "mounts"),
        address_space_limit=bool(spec.get("address_space_limit", True)),
        priority=int(spec.get("priority", 0)),
        detect_extensions=_extensions(spec.get("detect_extensions", [])),
        detect_regex=_regex(spec.get("detect_regex", ""), "detect_regex"),
        main_regex=_regex(spec.get("main_regex", ""), "main_regex"),
        file_name_regex=_regex(spec.get("file_name_regex", ""), "file_name_regex"),
        class_regex=_regex(spec.get("class_regex", ""), "class_regex"),
        package_regex=_regex(spec.get("package_regex", ""), "package_regex"),
        safe_file_name=bool(spec.get("safe_file_name", False)),
        default_install=bool(spec.get("default_install", False)),
        trusted_run=_strings(spec.get("trusted_run", []), "trusted_run"),
        trusted_env=_string_table(spec.get("trusted_env", {}), "trusted_env"),
        trusted_warm=bool(spec.get("trusted_warm", False)),
        entry_point=_entry_point(spec.get("entry_point", "")),
        format_code=str(spec.get("format_code", "")),
    )
    if not lang.run:
        raise ValueError("run: empty")
    if lang.detect_extensions and not lang.detect_regex:
        raise ValueError("detect_extensions needs detect_regex")
    if lang.trusted_env and not lang.trusted_run:
        raise ValueError("trusted_env needs trusted_run")
    if lang.trusted_warm and MAIN not in lang.trusted_run[1:]:
        raise ValueError("trusted_warm needs trusted_run = [interpreter, options..., '{main}']")
    return lang


def load_languages(path: Path = LANGUAGES_FILE) -> dict[str, Language]:
    """The language table of ``path`` (the judge's own by default), by id. Raises LanguageError (one line)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LanguageError(f"{path}: {exc}") from None
    out: dict[str, Language] = {}
    for lang_id, spec in raw.items():
        try:
            out[lang_id] = _language(lang_id, spec)
        except (KeyError, TypeError, ValueError) as exc:
            raise LanguageError(f"{path} [{lang_id}]: missing or bad field {exc}") from None
    priorities = [lang.priority for lang in out.values()]
    if len(set(priorities)) != len(priorities):
        raise LanguageError(f"{path}: two languages have the same priority (ties would be decided by order)")
    trusted = [ext for lang in out.values() if lang.trusted_run for ext in lang.extensions]
    if len(set(trusted)) != len(trusted):
        raise LanguageError(f"{path}: two languages with trusted_run share an extension (which would run a program?)")
    return out


def is_program_source(path: Path, languages: Mapping[str, Language]) -> bool:
    """A file with an extension of one of ``languages`` (matched case-insensitively, as ``Language.is_source``)."""
    return any(lang.is_source(path) for lang in languages.values())


def trusted_language(path: Path, languages: Mapping[str, Language]) -> Language | None:
    """The language whose ``trusted_run`` runs the package program ``path`` in place (by its extension alone: a
    ``#!`` line choosing another interpreter does not matter here), or None when the program is built first."""
    return next((lang for lang in languages.values() if lang.trusted_run and lang.is_source(path)), None)


def package_program_language(path: Path, languages: Mapping[str, Language]) -> Language | None:
    """The language a package's program (validator) at ``path`` is run as: its trusted one, else the language
    its files count for (see ``language_for``); None when the table knows none."""
    return trusted_language(path, languages) or language_for(path, languages)


def trusted_command(lang: Language, program: Path, tools: Toolchain) -> tuple[tuple[str, ...], dict[str, str]]:
    """The command and environment that run ``program`` (a file) in place with ``lang``'s ``trusted_run``.

    An environment value that comes out empty is not set (the judge's own value, if any, stays)."""
    argv = tuple(arg.format(python=tools.python, main=str(program)) for arg in lang.trusted_run)
    env = {k: v.format(package_pythonpath=tools.package_pythonpath) for k, v in lang.trusted_env.items()}
    return argv, {k: v for k, v in env.items() if v}


def language_for(path: Path, languages: Mapping[str, Language]) -> Language | None:
    """The language of a source file, or of a folder: the one most of its files count for (see ``claims``);
    a tie goes to the higher ``priority`` (as in Kattis' problemtools)."""
    files = sorted(f for f in path.iterdir() if f.is_file()) if path.is_dir() else [path]
    best: tuple[int, int] | None = None
    found: Language | None = None
    for lang in languages.values():
        count = sum(1 for f in files if lang.claims(f))
        if count and (best is None or (count, lang.priority) > best):
            best, found = (count, lang.priority), lang
    return found


def toolchain(inherited_pythonpath: str = "") -> Toolchain:
    """The judge's own Python, and what must be mounted for it to run inside the sandbox.

    ``inherited_pythonpath``: the PYTHONPATH the judge was started with (the command layer passes it), which
    the package's Python programs keep."""
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
        inherited_pythonpath=inherited_pythonpath,
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


def language_mounts(lang: Language, tools: Toolchain) -> tuple[Mount, ...]:
    """What a language's compile and run steps see besides the sandbox's system directories."""
    own = tuple(Mount(Path(m)) for m in lang.mounts if Path(m).exists())
    return (tools.python_mounts if lang.uses_judge_python else ()) + own


def missing_tool(lang: Language, tools: Toolchain) -> str | None:
    """None if the toolchain is present where submissions run; else a one-line message naming what to install.

    Tools are looked up on the sandbox's PATH (a compiler in, say, ~/.cargo/bin is not visible there)."""
    if lang.uses_judge_python and not Path(tools.python).exists():
        return "the judge's Python interpreter is missing"
    tool = missing_program(lang)
    if tool is not None:
        return f"{lang.name}: `{tool}` not found on {SANDBOX_PATH}; {install_advice(lang)}"
    return None


def missing_program(lang: Language) -> str | None:
    """The first of the language's programs that the sandbox would not find, if any."""
    for tool in lang.tools():
        if shutil.which(tool, path=SANDBOX_PATH) is None:
            return tool
    return None


def install_advice(lang: Language) -> str:
    """How to get the toolchain: the Debian packages (as `.ci/setup --languages` installs them), or a hint."""
    if lang.install_hint:
        return lang.install_hint
    return f"install it (Debian: apt-get install {' '.join(lang.packages) or lang.tool()})"


def entry_class(lang: Language, main: str, text: str) -> str | None:
    """What {class} is for this main file: its stem, or what class_regex / package_regex find (None: nothing)."""
    if not lang.class_regex:
        return Path(main).stem
    found = re.search(lang.class_regex, text, re.MULTILINE)
    if found is None:
        return None
    package = re.search(lang.package_regex, text, re.MULTILINE) if lang.package_regex else None
    name = next((g for g in found.groups() if g), found.group(0))  # the first group that took part
    return f"{package.group(1)}.{name}" if package else name


def expand_env(env: Mapping[str, str], tools: Toolchain) -> dict[str, str]:
    """Fill the placeholders of environment values (only {python_site} and {python})."""
    return {k: v.replace("{python_site}", tools.python_site).replace("{python}", tools.python) for k, v in env.items()}


@dataclass(frozen=True)
class Placeholders:
    """The values of a command's placeholders (see languages.toml) for one program."""

    main: str  # {main}: the main source file, relative to the box
    files: tuple[str, ...]  # {files}: the program's source files, relative to the box
    tools: Toolchain
    memory_mib: int
    entry: str | None = None  # {class} (default: main's stem)
    # Where the box's files are when the command does not run in the box (a package's program runs elsewhere):
    # {main}, {files} and {exe} are then paths in it (``./{exe}`` too), and {dir} is it (else ".").
    folder: Path | None = None

    def expand(self, argv: tuple[str, ...]) -> tuple[str, ...]:
        """``argv`` with its placeholders filled."""
        where = "" if self.folder is None else f"{self.folder}/"
        values = {
            "python_site": self.tools.python_site,
            "main": where + self.main,
            "exe": where + EXE_NAME,
            "dir": "." if self.folder is None else str(self.folder),
            "class": self.entry or Path(self.main).stem,
            "python": self.tools.python,
            "memory_mib": str(self.memory_mib),
            "heap_mib": str(max(16, self.memory_mib * 3 // 4)),
        }
        out: list[str] = []
        for arg in argv:
            if arg == "{files}":
                out.extend(where + f for f in self.files)
            elif self.folder is not None and arg.startswith("./{"):
                out.append(arg[2:].format(**values))
            else:
                out.append(arg.format(**values))
        return tuple(out)


def expand(
    argv: tuple[str, ...],
    *,
    main: str,
    files: tuple[str, ...],
    tools: Toolchain,
    memory_mib: int,
    entry: str | None = None,
) -> tuple[str, ...]:
    """Fill the placeholders of a command run in its box (see ``Placeholders``)."""
    return Placeholders(main=main, files=files, tools=tools, memory_mib=memory_mib, entry=entry).expand(argv)


def select_languages(selection: str, languages: Mapping[str, Language]) -> list[Language]:
    """The languages `.ci/setup --languages SELECTION` means: "" (those with default_install), "all",
    "none", or ids separated by commas (unknown ids are a LanguageError naming the known ones)."""
    text = selection.strip().lower()
    if text == "":
        return [lang for lang in languages.values() if lang.default_install]
    if text == "all":
        return list(languages.values())
    if text == "none":
        return []
    wanted = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in languages]
    if unknown:
        raise LanguageError(f"unknown language(s) {', '.join(unknown)}; known: {', '.join(sorted(languages))}")
    defaults = [lang for lang in languages.values() if lang.default_install]
    return defaults + [languages[w] for w in wanted if not languages[w].default_install]


def setup_plan(selection: str, languages: Mapping[str, Language]) -> tuple[list[str], list[str]]:
    """For `.ci/setup`: the Debian packages to install for the selected languages whose tools are not on
    the sandbox's PATH, and one line per selected language that Debian cannot provide."""
    packages: list[str] = []
    notes: list[str] = []
    for lang in select_languages(selection, languages):
        if all(shutil.which(tool, path=SANDBOX_PATH) for tool in lang.tools() + lang.check[:1] if "{" not in tool):
            continue
        if not lang.packages:
            notes.append(f"{lang.name}: {lang.install_hint or 'no Debian package known'}")
        packages += [p for p in lang.packages if p not in packages]
    return packages, notes
