"""Turning a submission (or a package's validator) into a runnable ``Program``.

Compilation runs through the runner, in the sandbox, with its own limits.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from judge.judging.environment import Environment
from judge.judging.verdict import Verdict
from judge.languages.table import (
    MAIN,
    EntryPoint,
    Language,
    Placeholders,
    Toolchain,
    entry_class,
    expand,
    expand_env,
    language_for,
    language_mounts,
    missing_tool,
    trusted_command,
    trusted_language,
)
from judge.package.constants import needs_rendering, render_tree
from judge.package.formats import FormatVersion
from judge.package.includes import add_includes
from judge.package.problem import INPUT_VALIDATOR_FOLDERS, Problem
from judge.package.programs import BUILD, RUN, program_root, script_folder
from judge.runner import Runner
from judge.runner.spec import Limits, Mount, RunSpec, WarmStart

COMPILE_LIMITS = Limits(
    time_s=60.0,
    wall_time_s=120.0,
    memory_kib=2 * 1024 * 1024,
    processes=256,
    output_bytes=1024 * 1024 * 1024,  # a statically initialised 512 MiB array must compile (DOMjudge: 2.5 GB)
    stderr_bytes=256 * 1024,
    open_files=512,
)
MESSAGE_CHARS = 8000


@dataclass(frozen=True)
class Program:
    """Something the judge can run: the files of its box and the command, relative to the box."""

    language: str
    files: Path  # a folder; its contents are copied into every run's fresh box (None for trusted in-place runs)
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    mounts: tuple[Mount, ...] = ()
    processes: int = 1
    open_files: int = 64
    address_space_limit: bool = True
    trusted: bool = False
    stub: bool = False
    entry_point: str = ""  # what a static validator is told: the main file, or the class to run
    format_code: str = ""  # the language's code in the Kattis format (a static validator's first argument)
    # a package's program that may start from a warm interpreter (the language's ``trusted_warm``; runner/warm.py)
    warm: WarmStart | None = None


@dataclass(frozen=True)
class Build:
    program: Program | None
    verdict: Verdict | None  # CE or JE when there is no program
    message: str  # the compiler's output (CE), or why the judge failed (JE)
    language: str = ""

    @property
    def ok(self) -> bool:
        return self.program is not None


class SkipLanguage(Exception):
    """The submission's language is unknown or its toolchain is missing (a reason, not a verdict)."""


class RefusedByProblem(SkipLanguage):
    """The problem's own rules refuse the submission before judging (problem.yaml ``languages``, the 2025-09
    ``code`` limit): not a compile error, a reason, handled where a SkipLanguage is."""


def _read_text(path: Path) -> str:
    if path.is_dir():
        return "\n".join(_read_text(p) for p in sorted(path.iterdir()) if p.is_file())
    return path.read_bytes().decode("utf-8", "replace")


def _saved_name(source: Path, text: str, lang: Language) -> str:
    """The name a single source file gets in the box (see languages.toml: file_name_regex, safe_file_name)."""
    name = source.name
    if lang.file_name_regex:
        m = re.search(lang.file_name_regex, text, re.MULTILINE)
        if m:
            name = m.group(1) + source.suffix
    if lang.safe_file_name:
        name = re.sub(r"[^A-Za-z0-9_.]", "_", name)
    return name


def _main_of(folder: Path, mains: list[str], lang: Language, entry_point: str | None = None) -> str:
    """The main file of a folder submission: the one ``entry_point`` names (2025-09 ``entrypoint``, an
    upload's entry point), else main.* or <folder>.*, else the first matching main_regex."""
    if entry_point:
        named = [m for m in mains if lang.entry_point_names(entry_point, m)]
        if named:
            return named[0]
    preferred = [m for m in mains if Path(m).stem.lower() in ("main", folder.name.lower())]
    if not preferred and len(mains) > 1 and lang.main_regex:
        preferred = [
            m for m in mains if re.search(lang.main_regex, (folder / m).read_text(errors="replace"), re.MULTILINE)
        ]
    return (preferred or mains)[0]


