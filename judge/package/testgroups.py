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


class PackageError(Exception):
    """The problem package is malformed. The message is one line, meant for the organizer."""


class ScoreAggregation(StrEnum):
    MIN = "min"  # max_score x the smallest fraction
    SUM = "sum"  # max_score x mean of the fractions (see docs/package-format.md)
    AVG = "avg"  # legacy Kattis: the same as SUM here; score.txt is relative to the group's max_score
    PASS_FAIL = "pass-fail"  # 2025-09: max_score if every test is accepted, else 0


@dataclass(frozen=True)
class TestCase:
    name: str  # path relative to data/, without .in: "secret/group1/003"
    input_path: Path
    answer_path: Path | None  # None = empty answer
    group: str  # the group path relative to data/: "sample", "secret", "secret/group1"
    # 2025-09 test case settings (X.yaml); None = the group's
    validator_args: tuple[str, ...] | None = None
    input_validator_args: tuple[tuple[str, ...], Mapping[str, tuple[str, ...]]] | None = None
    args: tuple[str, ...] | None = None


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


def read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
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


def group_config(path: Path, files: tuple[str, ...] = ("test_group.yaml", "testdata.yaml")) -> dict[str, Any]:
    for name in files:
        if (path / name).is_file():
            return read_yaml(path / name)
    return {}


_TEST_SUFFIXES = (".in",)

UNSUPPORTED_KEYS = ("require_pass", "static_validation_score", "static_validator_args")  # 2025-09
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


