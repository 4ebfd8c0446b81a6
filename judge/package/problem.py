"""A Kattis-format problem package on disk -> a frozen ``Problem``. Pure: reads files, runs nothing.

See docs/package-format.md for what is read and how.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.languages.table import Language, load_languages
from judge.package.constants import Constants, parse_constants, variant_warnings
from judge.package.deps import verdict_hash
from judge.package.errors import PackageError
from judge.package.extensions import AnswerMode, Extensions, InputMode, MetricSpec, StubSpec, load_extensions
from judge.package.formats import FormatVersion, format_version
from judge.package.groupload import load_group
from judge.package.keys import Place, Tracked, check_all_read, check_known, refusal
from judge.package.limits import ProblemLimits, parse_limits
from judge.package.metadata import check_metadata, parse_languages
from judge.package.programs import (
    INPUT_VALIDATOR_FOLDERS,
    find_program,
    input_validators,
    output_validator,
    program_name,
    program_root,
    static_validator,
)
from judge.package.testgroups import (
    GroupRules,
    ScoreAggregation,
    TestCase,
    TestGroup,
    declared_max,
    group_worth,
    parse_args,
    read_yaml,
    root_settings,
)
from judge.package.v2025 import check_constants, check_includes, check_require_pass, statement_files

__all__ = [
    "AnswerMode",
    "Constants",
    "FormatVersion",
    "InputMode",
    "MetricSpec",
    "PackageError",
    "Problem",
    "ProblemLimits",
    "ScoreAggregation",
    "StubSpec",
    "TestCase",
    "TestGroup",
    "INPUT_VALIDATOR_FOLDERS",
    "find_program",
    "load_problem",
    "program_name",
]


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
    constants: Constants = field(default_factory=Constants)  # 2025-09 ``constants``
    languages: frozenset[str] | None = None  # problem.yaml ``languages``: the format's codes allowed (None: all)
    static_validator: Path | None = None  # 2025-09 ``static_validator/``
    warnings: tuple[str, ...] = ()  # what the loader ignored (unknown 2025-09 keys): `judge verify` says it

    def allows(self, format_code: str) -> bool:
        """Whether a submission in the language of this format code may be judged (problem.yaml ``languages``)."""
        return self.languages is None or format_code in self.languages

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

    def judged_cases(self) -> tuple[TestCase, ...]:
        """What judging runs, in order: the tests, each group's static validation test case (2025-09) first."""
        top = ((self.sample,) if self.sample else ()) + (self.secret,)
        return tuple(t for g in top for t in g.judged_cases())

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
        raise refusal(Place.PROBLEM_YAML, "type: submit-answer", "problem.yaml")
    return words


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


def _test_data(path: Path, root: Path, rules: GroupRules) -> tuple[TestGroup | None, TestGroup]:
    """data/sample (None when it is missing, or is all there is) and data/secret, with their groups."""
    data_root = root / "data"
    inherited = root_settings(data_root, rules, scoring=rules.scoring)
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
    declared = declared_max(rules.config(secret_dir), f"data/{secret_dir.name}")
    if declared is None and rules.inherit:
        declared = declared_max(rules.config(data_root), "data")
    if declared is None:
        declared = group_worth(secret_dir, data_root, rules)  # legacy accept_score packages (else None)
    secret_max = 100.0 if declared is None else declared
    secret = load_group(secret_dir, data_root, inherited=inherited, max_score=secret_max, scored=True, rules=rules)
    if not secret.all_tests() and secret.static_case() is None:
        raise PackageError(f"{path}: data/secret has no test cases (*.in)")
    return sample, secret


def _statement(root: Path, version: FormatVersion) -> Path | None:
    """The problem statement the judge shows: Markdown or LaTeX, English first."""
    for folder in version.statement_folders:
        for cand in ("problem.en.md", "problem.md", "problem.en.tex", "problem.tex"):
            if (root / folder / cand).is_file():
                return root / folder / cand
    return None


