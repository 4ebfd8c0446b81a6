"""Test groups of a package: data/sample, data/secret and their subfolders, with their settings.

Pure: reads files, runs nothing. See docs/package-format.md, "Test groups and scores".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml


class PackageError(Exception):
    """The problem package is malformed. The message is one line, meant for the organizer."""


class ScoreAggregation(StrEnum):
    MIN = "min"
    SUM = "sum"  # max_score x mean of the fractions (see docs/package-format.md)


@dataclass(frozen=True)
class TestCase:
    name: str  # path relative to data/, without .in: "secret/group1/003"
    input_path: Path
    answer_path: Path | None  # None = empty answer
    group: str  # the group path relative to data/: "sample", "secret", "secret/group1"


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


def group_config(path: Path) -> dict[str, Any]:
    for name in ("test_group.yaml", "testdata.yaml"):
        if (path / name).is_file():
            return read_yaml(path / name)
    return {}


_TEST_SUFFIXES = (".in",)


def load_group(
    path: Path,
    data_root: Path,
    *,
    inherited: Mapping[str, Any],
    max_score: float,
    scored: bool,
) -> TestGroup:
    own = group_config(path)
    settings = {**inherited, **own}
    name = path.relative_to(data_root).as_posix()
    aggregation_word = settings.get("score_aggregation")
    flags = parse_args(settings.get("grader_flags"), f"{name}: grader_flags")
    if aggregation_word is None:
        for word in flags:
            if word in ("min", "sum", "avg", "max"):
                aggregation_word = word
    if aggregation_word is None:
        aggregation_word = settings.get("_default_aggregation", "min")
    if aggregation_word not in ("min", "sum", "avg"):
        raise PackageError(f"data/{name}: score_aggregation must be min, sum or avg, not {aggregation_word!r}")
    aggregation = ScoreAggregation.MIN if aggregation_word == "min" else ScoreAggregation.SUM
    on_reject = settings.get("on_reject", settings.get("_default_on_reject", "break"))
    if on_reject not in ("break", "continue"):
        raise PackageError(f"data/{name}: on_reject must be break or continue")
    validator_args = parse_args(own.get("output_validator_args", own.get("output_validator_flags")), f"data/{name}")
    input_args = parse_args(own.get("input_validator_args", own.get("input_validator_flags")), f"data/{name}")
    parent_validator_args = parse_args(inherited.get("_validator_args"), name)
    parent_input_args = parse_args(inherited.get("_input_args"), name)
    validator_args = parent_validator_args + validator_args
    input_args = parent_input_args + input_args

    tests: list[TestCase] = []
    subdirs: list[Path] = []
    try:
        entries = sorted(path.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise PackageError(f"cannot list {path}: {exc}") from None
    for entry in entries:
        if entry.is_dir():
            subdirs.append(entry)
        elif entry.suffix == ".in" and entry.is_file():
            ans = entry.with_suffix(".ans")
            test_name = entry.relative_to(data_root).with_suffix("").as_posix()
            tests.append(TestCase(test_name, entry, ans if ans.is_file() else None, name))

    child_inherit = {
        k: v for k, v in settings.items() if k not in ("max_score", "output_validator_args", "input_validator_args")
    }
    child_inherit["_validator_args"] = list(validator_args)
    child_inherit["_input_args"] = list(input_args)
    child_inherit["score_aggregation"] = aggregation.value if aggregation_word != "avg" else "sum"

    sub_maxes: list[float | None] = []
    for sub in subdirs:
        sub_maxes.append(declared_max(group_config(sub), f"data/{name}/{sub.name}"))
    given = sum(m for m in sub_maxes if m is not None)
    missing = sum(1 for m in sub_maxes if m is None)
    share = max(max_score - given, 0.0) / missing if missing else 0.0
    subgroups = tuple(
        load_group(sub, data_root, inherited=child_inherit, max_score=m if m is not None else share, scored=scored)
        for sub, m in zip(subdirs, sub_maxes, strict=True)
    )
    if subgroups and tests and scored:
        # Tests beside subgroups: Kattis allows it; we score them as one more group sharing nothing.
        pass
    return TestGroup(
        name=name,
        path=path,
        max_score=max_score,
        aggregation=aggregation,
        on_reject_break=on_reject == "break",
        validator_args=validator_args,
        input_validator_args=input_args,
        tests=tuple(tests),
        subgroups=subgroups,
        scored=scored,
    )


def declared_max(cfg: Mapping[str, Any], where: str) -> float | None:
    """A group's max_score (2023-07+), or the top of its legacy `range: lo hi`."""
    if "max_score" in cfg:
        return parse_number(cfg["max_score"], f"{where}: max_score")
    words = str(cfg.get("range", "")).split()
    if len(words) == 2:
        try:
            return float(words[1])
        except ValueError:
            raise PackageError(f"{where}: range must be two numbers") from None
    return None
