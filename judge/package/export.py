"""`judge export PROBLEM_DIR OUT [--zip]`: a self-contained Kattis package.

The package is copied as it is, except that:

- every module of the project (``reference``) that one of its programs imports, transitively, is copied in
  beside that program (``output_validator/reference/coins.py``), so the same ``from reference import x``
  works on a judge that has never seen this project; a single-file program that needs such modules becomes
  a folder (``input_validators/validate.py`` -> ``input_validators/validate/main.py``), and a folder
  program's entry file is named ``main.py``, the name Kattis' problemtools runs when a folder holds
  several Python files;
- our extensions stay in ``judge.yaml`` (an older package's ``judge:`` key in problem.yaml moves there);
- submissions listed under ``export: leave_out:`` in judge.yaml (those whose verdict needs our sandbox) and
  ``fuzz.py`` (fuzzing hooks run inside this judge) are left out; caches (``__pycache__``) too.

See docs/package-format.md, "Exporting a package".
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from judge.languages.table import Language, is_program_source, language_for, load_languages
from judge.package.deps import ExternalModule, external_modules, is_python_module, python_sources
from judge.package.extensions import JUDGE_YAML, AnswerMode, InputMode
from judge.package.problem import INPUT_VALIDATOR_FOLDERS, Problem, find_program, load_problem
from judge.package.testgroups import PackageError

SKIPPED_NAMES = ("__pycache__", ".hypothesis", ".pytest_cache", ".judge-cache", ".ruff_cache")
SKIPPED_ROOT = ("fuzz.py",)
ENTRY = "main.py"


class ExportError(Exception):
    """The export cannot be written (one line, for the user)."""


@dataclass(frozen=True)
class Unit:
    """A program of the package, as the export treats it: where it lives and its Python sources."""

    path: PurePosixPath  # relative to the package root: a file (single-file program) or a folder
    kind: str  # "output validator", "input validator", "stub", "generators"
    runnable: bool  # Kattis tools run it (validators): its entry file must be findable


@dataclass
class ExportReport:
    out: Path
    copied: dict[str, list[str]] = field(default_factory=dict)  # program -> modules copied in beside it
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (old, new) paths in the export
    left_out: dict[str, str] = field(default_factory=dict)  # path -> reason
    third_party: dict[str, str] = field(default_factory=dict)  # module -> version (the other judge needs it)
    notes: list[str] = field(default_factory=list)
    # submissions (path under submissions/) whose expected verdict needs our extensions -> which ones
    needs_extensions: dict[str, str] = field(default_factory=dict)


# What Kattis' problemtools (1.20260907) checks: the folders of its LegacyPolicy.
KATTIS_FOLDERS = ("accepted", "partially_accepted", "wrong_answer", "time_limit_exceeded", "run_time_error")


def needs_extension(problem: Problem, submission: Path, languages: Mapping[str, Language]) -> str | None:
    """Why ``submission`` (a file or folder in submissions/<folder>/) gets its folder's verdict only from a
    judge that reads our extensions, or None when any Kattis judge should give it."""
    why: list[str] = []
    folder = submission.parent.name
    if folder not in KATTIS_FOLDERS:
        why.append(f"its folder {folder}/ is ours (Kattis tools know {', '.join(KATTIS_FOLDERS)})")
    if problem.input_mode is not InputMode.STDIN:
        why.append("the input is given as command-line arguments (input: args)")
    if problem.answer_mode is not AnswerMode.STDOUT:
        why.append("the answer is the exit status (answer: exit_code)")
    lang = language_for(submission, languages)
    stub = problem.stubs.get(lang.id) if lang is not None else None
    if stub is not None and submission.is_file() and stub.matches(submission.read_bytes().decode("utf-8", "replace")):
        why.append(f"it is a function-style submission (stubs: {stub.language})")
    return "; ".join(why) or None


def _ignore(root: Path, leave_out: Iterable[str]) -> Callable[[str, list[str]], list[str]]:
    skipped = {(root / "submissions" / p).resolve() for p in leave_out}

    def ignore(folder: str, names: list[str]) -> list[str]:
        here = Path(folder).resolve()
        out = [n for n in names if n in SKIPPED_NAMES or n.endswith(".pyc") or (here / n) in skipped]
        if here == root.resolve():
            out += [n for n in names if n in SKIPPED_ROOT]
        return out

    return ignore


def units(problem: Problem, languages: Mapping[str, Language]) -> list[Unit]:
    """The package's programs that may import modules from outside it (``languages``: the table whose source
    files make ``output_validator/`` one program)."""
    root = problem.path
    found: list[Unit] = []
    holders = [("output_validators", "output validator")] + [(f, "input validator") for f in INPUT_VALIDATOR_FOLDERS]
    single = root / "output_validator"
    if single.is_dir() and any(p.is_file() and is_program_source(p, languages) for p in single.iterdir()):
        found.append(Unit(PurePosixPath("output_validator"), "output validator", True))  # 2025-09: the program
    elif single.is_dir():
        holders.insert(0, ("output_validator", "output validator"))  # 2023-07 as problemtools reads it
    for folder, kind in holders:
        if not (root / folder).is_dir():
            continue
        for entry in sorted((root / folder).iterdir()):
            if entry.name in SKIPPED_NAMES or entry.name.startswith("."):
                continue
            if entry.is_dir() or is_python_module(entry):
                found.append(Unit(PurePosixPath(folder, entry.name), kind, True))
    stub_dirs = {s.files for s in problem.stubs.values()}
    if (root / "include").is_dir():  # Kattis' included files: copied in beside every submission
        stub_dirs |= {p for p in (root / "include").iterdir() if p.is_dir()}
    for d in sorted(stub_dirs):
        if d.is_dir():
            found.append(Unit(PurePosixPath(d.relative_to(root).as_posix()), "stub", False))
    if (root / "generators").is_dir():
        found.append(Unit(PurePosixPath("generators"), "generators", False))
    return found


def _sources(path: Path) -> list[Path]:
    return python_sources(path, SKIPPED_NAMES)


def _module_file(module: ExternalModule) -> PurePosixPath:
    """Where a module goes, relative to the folder of the program that imports it."""
    assert module.path is not None
    parts = module.name.split(".")
    if module.is_package:
        return PurePosixPath(*parts, "__init__.py")
    return PurePosixPath(*parts[:-1], parts[-1] + module.path.suffix)


def _entry(folder: Path, languages: Mapping[str, Language]) -> Path | None:
    """The entry of a Python folder program, as this judge picks it."""
    found = find_program(folder, languages)
    return found if found is not None and is_python_module(found) else None


def _place(unit: Unit, out: Path, report: ExportReport, languages: Mapping[str, Language]) -> Path:
    """The unit's folder in the export (a single-file program becomes a folder with its file as main.py)."""
    target = out / unit.path
    if target.is_dir():
        if unit.runnable:
            entry = _entry(target, languages)
            if entry is not None and entry.name != ENTRY:
                if (target / ENTRY).exists():
                    raise ExportError(f"{unit.path}: both {entry.name} and {ENTRY}: cannot tell which one runs")
                entry.rename(target / ENTRY)
                report.renamed.append((f"{unit.path}/{entry.name}", f"{unit.path}/{ENTRY}"))
        return target
    folder = target.with_suffix("")
    if folder.exists():
        raise ExportError(f"{unit.path}: cannot make it a folder, {folder.relative_to(out)} exists")
    folder.mkdir()
    target.rename(folder / ENTRY)
    report.renamed.append((str(unit.path), f"{folder.relative_to(out).as_posix()}/{ENTRY}"))
    return folder