def _checked(config: dict[str, Any], version: FormatVersion) -> dict[str, Any]:
    """problem.yaml, checked against the 2025-09 table and tracked (keys.py); older versions as read."""
    if version is not FormatVersion.V2025_09:
        if "constants" in config:
            raise PackageError("problem.yaml: `constants` is a 2025-09 key (problem_format_version: 2025-09)")
        return config
    warnings = check_known(config, Place.PROBLEM_YAML, "problem.yaml", extra=("judge",))  # judge: ours, older
    limits = config.get("limits")
    if isinstance(limits, dict):
        warnings += check_known(limits, Place.LIMITS, "problem.yaml limits")
    tracked = Tracked(config, "problem.yaml", warnings)
    tracked.get("problem_format_version")  # format_version() read it before
    check_metadata(tracked)
    return tracked


@dataclass(frozen=True)
class _Programs:
    output_validator: Path | None
    input_validators: tuple[Path, ...]
    static_validator: Path | None


def _programs(root: Path, version: FormatVersion, known: Mapping[str, Language]) -> _Programs:
    static = static_validator(root, known) if version is FormatVersion.V2025_09 else None
    return _Programs(output_validator(root, version, known), input_validators(root, known), static)


def load_problem(path: Path, *, languages: Mapping[str, Language] | None = None) -> Problem:
    """Read a package. Raises PackageError with a one-line reason.

    ``languages``: the table whose extensions a validator may have (default: the judge's own)."""
    known = load_languages() if languages is None else languages
    root, raw = _problem_config(path)
    version = format_version(raw)
    config = _checked(raw, version)
    words = _types(config)
    constants = parse_constants(config.get("constants")) if version is FormatVersion.V2025_09 else Constants()
    programs = _programs(root, version, known)
    rules = _group_rules(version, constants, scoring="scoring" in words, static=programs.static_validator)
    sample, secret = _test_data(path, root, rules)
    if (words & {"interactive", "multi-pass"}) and programs.output_validator is None:
        raise PackageError(f"{path}: interactive and multi-pass problems need an output validator")
    allow_file_writing = config.get("allow_file_writing", False)
    if not isinstance(allow_file_writing, bool):
        raise PackageError(f"{path}: allow_file_writing must be true or false, not {allow_file_writing!r}")
    ext = load_extensions(root, config)
    validator_flags = config.get("validator_args", config.get("validator_flags"))
    problem = Problem(
        id=root.name,
        path=root,
        name=_name(config, root),
        scoring="scoring" in words,
        interactive="interactive" in words,
        multi_pass="multi-pass" in words,
        limits=parse_limits(config, root, strict=version is FormatVersion.V2025_09),
        validator_args=parse_args(validator_flags, "problem.yaml validator_flags"),
        output_validator=programs.output_validator,
        input_validators=programs.input_validators,
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
        constants=constants,
        languages=parse_languages(config.get("languages")),
        static_validator=programs.static_validator,
        warnings=(config.warnings if isinstance(config, Tracked) else ())
        + variant_warnings(constants)
        + tuple(w for g in _all_groups(sample, secret) for w in g.warnings),
    )
    if isinstance(config, Tracked):
        _check_2025(problem, config)
    return problem


def _all_groups(sample: TestGroup | None, secret: TestGroup) -> tuple[TestGroup, ...]:
    return tuple(g for top in ((sample,) if sample else ()) + (secret,) for g in top.all_groups())


def _check_2025(problem: Problem, config: Tracked) -> None:
    """What a 2025-09 package must hold across its files (v2025.py), and every key of problem.yaml read."""
    root = problem.path
    statements = statement_files(root, problem.format_version.statement_folders)
    validators = [p for p in (problem.output_validator, *problem.input_validators) if p is not None]
    check_constants(root, problem.constants, statements=statements, programs=[program_root(p) for p in validators])
    check_includes(root, problem.languages)
    check_require_pass(problem.groups(), scoring=problem.scoring)
    check_all_read(config, Place.PROBLEM_YAML)


def _group_rules(version: FormatVersion, constants: Constants, *, scoring: bool, static: Path | None) -> GroupRules:
    if version is FormatVersion.V2025_09:
        return GroupRules(
            files=version.group_files,
            inherit=False,
            score_files_absolute=True,
            default_aggregation_subgroups="pass-fail",
            substitute=constants.substitute,  # also without constants: a {{name}} there names nothing
            strict=True,
            scoring=scoring,
            static_validator=static,
        )
    return GroupRules(
        files=version.group_files,
        inherit=True,
        score_files_absolute=False,
        default_aggregation_subgroups="min",
        scoring=scoring,
    )
