"""Test groups of a package: data/sample, data/secret and their subfolders, with their settings.

Pure: reads files, runs nothing. See docs/package-format.md, "Test groups and scores".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

from judge.package.errors import PackageError
from judge.package.keys import Place, refusal


class ScoreAggregation(StrEnum):
    MIN = "min"  # max_score x the smallest fraction
    SUM = "sum"  # max_score x mean of the fractions (see docs/package-format.md)
    AVG = "avg"  # legacy Kattis: the same as SUM here; score.txt is relative to the group's max_score
    PASS_FAIL = "pass-fail"  # 2025-09: max_score if every test is accepted, else 0


Substitute = Callable[[str, str], str]  # (text, where) -> text: 2025-09 constants in test_group.yaml
STATIC_CASE = "static_validation"  # the last part of a group's static validation test case's name


@dataclass(frozen=True)
class TestCase:
    name: str  # path relative to data/, without .in: "secret/group1/003"
    input_path: Path  # a static validation test case: its group's test_group.yaml (it has no input)
    answer_path: Path | None  # None = empty answer
    group: str  # the group path relative to data/: "sample", "secret", "secret/group1"
    # 2025-09 test case settings (X.yaml); None = the group's
    validator_args: tuple[str, ...] | None = None
    input_validator_args: tuple[tuple[str, ...], Mapping[str, tuple[str, ...]]] | None = None
    args: tuple[str, ...] | None = None
    files: Path | None = None  # 2025-09 ``X.files/``: copied into the working directory of the runs
    static: bool = False  # the group's static validation test case (its static validator judges the source)


@dataclass(frozen=True)
class StaticValidation:
    """A group's static validation test case (2025-09 ``static_validation_score``)."""

    max_score: float  # its maximum score (0 when pass-fail)
    pass_fail: bool
    args: tuple[str, ...] = ()  # static_validator_args


@dataclass(frozen=True)
class TestGroup:
    name: str  # relative to data/
    path: Path
    max_score: float
    aggregation: ScoreAggregation
    on_reject_break: bool
    validator_args: tuple[str, ...]
    input_validator_args: tuple[str, ...]
    tests: tuple[TestCase, ...]
    subgroups: tuple[TestGroup, ...]
    scored: bool  # False for data/sample
    combine: str = "sum"  # how the subgroups' scores make this group's: sum, avg, min, max (legacy grader_flags)
    # a map validator name -> arguments, when the settings give one (then input_validator_args is empty)
    input_validator_args_by_name: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    args: tuple[str, ...] = ()  # 2025-09 `args`: command-line arguments of the submission
    score_file_max: float = 0.0  # what a validator's score.txt is relative to (see docs/package-format.md)
    require_pass: tuple[str, ...] = ()  # 2025-09: judged only when these groups (or sample) are accepted
    static: StaticValidation | None = None  # 2025-09: the group's static validation test case
    warnings: tuple[str, ...] = ()  # about its settings and its tests' (unknown 2025-09 keys)

    def static_case(self) -> TestCase | None:
        """The group's static validation test case, judged before its other tests (None: it has none)."""
        if self.static is None:
            return None
        name = f"{self.name}/{STATIC_CASE}"
        return TestCase(name, self.path / "test_group.yaml", None, self.name, static=True)

    def judged_cases(self) -> tuple[TestCase, ...]:
        """What judging runs, in order: the static validation test case, the own tests, the subgroups'."""
        static = self.static_case()
        out = ([static] if static is not None else []) + list(self.tests)
        for sub in self.subgroups:
            out.extend(sub.judged_cases())
        return tuple(out)

    def input_args_for(self, validator: str, test: TestCase | None = None) -> tuple[str, ...]:
        """The arguments of input validator ``validator`` (its program name) on ``test`` (or the group)."""
        plain, by_name = self.input_validator_args, self.input_validator_args_by_name
        if test is not None and test.input_validator_args is not None:
            plain, by_name = test.input_validator_args
        return by_name.get(validator, ()) if by_name else plain

    def all_tests(self) -> tuple[TestCase, ...]:
        """Own tests first, then the subgroups' in name order."""
        out = list(self.tests)
        for sub in self.subgroups:
            out.extend(sub.all_tests())
        return tuple(out)

    def all_groups(self) -> tuple[TestGroup, ...]:
        out: list[TestGroup] = [self]
        for sub in self.subgroups:
            out.extend(sub.all_groups())
        return tuple(out)


