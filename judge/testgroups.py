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
    combine: str = "sum"  # how the subgroups' scores make this group's: sum, avg, min, max (legacy grader_flags)

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
            if word in ("min", "sum", "avg"):
                aggregation_word = word
    if aggregation_word is None:
        aggregation_word = settings.get("_default_aggregation", "min")
    if "accept_score" in own and declared_max(own, f"data/{name}") is None and not _has_subfolders(path):
        aggregation_word = "min"  # legacy accept_score: the group is worth it when all its tests pass
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
        sub_maxes.append(group_worth(sub, data_root))
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
        combine=_combine_word(own, f"data/{name}"),
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


_COMBINE = {
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


def group_worth(path: Path, data_root: Path) -> float | None:
    """A group's maximum score: declared (max_score, or legacy `range`); else, in legacy packages that
    give `accept_score` (DOMjudge's examples), worked out from it: a group of tests with `accept_score: A`
    is worth A (earned when all its tests pass, as DOMjudge scores it), and a group of groups is worth its
    subgroups' worths combined by its grader_flags (sum, avg, min, max). None: not known here."""
    where = f"data/{path.relative_to(data_root).as_posix()}"
    cfg = group_config(path)
    declared = declared_max(cfg, where)
    if declared is not None:
        return declared
    subdirs = sorted(p for p in path.iterdir() if p.is_dir()) if path.is_dir() else []
    if not subdirs:
        return parse_number(cfg["accept_score"], f"{where}: accept_score") if "accept_score" in cfg else None
    worths = [group_worth(sub, data_root) for sub in subdirs]
    if any(w is None for w in worths) or not _uses_accept_score(path):
        return None
    return combine_scores(_combine_word(cfg, where), [w for w in worths if w is not None])


def _uses_accept_score(path: Path) -> bool:
    return any("accept_score" in group_config(d) for d in (path, *(p for p in path.rglob("*") if p.is_dir())))