def _stage(
    source: Path, lang: Language, problem: Problem | None, box: Path, entry_point: str | None
) -> tuple[str, bool]:
    """Copy the submission (and the stub, if it is function-style) into the build box. Returns (main, stub?)."""
    box.mkdir(parents=True, exist_ok=True)
    text = _read_text(source)
    stub = problem.stubs.get(lang.id) if problem is not None else None
    if stub is not None and source.is_file() and stub.matches(text):
        for f in sorted(stub.files.iterdir()):
            if f.is_file():
                shutil.copy(f, box / f.name)
        shutil.copy(source, box / stub.submission_name)
        return stub.main, True
    if source.is_dir():
        files = sorted(p for p in source.iterdir() if p.is_file())
        for f in files:
            shutil.copy(f, box / f.name)
        mains = [f.name for f in files if lang.is_source(f)]
        if not mains:
            raise SkipLanguage(f"{source}: no {lang.name} source file")
        return _main_of(source, mains, lang, entry_point), False
    name = _saved_name(source, text, lang)
    shutil.copy(source, box / name)
    return name, False


SAFE_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9+_.-]*")  # DOMjudge's rule (the Kattis format's is stricter)


def _bad_file_name(source: Path) -> str | None:
    """A submitted file whose name a judge refuses (spaces, quotes, backslashes...), or None."""
    names = [source.name] if source.is_file() else [p.name for p in source.iterdir() if p.is_file()]
    return next((n for n in sorted(names) if not SAFE_FILE_NAME.fullmatch(n)), None)


@dataclass(frozen=True)
class _Staged:
    """A submission copied into its build box: its main file, its sources, and what the commands expand."""

    box: Path
    main: str
    sources: tuple[str, ...]
    entry: str  # the class to run (languages that name one), else the main file's stem
    memory_mib: int
    stub: bool


def compile_limits(problem: Problem | None) -> Limits:
    """The compiler's limits: ours, or more where the package's resource guarantees (2025-09
    ``compilation_time``, ``compilation_memory``) ask for more."""
    if problem is None:
        return COMPILE_LIMITS
    time_s = max(COMPILE_LIMITS.time_s, problem.limits.compilation_time_s or 0.0)
    memory_kib = max(COMPILE_LIMITS.memory_kib, problem.limits.compilation_memory_kib or 0)
    wall_s = max(COMPILE_LIMITS.wall_time_s, 2 * time_s)
    return replace(COMPILE_LIMITS, time_s=time_s, wall_time_s=wall_s, memory_kib=memory_kib)


def _include(problem: Problem, lang: Language, box: Path, main: str) -> str:
    """Add the package's include files for ``lang`` to the box (2025-09: its own folder, else default; the
    constants substituted); the main file after that (an included driver may become it)."""
    v2025 = problem.format_version is FormatVersion.V2025_09
    render = problem.constants.substitute_bytes if problem.constants else None
    main, _ = add_includes(problem.path, lang.code, lang.extensions, box, main, replace_default=v2025, render=render)
    return main


