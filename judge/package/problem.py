"""A Kattis-format problem package on disk -> a frozen ``Problem``. Pure: reads files, runs nothing.

See docs/package-format.md for what is read and how.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.languages.table import Language, is_program_source, load_languages
from judge.package.deps import verdict_hash
from judge.package.extensions import AnswerMode, Extensions, InputMode, MetricSpec, StubSpec, load_extensions
from judge.package.formats import FormatVersion, format_version
from judge.package.testgroups import (
    GroupRules,
    PackageError,
    ScoreAggregation,
    TestCase,
    TestGroup,
    declared_max,
    group_config,
    group_worth,
    load_group,
    parse_args,
    parse_number,
    read_yaml,
    root_settings,
)

__all__ = [
    "AnswerMode",
    "FormatVersion",
    "InputMode",
    "MetricSpec",
    "PackageError",
    "Problem",
    "ScoreAggregation",
    "StubSpec",
    "TestCase",
    "TestGroup",
    "load_problem",
    "program_name",
]


@dataclass(frozen=True)
class ProblemLimits:
    time_s: float = 1.0
    memory_kib: int = 1024 * 1024
    output_bytes: int = 8 * 1024 * 1024
    validation_passes: int = 2

    @property
    def wall_time_s(self) -> float:
        """1.5 x the time limit + 2 s: a program that computes always meets its CPU limit first (the CPU
        kill comes at most 2 s after it, runner/limits.py), one that sleeps or blocks for twice the time
        limit is a TLE from 4 s limits on (DOMjudge's expectation)."""
        return 1.5 * self.time_s + 2


@dataclass(frozen=True)
class Problem:
    id: str
    path: Path
    name: str
    scoring: bool
    interactive: bool
    multi_pass: bool
    limits: ProblemLimits
    validator_args: tuple[str, ...]
    output_validator: Path | None  # None = the default token comparison
    input_validators: tuple[Path, ...]
    sample: TestGroup | None
    secret: TestGroup
    input_mode: InputMode = InputMode.STDIN
    answer_mode: AnswerMode = AnswerMode.STDOUT
    stubs: Mapping[str, StubSpec] = field(default_factory=dict)
    metric: MetricSpec | None = None
    statement: Path | None = None
    content_hash: str = ""
    format_version: FormatVersion = FormatVersion.LEGACY
    extensions: Extensions = field(default_factory=Extensions)
    # problem.yaml ``allow_file_writing`` (2025-09; read for every version): may submissions create,
    # change or delete files in their working directory? DOMjudge's rule and the format's default: no.
    allow_file_writing: bool = False

    def groups(self) -> tuple[TestGroup, ...]:
        top = ((self.sample,) if self.sample else ()) + (self.secret,)
        return tuple(g for t in top for g in t.all_groups())

    def tests(self) -> tuple[TestCase, ...]:
        """Every test in judging order: samples first."""
        out: list[TestCase] = []
        if self.sample is not None:
            out.extend(self.sample.all_tests())
        out.extend(self.secret.all_tests())
        return tuple(out)

    def group(self, name: str) -> TestGroup:
        for g in self.groups():
            if g.name == name:
                return g
        raise KeyError(name)


# --------------------------------------------------------------------------- loading


def _types(config: Mapping[str, Any]) -> set[str]:
    """Problem type words from 2023-07 `type` and legacy `validation`."""
    words: set[str] = set()
    raw_type = config.get("type", "pass-fail")
    if isinstance(raw_type, str):
        words.update(raw_type.split())
    elif isinstance(raw_type, list):
        words.update(str(w) for w in raw_type)
    else:
        raise PackageError("problem.yaml: `type` must be a string or a list")
    validation = config.get("validation", "default")
    if not isinstance(validation, str):
        raise PackageError("problem.yaml: `validation` must be a string")
    vwords = validation.split()
    if "score" in vwords:
        words.add("scoring")
    words.update(w for w in vwords if w in ("interactive", "multi-pass"))
    known = {"pass-fail", "scoring", "interactive", "multi-pass", "submit-answer"}
    unknown = words - known
    if unknown:
        raise PackageError(f"problem.yaml: unknown problem type {sorted(unknown)[0]!r}")
    if "submit-answer" in words:
        raise PackageError("problem.yaml: submit-answer problems are not supported")
    return words


def _limits(config: Mapping[str, Any], root: Path) -> ProblemLimits:
    raw = config.get("limits") or {}
    if not isinstance(raw, dict):
        raise PackageError("problem.yaml: `limits` must be a mapping")
    time_s = 1.0
    timelimit_file = root / ".timelimit"
    if "time_limit" in raw:
        time_s = parse_number(raw["time_limit"], "limits.time_limit")
    elif timelimit_file.is_file():
        try:
            time_s = float(timelimit_file.read_text().split()[0])
        except (ValueError, IndexError):
            raise PackageError(f"{timelimit_file}: expected a number of seconds") from None
    if time_s <= 0:
        raise PackageError("limits.time_limit must be positive")
    memory_mib = parse_number(raw.get("memory", 1024), "limits.memory")
    output_mib = parse_number(raw.get("output", 8), "limits.output")
    passes = int(parse_number(raw.get("validation_passes", 2), "limits.validation_passes"))
    return ProblemLimits(
        time_s=time_s,
        memory_kib=int(memory_mib * 1024),
        output_bytes=int(output_mib * 1024 * 1024),
        validation_passes=passes,
    )


def find_program(base: Path, languages: Mapping[str, Language]) -> Path | None:
    """A validator given as a file or a folder (see docs/package-format.md): a folder's program is its source
    file in a language of ``languages`` (one named after the folder, validate, validator or main among several)."""
    if base.is_file():
        return base
    if not base.is_dir():
        return None
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


def _output_validator(root: Path, version: FormatVersion, languages: Mapping[str, Language]) -> Path | None:
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


def program_name(path: Path) -> str:
    """The Kattis name of a package program found at ``path``: a single file's stem, or its folder's name."""
    return path.stem if path.parent.name in INPUT_VALIDATOR_FOLDERS else path.parent.name


def _input_validators(root: Path, languages: Mapping[str, Language]) -> tuple[Path, ...]:
    """Every input validator (a file or a folder of the first input validator folder), in any known language."""
    bases = [root / f for f in INPUT_VALIDATOR_FOLDERS if (root / f).is_dir()]
    if not bases:
        return ()
    out: list[Path] = []
    for entry in sorted(e for e in bases[0].iterdir() if not e.name.startswith((".", "__"))):
        found = find_program(entry, languages)
        if found is not None and is_program_source(found, languages):
            out.append(found)
    return tuple(out)


def package_hash(root: Path) -> str:
    """A hash of what in and outside the package can change a verdict (not its README, statement,
    generators or submissions; yes the ``reference`` modules its programs import): see packagedeps.py."""
    return verdict_hash(root)


def _problem_config(path: Path) -> tuple[Path, dict[str, Any]]:
    """The package's folder (resolved) and its problem.yaml."""
    root = path.resolve()
    if not root.is_dir():
        raise PackageError(f"{path}: not a directory")
    yaml_path = root / "problem.yaml"
    if not yaml_path.is_file():
        raise PackageError(f"{path}: no problem.yaml (is this a problem package?)")
    return root, read_yaml(yaml_path)


def _name(config: Mapping[str, Any], root: Path) -> str:
    """The problem's (English) name."""
    name_raw = config.get("name", root.name)
    if isinstance(name_raw, dict):
        return str(name_raw.get("en", next(iter(name_raw.values()), root.name)))
    return str(name_raw)


def _test_data(path: Path, root: Path, version: FormatVersion, scoring: bool) -> tuple[TestGroup | None, TestGroup]:
    """data/sample (None when it is missing, or is all there is) and data/secret, with their groups."""
    data_root = root / "data"
    rules = _group_rules(version)
    inherited = root_settings(data_root, rules, scoring=scoring)
    sample = None
    if (data_root / "sample").is_dir():
        sample = load_group(
            data_root / "sample", data_root, inherited=inherited, max_score=0.0, scored=False, rules=rules
        )
    secret_dir = data_root / "secret"
    if not secret_dir.is_dir():
        if sample is None or not sample.all_tests():
            raise PackageError(f"{path}: no data/secret folder, and no samples (data/sample/*.in) to judge on")
        secret_dir = data_root / "sample"  # samples only (DOMjudge's `hello`): they are the judged, scored tests
        sample = None
    declared = declared_max(group_config(secret_dir, rules.files), f"data/{secret_dir.name}")
    if declared is None and rules.inherit:
        declared = declared_max(group_config(data_root, rules.files), "data")
    if declared is None:
        declared = group_worth(secret_dir, data_root, rules.files)  # legacy accept_score packages (else None)
    secret_max = 100.0 if declared is None else declared
    secret = load_group(secret_dir, data_root, inherited=inherited, max_score=secret_max, scored=True, rules=rules)
    if not secret.all_tests():
        raise PackageError(f"{path}: data/secret has no test cases (*.in)")
    return sample, secret


def _statement(root: Path, version: FormatVersion) -> Path | None:
    """The problem statement the judge shows: Markdown or LaTeX, English first."""
    for folder in version.statement_folders:
        for cand in ("problem.en.md", "problem.md", "problem.en.tex", "problem.tex"):
            if (root / folder / cand).is_file():
                return root / folder / cand
    return None


def load_problem(path: Path, *, languages: Mapping[str, Language] | None = None) -> Problem:
    """Read a package. Raises PackageError with a one-line reason.

    ``languages``: the table whose extensions a validator may have (default: the judge's own)."""
    known = load_languages() if languages is None else languages
    root, config = _problem_config(path)
    version = format_version(config)
    words = _types(config)
    scoring = "scoring" in words
    limits = _limits(config, root)
    validator_args = parse_args(
        config.get("validator_args", config.get("validator_flags")), "problem.yaml validator_flags"
    )
    sample, secret = _test_data(path, root, version, scoring)
    interactive = "interactive" in words
    multi_pass = "multi-pass" in words
    output_validator = _output_validator(root, version, known)
    if (interactive or multi_pass) and output_validator is None:
        raise PackageError(f"{path}: interactive and multi-pass problems need an output validator")
    ext = load_extensions(root, config)
    allow_file_writing = config.get("allow_file_writing", False)
    if not isinstance(allow_file_writing, bool):
        raise PackageError(f"{path}: allow_file_writing must be true or false, not {allow_file_writing!r}")
    return Problem(
        id=root.name,
        path=root,
        name=_name(config, root),
        scoring=scoring,
        interactive=interactive,
        multi_pass=multi_pass,
        limits=limits,
        validator_args=validator_args,
        output_validator=output_validator,
        input_validators=_input_validators(root, known),
        sample=sample,
        secret=secret,
        input_mode=ext.input_mode,
        answer_mode=ext.answer_mode,
        stubs=ext.stubs,
        metric=ext.metric,
        statement=_statement(root, version),
        content_hash=package_hash(root),
        format_version=version,
        extensions=ext,
        allow_file_writing=allow_file_writing,
    )


def _group_rules(version: FormatVersion) -> GroupRules:
    if version is FormatVersion.V2025_09:
        return GroupRules(
            files=version.group_files,
            inherit=False,
            score_files_absolute=True,
            default_aggregation_subgroups="pass-fail",
        )
    return GroupRules(
        files=version.group_files, inherit=True, score_files_absolute=False, default_aggregation_subgroups="min"
    )