def _move_extensions(out: Path, report: ExportReport) -> None:
    """An older package's `judge:` key of problem.yaml becomes judge.yaml (Kattis tools reject the key)."""
    path = out / "problem.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith("judge:")), None)
    if start is None:
        return
    end = start + 1  # the block: indented, blank or comment lines up to the next top-level key
    while end < len(lines) and (lines[end][:1] in (" ", "\t", "#") or not lines[end].strip()):
        end += 1
    value = yaml.safe_load("".join(lines[start:end]))["judge"] or {}
    (out / JUDGE_YAML).write_text(
        "# Our extensions of the Kattis format (see docs/package-format.md); moved from problem.yaml by judge export\n"
        + yaml.safe_dump(value, sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    path.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")
    report.notes.append("moved the `judge:` key of problem.yaml to judge.yaml")


def export_package(problem_dir: Path, out: Path, *, as_zip: bool = False, force: bool = False) -> ExportReport:
    """Write the export of ``problem_dir`` to ``out`` (a folder, or a zip file with ``as_zip``)."""
    languages = load_languages()
    problem = load_problem(problem_dir, languages=languages)
    root = problem.path
    if out.resolve() == root or root in out.resolve().parents or out.resolve() in root.parents:
        raise ExportError(f"{out} is the package, inside it or above it")
    if out.exists() and not (out.is_dir() and not any(out.iterdir())):
        if not force:
            raise ExportError(f"{out} exists (pass --force to replace it)")
        if out.is_dir():
            shutil.rmtree(out)
        else:
            out.unlink()
    if as_zip:
        with tempfile.TemporaryDirectory(prefix="judge-export-") as tmp:
            folder = Path(tmp) / problem.id
            report = _export_folder(problem, folder, languages)
            _zip(folder, out)
            report.out = out
            return report
    return _export_folder(problem, out, languages)


def _export_folder(problem: Problem, out: Path, languages: Mapping[str, Language]) -> ExportReport:
    root = problem.path
    leave_out = dict(problem.extensions.export_leave_out)
    report = ExportReport(out)
    copied: set[Path] = set()
    for rel, reason in sorted(leave_out.items()):
        if (root / "submissions" / rel).exists():
            report.left_out[f"submissions/{rel}"] = reason
        else:
            report.notes.append(f"export.leave_out: submissions/{rel} does not exist")
    shutil.copytree(root, out, ignore=_ignore(root, leave_out), dirs_exist_ok=True, symlinks=True)
    for folder in sorted((out / "submissions").glob("*"), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # every submission in it was left out
    if problem.extensions.source.startswith("problem.yaml"):
        _move_extensions(out, report)
    for unit in units(problem, languages):
        modules = external_modules(_sources(root / unit.path), root)
        local = [m for m in modules if m.kind == "local" and m.path is not None]
        for m in modules:
            if m.kind == "third-party":
                report.third_party[m.name] = m.version
        if not local:
            continue
        folder = _place(unit, out, report, languages)
        for m in local:
            assert m.path is not None
            dest = folder / _module_file(m)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(m.path, dest)
            copied.add(dest)
        report.copied[str(unit.path)] = [m.name for m in local]
    _check(out, copied, languages)
    for folder in sorted(p for p in (out / "submissions").glob("*") if p.is_dir()):
        for sub in sorted(folder.iterdir()):
            if sub.name.startswith(".") or sub.name in ("README.md", "submissions.yaml"):
                continue
            why = needs_extension(problem, sub, languages)
            if why is not None:
                report.needs_extensions[f"{folder.name}/{sub.name}"] = why
    return report


def _check(out: Path, copied: set[Path], languages: Mapping[str, Language]) -> None:
    """The export loads and none of its programs needs a module from outside it (the modules copied in are
    modules, not programs: their own imports were followed when they were picked)."""
    try:
        exported = load_problem(out, languages=languages)
    except PackageError as exc:
        raise ExportError(f"the export does not load: {exc}") from None
    for unit in units(exported, languages):
        sources = [p for p in _sources(out / unit.path) if p not in copied]
        left = [m.name for m in external_modules(sources, out) if m.kind == "local"]
        if left:
            raise ExportError(f"the export's {unit.path} still imports {', '.join(left)} from outside it")


def _zip(folder: Path, out: Path) -> None:
    """The package's files at the root of the archive (problem.yaml at the top, as DOMjudge and Kattis take it)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder).as_posix()
            if path.is_dir():
                continue
            info = zipfile.ZipInfo(rel, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (path.stat().st_mode & 0o777) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