def build(
    source: Path,
    lang: Language,
    env: Environment,
    *,
    problem: Problem | None,
    workdir: Path,
    trusted: bool = False,
    entry_point: str | None = None,
) -> Build:
    """Compile ``source`` (a file or a folder) in ``workdir``. Never raises for a bad submission.

    ``entry_point``: the file (or class) to run, when the submission says (a folder's main file)."""
    missing = missing_tool(lang, env.tools)
    if missing is not None:
        raise SkipLanguage(missing)
    box = workdir / "build"
    if box.exists():
        shutil.rmtree(box)
    bad = _bad_file_name(source)
    if bad is not None:
        return Build(None, Verdict.CE, f"file name not allowed: {bad!r} (letters, digits and + _ . - only)", lang.id)
    main, is_stub = _stage(source, lang, problem, box, entry_point)
    if problem is not None and not is_stub and lang.id not in problem.stubs:
        main = _include(problem, lang, box, main)
    entry = entry_class(lang, main, (box / main).read_text(errors="replace") if (box / main).is_file() else "")
    if entry is None:
        return Build(None, Verdict.CE, f"{main}: found no class to run (one with a main method)", lang.id)
    staged = _Staged(
        box=box,
        main=main,
        sources=tuple(sorted(p.name for p in box.iterdir() if lang.is_source(p))),
        entry=entry,
        memory_mib=(problem.limits.memory_kib // 1024) if problem is not None else 2048,
        stub=is_stub,
    )
    compiled = _compile(staged, lang, env, workdir, trusted, compile_limits(problem)) if lang.compiled else ""
    if isinstance(compiled, Build):
        return compiled
    return Build(_program(staged, lang, env.tools, trusted), None, compiled, lang.id)


def _expand(command: tuple[str, ...], staged: _Staged, tools: Toolchain) -> tuple[str, ...]:
    return expand(
        command, main=staged.main, files=staged.sources, tools=tools, memory_mib=staged.memory_mib, entry=staged.entry
    )


def _compile(
    staged: _Staged, lang: Language, env: Environment, workdir: Path, trusted: bool, limits: Limits
) -> Build | str:
    """Run the language's compile command in the box: the compiler's output, or a failed ``Build`` (CE, JE)."""
    log = workdir / "compile.log"  # stderr
    out = workdir / "compile.out"  # stdout (a file of its own: two opens of one file would overwrite)
    result = env.runner.run(
        RunSpec(
            argv=_expand(lang.compile, staged, env.tools),
            box=staged.box,
            limits=limits,
            stdout=out,
            stderr=log,
            env=expand_env(lang.env, env.tools),
            mounts=language_mounts(lang, env.tools),
            trusted=trusted,
            address_space_limit=lang.address_space_limit,
        )
    )
    message = "".join(f.read_text(errors="replace") for f in (log, out) if f.exists())[:MESSAGE_CHARS]
    if result.sandbox_error is not None:
        return Build(None, Verdict.JE, f"compiler could not be run: {result.sandbox_error}", lang.id)
    if result.limit_hit is not None:
        what = str(result.limit_hit).replace("_", " ")
        return Build(None, Verdict.CE, f"compilation stopped: {what} limit\n{message}", lang.id)
    if not result.ok:
        return Build(None, Verdict.CE, message or f"compiler exited with status {result.exit_code}", lang.id)
    return message


def _program(staged: _Staged, lang: Language, tools: Toolchain, trusted: bool) -> Program:
    """The built program: the box as its files, the language's run command."""
    return Program(
        language=lang.id,
        files=staged.box,
        argv=_expand(lang.run, staged, tools),
        env=expand_env(lang.env, tools),
        mounts=language_mounts(lang, tools),
        processes=lang.processes,
        open_files=lang.open_files,
        address_space_limit=lang.address_space_limit,
        trusted=trusted,
        stub=staged.stub,
        entry_point=staged.entry if lang.entry_point is EntryPoint.CLASS else staged.main,
        format_code=lang.code,
    )


def detect_language(source: Path, languages: Mapping[str, Language]) -> Language:
    lang = language_for(source, languages)
    if lang is None:
        what = "folder's files" if source.is_dir() else f"extension {source.suffix or '(none)'!r}"
        raise SkipLanguage(f"{source.name}: unknown language ({what}); known: {', '.join(sorted(languages))}")
    return lang


PROGRAM_MEMORY_MIB = 2048  # {memory_mib} of a package's program (build() assumes as much without a problem)


def package_program(problem: Problem, path: Path, env: Environment, workdir: Path) -> Build:
    """One of ``problem``'s validators, ready to run: ``trusted_program`` of it, or (2025-09) of a copy in
    ``workdir`` with the problem's constants substituted, when it holds any. What runs is what was
    substituted, never the package's own file."""
    if needs_rendering(problem.constants, program_root(path)):
        root = program_root(path)
        copy = render_tree(problem.constants, root, workdir / "rendered" / root.name)
        path = copy / path.relative_to(root) if root.is_dir() else copy
    built = trusted_program(path, env.languages, env.tools, env.runner, workdir)
    if built.program is not None and built.program.warm is not None:  # a new package version, a new warm one
        warm = replace(built.program.warm, key=problem.content_hash)
        return replace(built, program=replace(built.program, warm=warm))
    return built


def _script_program(folder: Path, runner: Runner, workdir: Path) -> Build:
    """A program given as ``build``/``run`` scripts (2025-09 "Other programs"): ``build`` runs in a copy of
    the folder (trusted, with the compiler's limits), then ``run`` there is the program."""
    copy = workdir / "program"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(folder, copy, symlinks=True)
    if (copy / BUILD).is_file():
        log = workdir / "build.log"
        result = runner.run(
            RunSpec(argv=("./" + BUILD,), box=copy, limits=COMPILE_LIMITS, stdout=log, stderr=log, trusted=True)
        )
        if not result.ok:
            tail = log.read_text(errors="replace")[-MESSAGE_CHARS:] if log.is_file() else ""
            why = result.sandbox_error or result.limit_hit or f"exit status {result.exit_code}"
            return Build(None, Verdict.JE, f"{folder.name}/{BUILD} failed ({why}):\n{tail}", "")
    if not (copy / RUN).is_file():
        return Build(None, Verdict.JE, f"{folder.name}: no `{RUN}` script (after `{BUILD}`)", "")
    program = Program("", copy, (str(copy / RUN),), trusted=True, processes=64)
    return Build(program, None, "", "")


def trusted_program(
    path: Path, languages: Mapping[str, Language], tools: Toolchain, runner: Runner, workdir: Path
) -> Build:
    """A package's own program (validator), in any language of the table: a language with ``trusted_run``
    (Python, sh) runs in place; any other is built (trusted) once in ``workdir`` and run from there; a folder
    with ``build``/``run`` scripts is built and run by them.

    Python programs find the project's ``reference`` package on their PYTHONPATH (after their own folder, so a
    ``reference/`` copied in beside them, as ``judge export`` does, wins); see docs/package-format.md.
    """
    scripts = script_folder(path)
    if scripts is not None:
        return _script_program(scripts, runner, workdir)
    in_place = trusted_language(path, languages)
    if in_place is not None:
        argv, env = trusted_command(in_place, path, tools)
        warm = WarmStart(script=in_place.trusted_run.index(MAIN)) if in_place.trusted_warm else None
        program = Program(in_place.id, path.parent, argv, env=env, trusted=True, processes=64, warm=warm)
        return Build(program, None, "", in_place.id)
    lang = language_for(path, languages)
    if lang is None:
        return Build(None, Verdict.JE, f"{path.name}: cannot run a validator written in this language", "")
    folder = path.parent
    is_folder_program = folder.name not in ("output_validators", *INPUT_VALIDATOR_FOLDERS)
    source: Path = folder if is_folder_program else path
    try:
        built = build(source, lang, Environment(runner, languages, tools), problem=None, workdir=workdir, trusted=True)
    except SkipLanguage as exc:
        return Build(None, Verdict.JE, str(exc), lang.id)
    if built.program is None:
        return Build(None, Verdict.JE, f"validator {path.name} does not compile:\n{built.message}", lang.id)
    argv = _run_from_build_folder(built.program, source, lang, tools)
    program = Program(lang.id, built.program.files, argv, env=built.program.env, trusted=True, processes=64)
    return Build(program, None, "", lang.id)


def _run_from_build_folder(program: Program, source: Path, lang: Language, tools: Toolchain) -> tuple[str, ...]:
    """The run command of a built package program for a run whose working directory is not its build folder
    (a validator runs in the test's): the same command, naming the folder's files by their full paths."""
    box = program.files
    sources = tuple(sorted(p.name for p in box.iterdir() if lang.is_source(p)))
    main = _main_of(source, list(sources), lang) if source.is_dir() else sources[0]
    entry = entry_class(lang, main, (box / main).read_text(errors="replace"))  # not None: build() found it
    values = Placeholders(main, sources, tools, PROGRAM_MEMORY_MIB, entry=entry, folder=box)
    return values.expand(lang.run)