# --------------------------------------------------------------------------- reading


def read_yaml(path: Path, substitute: Substitute | None = None) -> dict[str, Any]:
    """A YAML file whose top level is a mapping (``substitute``: applied to its text first)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(substitute(text, str(path)) if substitute is not None else text)
    except (OSError, UnicodeDecodeError) as exc:
        raise PackageError(f"cannot read {path}: {exc}") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" line {where.line + 1}" if where is not None else ""
        raise PackageError(f"{path}{line}: not valid YAML") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PackageError(f"{path}: expected a mapping at the top level")
    return data


def parse_args(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return tuple(str(v) for v in value)
    raise PackageError(f"{where}: expected a string or a list of strings")


def parse_number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PackageError(f"{where}: expected a number, got {value!r}")
    return float(value)


def group_config(
    path: Path, files: tuple[str, ...] = ("test_group.yaml", "testdata.yaml"), substitute: Substitute | None = None
) -> dict[str, Any]:
    """The settings of the group at ``path``: the first of ``files`` there (``substitute``: 2025-09 constants,
    applied to test_group.yaml only), or none."""
    for name in files:
        if (path / name).is_file():
            return read_yaml(path / name, substitute if name == "test_group.yaml" else None)
    return {}


_TEST_SUFFIXES = (".in",)

# 2025-09 keys, read from test_group.yaml only (in a legacy testdata.yaml they are refused: say 2025-09)
NEW_KEYS = ("require_pass", "static_validation_score", "static_validator_args")
AGGREGATIONS = {
    "min": ScoreAggregation.MIN,
    "sum": ScoreAggregation.SUM,
    "avg": ScoreAggregation.AVG,
    "pass-fail": ScoreAggregation.PASS_FAIL,
}
ON_REJECT = ("break", "continue")


@dataclass(frozen=True)
class GroupRules:
    """How a format version reads group settings (see docs/package-format.md, "Test groups and scores")."""

    files: tuple[str, ...]  # settings file names, the version's own first
    inherit: bool  # settings are inherited by subgroups (legacy, 2023-07) or not (2025-09)
    score_files_absolute: bool  # 2025-09: score.txt is the test's own score (max: max_score / N in a sum group)
    default_aggregation_subgroups: str  # the aggregation of a subgroup that names none
    substitute: Substitute | None = None  # 2025-09 constants in test_group.yaml
    strict: bool = False  # 2025-09: test_group.yaml and test case .yaml keys are checked (keys.py)
    scoring: bool = False  # the problem is a scoring problem (what static_validation_score may be)
    static_validator: Path | None = None  # 2025-09 static_validator/ (static validation test cases need it)

    def config(self, path: Path) -> dict[str, Any]:
        """The settings of the group at ``path``, constants substituted."""
        return group_config(path, self.files, self.substitute)


def _aggregation_word(cfg: Mapping[str, Any], group_name: str) -> str | None:
    """The aggregation a settings mapping names itself, if any."""
    grading = cfg.get("grading")
    if isinstance(grading, dict) and grading.get("aggregation") is not None:  # early 2023-07 drafts
        return str(grading["aggregation"])
    if cfg.get("score_aggregation") is not None:
        return str(cfg["score_aggregation"])
    word = None
    for flag in parse_args(cfg.get("grader_flags"), f"data/{group_name}: grader_flags"):
        if flag in ("min", "sum", "avg"):  # `max` only combines subgroups (combine); other words are ignored
            word = flag  # the last one wins, as in Kattis' default grader
    return word


def _given(own: Mapping[str, Any], *keys: str) -> tuple[bool, Any]:
    """(True, value) for the first of ``keys`` the settings give (even as null), else (False, None)."""
    for key in keys:
        if key in own:
            return True, own[key]
    return False, None


def input_args(value: Any, where: str) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """Input validator arguments: one list for all validators, or a map validator name -> arguments."""
    if isinstance(value, dict):
        return (), {str(k): parse_args(v, f"{where}.{k}") for k, v in value.items()}
    return parse_args(value, where), {}


@dataclass(frozen=True)
class GroupSettings:
    """A group's settings, resolved: what it is judged with and what its subgroups inherit. data/ has some too
    (the problem's defaults and, legacy and 2023-07, data/testdata.yaml): data/sample and data/secret inherit
    them. ``inherit`` is the one step from a group's settings to a subgroup's (docs/package-format.md)."""

    default_aggregation: str  # the problem's: "sum" for scoring problems, else "min"
    default_on_reject: str  # the problem's: "continue" for scoring problems, else "break"
    aggregation: str = ""  # min, sum, avg or pass-fail ("" for data/ without data/testdata.yaml)
    on_reject: str | None = None  # break or continue, when this group (or, inheriting, one above) gives it
    output_validator_args: tuple[str, ...] = ()
    input_validator_args: tuple[str, ...] = ()  # for every input validator, unless by name is given
    input_validator_args_by_name: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    args: tuple[str, ...] = ()  # the submission's command-line arguments (2025-09)

    @classmethod
    def of_problem(cls, *, scoring: bool) -> GroupSettings:
        """What data/ has before data/testdata.yaml: the problem type's defaults."""
        return cls(
            default_aggregation="sum" if scoring else "min", default_on_reject="continue" if scoring else "break"
        )

    @property
    def aggregation_kind(self) -> ScoreAggregation:
        return AGGREGATIONS[self.aggregation]

    @property
    def on_reject_break(self) -> bool:
        return (self.on_reject or self.default_on_reject) == "break"

    def inherit(self, own: Mapping[str, Any], path: Path, name: str, rules: GroupRules) -> GroupSettings:
        """The settings of the subgroup at ``path`` (``name`` relative to data/) whose own settings file gives
        ``own``. Legacy and 2023-07 subgroups inherit everything they do not give; 2025-09 ones only the
        arguments (and the problem's defaults). Arguments a group gives replace those it would inherit."""
        where = f"data/{name}"
        on_reject = own["on_reject"] if "on_reject" in own else (self.on_reject if rules.inherit else None)
        if ("on_reject" in own or on_reject is not None) and on_reject not in ON_REJECT:
            raise PackageError(f"{where}: on_reject must be break or continue")
        given, value = _given(own, "output_validator_args", "output_validator_flags")
        validator_args = parse_args(value, where) if given else self.output_validator_args
        given, value = _given(own, "input_validator_args", "input_validator_flags")
        by_name = self.input_validator_args_by_name
        iv_args, by_name = input_args(value, where) if given else (self.input_validator_args, by_name)
        given, value = _given(own, "args")
        return GroupSettings(
            default_aggregation=self.default_aggregation,
            default_on_reject=self.default_on_reject,
            aggregation=self._aggregation_of(own, path, name, rules),
            on_reject=on_reject,
            output_validator_args=validator_args,
            input_validator_args=iv_args,
            input_validator_args_by_name=by_name,
            args=parse_args(value, f"{where}: args") if given else self.args,
        )

    def _aggregation_of(self, own: Mapping[str, Any], path: Path, name: str, rules: GroupRules) -> str:
        """A subgroup's aggregation: its own word, else (inheriting) this group's, else the default."""
        word = _aggregation_word(own, name)
        if word is None and rules.inherit and self.aggregation:
            word = self.aggregation
        if word is None:
            word = (
                self.default_aggregation if name == "secret" or rules.inherit else rules.default_aggregation_subgroups
            )
        if word not in AGGREGATIONS:
            raise PackageError(f"data/{name}: score_aggregation must be min, sum or avg, not {word!r}")
        if rules.inherit and "accept_score" in own and declared_max(own, f"data/{name}") is None:
            if not _has_subfolders(path):
                word = "min"  # legacy accept_score: the group is worth it when all its tests pass
        return word


def root_settings(data_root: Path, rules: GroupRules, *, scoring: bool) -> GroupSettings:
    """What data/sample and data/secret inherit: the problem's defaults and (legacy, 2023-07) data/testdata.yaml."""
    problem = GroupSettings.of_problem(scoring=scoring)
    if not rules.inherit:
        return problem
    own = rules.config(data_root)  # its accept_score says what groups are worth, not how data/ scores
    return problem.inherit({k: v for k, v in own.items() if k != "accept_score"}, data_root, ".", rules)


def is_group(folder: Path, rules: GroupRules) -> bool:
    """2025-09: a folder of data/secret is a test group when it holds test_group.yaml."""
    return any((folder / f).is_file() for f in rules.files[:1])


def declared_max(cfg: Mapping[str, Any], where: str) -> float | None:
    """A group's max_score (2025-09), ``grading.max_score`` (early 2023-07 drafts), or the top of its
    Kattis ``range: lo hi`` (legacy, and 2023-07 as problemtools reads it)."""
    if "max_score" in cfg:
        if cfg["max_score"] == "unbounded":
            raise refusal(Place.TEST_GROUP, "max_score: unbounded", where)
        return parse_number(cfg["max_score"], f"{where}: max_score")
    grading = cfg.get("grading")
    if isinstance(grading, dict) and "max_score" in grading:
        return parse_number(grading["max_score"], f"{where}: grading.max_score")
    words = str(cfg.get("range", "")).split()
    if len(words) == 2:
        try:
            return float(words[1])
        except ValueError:
            raise PackageError(f"{where}: range must be two numbers") from None
    if "range" in cfg:
        raise PackageError(f"{where}: range must be two numbers")
    return None


_COMBINE: dict[str, Callable[[list[float]], float]] = {
    "sum": sum,
    "avg": lambda xs: sum(xs) / len(xs),
    "min": min,
    "max": max,
}


def combine_word(cfg: Mapping[str, Any], where: str) -> str:
    """Legacy ``grader_flags``: the last of sum/avg/min/max says how the group's children combine (default sum)."""
    words = [w for w in parse_args(cfg.get("grader_flags"), f"{where}: grader_flags") if w in _COMBINE]
    return words[-1] if words else "sum"


def combine_scores(word: str, scores: list[float]) -> float:
    return float(_COMBINE[word](scores)) if scores else 0.0


def _has_subfolders(path: Path) -> bool:
    try:
        return any(p.is_dir() for p in path.iterdir())
    except OSError:
        return False


def group_worth(path: Path, data_root: Path, rules: GroupRules | None = None) -> float | None:
    """A group's maximum score: declared (max_score, or legacy `range`); else, in legacy packages that
    give `accept_score` (DOMjudge's examples), worked out from it: a group of tests with `accept_score: A`
    is worth A (earned when all its tests pass, as DOMjudge scores it), and a group of groups is worth its
    subgroups' worths combined by its grader_flags (sum, avg, min, max). None: not known here."""
    where = f"data/{path.relative_to(data_root).as_posix()}"
    cfg = rules.config(path) if rules is not None else group_config(path)
    declared = declared_max(cfg, where)
    if declared is not None:
        return declared
    subdirs = sorted(p for p in path.iterdir() if p.is_dir()) if path.is_dir() else []
    if not subdirs:
        return parse_number(cfg["accept_score"], f"{where}: accept_score") if "accept_score" in cfg else None
    worths = [group_worth(sub, data_root, rules) for sub in subdirs]
    if any(w is None for w in worths) or not _uses_accept_score(path):
        return None
    return combine_scores(combine_word(cfg, where), [w for w in worths if w is not None])


def _uses_accept_score(path: Path) -> bool:
    return any("accept_score" in group_config(d) for d in (path, *(p for p in path.rglob("*") if p.is_dir())))