def _input_args(value: Any, where: str) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
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
        input_args, by_name = _input_args(value, where) if given else (self.input_validator_args, by_name)
        given, value = _given(own, "args")
        return GroupSettings(
            default_aggregation=self.default_aggregation,
            default_on_reject=self.default_on_reject,
            aggregation=self._aggregation_of(own, path, name, rules),
            on_reject=on_reject,
            output_validator_args=validator_args,
            input_validator_args=input_args,
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
    own = group_config(data_root, rules.files)  # its accept_score says what groups are worth, not how data/ scores
    return problem.inherit({k: v for k, v in own.items() if k != "accept_score"}, data_root, ".", rules)


def _is_group(folder: Path, rules: GroupRules) -> bool:
    return any((folder / f).is_file() for f in rules.files[:1])


def _test_case(entry: Path, data_root: Path, group: str, rules: GroupRules) -> TestCase:
    ans = entry.with_suffix(".ans")
    test_name = entry.relative_to(data_root).with_suffix("").as_posix()
    cfg = _test_config(entry, f"data/{test_name}") if not rules.inherit else {}
    where = f"data/{test_name}.yaml"
    t_input, t_by_name = _input_args(cfg.get("input_validator_args"), where)
    return TestCase(
        test_name,
        entry,
        ans if ans.is_file() else None,
        group,
        validator_args=parse_args(cfg["output_validator_args"], where) if "output_validator_args" in cfg else None,
        input_validator_args=(t_input, t_by_name) if "input_validator_args" in cfg else None,
        args=parse_args(cfg["args"], where) if "args" in cfg else None,
    )


def _test_config(entry: Path, where: str) -> dict[str, Any]:
    """A 2025-09 test case's own settings (``X.yaml`` beside ``X.in``)."""
    yaml_path = entry.with_suffix(".yaml")
    if not yaml_path.is_file():
        return {}
    cfg = read_yaml(yaml_path)
    if "static_validation" in cfg:
        raise PackageError(f"{where}: static validation is not supported")
    return cfg


def _group_contents(path: Path, data_root: Path, name: str, rules: GroupRules) -> tuple[list[TestCase], list[Path]]:
    """A group's tests (in name order) and its subgroups' folders."""
    tests: list[TestCase] = []
    subdirs: list[Path] = []
    folders = [path]  # this group's folder, and (2025-09) its folders that are not groups
    while folders:
        folder = folders.pop(0)
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError as exc:
            raise PackageError(f"cannot list {folder}: {exc}") from None
        for entry in entries:
            if entry.is_dir():
                if entry.name.endswith(".files"):
                    continue
                if rules.inherit or (name == "secret" and folder == path and _is_group(entry, rules)):
                    subdirs.append(entry)
                else:  # 2025-09: only a folder of data/secret with test_group.yaml is a group
                    folders.append(entry)
            elif entry.suffix == ".in" and entry.is_file():
                tests.append(_test_case(entry, data_root, name, rules))
    if subdirs and len(tests) and not rules.inherit:
        raise PackageError(f"data/{name}: test groups (folders with test_group.yaml) and other tests side by side")
    tests.sort(key=lambda t: t.name)
    return tests, subdirs


def load_group(
    path: Path,
    data_root: Path,
    *,
    inherited: GroupSettings,
    max_score: float,
    scored: bool,
    rules: GroupRules,
) -> TestGroup:
    """The group at ``path`` (under ``data_root``) with its subgroups; ``inherited``: its parent's settings."""
    own = group_config(path, rules.files)
    name = path.relative_to(data_root).as_posix()
    for key in UNSUPPORTED_KEYS:
        if own.get(key):
            raise PackageError(f"data/{name}: `{key}` is not supported (see docs/package-format.md)")
    settings = inherited.inherit(own, path, name, rules)
    tests, subdirs = _group_contents(path, data_root, name, rules)
    sub_maxes = [group_worth(sub, data_root, rules.files) for sub in subdirs]
    given = sum(m for m in sub_maxes if m is not None)
    missing = sum(1 for m in sub_maxes if m is None)
    share = max(max_score - given, 0.0) / missing if missing else 0.0
    subgroups = tuple(
        load_group(sub, data_root, inherited=settings, max_score=share if m is None else m, scored=scored, rules=rules)
        for sub, m in zip(subdirs, sub_maxes, strict=True)
    )
    # how subgroups combine: legacy grader_flags (sum, avg, min, max); 2025-09: the group's own aggregation
    if rules.inherit:
        combine = _combine_word(own, f"data/{name}")
    else:
        combine = "min" if own.get("score_aggregation") == "min" else "sum"
    aggregation = settings.aggregation_kind
    if aggregation is ScoreAggregation.SUM and rules.score_files_absolute and tests and not subgroups:
        score_file_max = max_score / len(tests)
    else:
        score_file_max = max_score if not subgroups else 0.0
    return TestGroup(
        name=name,
        path=path,
        max_score=max_score,
        aggregation=aggregation,
        on_reject_break=settings.on_reject_break,
        validator_args=settings.output_validator_args,
        input_validator_args=settings.input_validator_args,
        tests=tuple(tests),
        subgroups=subgroups,
        scored=scored,
        input_validator_args_by_name=settings.input_validator_args_by_name,
        args=settings.args,
        score_file_max=score_file_max,
        combine=combine,
    )


def declared_max(cfg: Mapping[str, Any], where: str) -> float | None:
    """A group's max_score (2025-09), ``grading.max_score`` (early 2023-07 drafts), or the top of its
    Kattis ``range: lo hi`` (legacy, and 2023-07 as problemtools reads it)."""
    if "max_score" in cfg:
        if cfg["max_score"] == "unbounded":
            raise PackageError(f"{where}: max_score: unbounded is not supported (give a number)")
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


def _combine_word(cfg: Mapping[str, Any], where: str) -> str:
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


def group_worth(
    path: Path, data_root: Path, files: tuple[str, ...] = ("test_group.yaml", "testdata.yaml")
) -> float | None:
    """A group's maximum score: declared (max_score, or legacy `range`); else, in legacy packages that
    give `accept_score` (DOMjudge's examples), worked out from it: a group of tests with `accept_score: A`
    is worth A (earned when all its tests pass, as DOMjudge scores it), and a group of groups is worth its
    subgroups' worths combined by its grader_flags (sum, avg, min, max). None: not known here."""
    where = f"data/{path.relative_to(data_root).as_posix()}"
    cfg = group_config(path, files)
    declared = declared_max(cfg, where)
    if declared is not None:
        return declared
    subdirs = sorted(p for p in path.iterdir() if p.is_dir()) if path.is_dir() else []
    if not subdirs:
        return parse_number(cfg["accept_score"], f"{where}: accept_score") if "accept_score" in cfg else None
    worths = [group_worth(sub, data_root, files) for sub in subdirs]
    if any(w is None for w in worths) or not _uses_accept_score(path):
        return None
    return combine_scores(_combine_word(cfg, where), [w for w in worths if w is not None])


def _uses_accept_score(path: Path) -> bool:
    return any("accept_score" in group_config(d) for d in (path, *(p for p in path.rglob("*") if p.is_dir())))
