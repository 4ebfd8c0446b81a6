"""Walking a package's ``data/`` folders into test groups (records and settings: testgroups.py).

2025-09 adds here: the keys of ``test_group.yaml`` and of a test case's ``.yaml`` are checked against the
format's table (keys.py); ``require_pass`` (a group judged only when earlier groups are accepted);
``static_validation_score`` / ``static_validator_args`` (the group's static validation test case); a
test case's ``.files`` folder. Pure: reads files, runs nothing. See docs/package-format.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.package.errors import PackageError
from judge.package.keys import Place, Tracked, check_all_read, check_known
from judge.package.testgroups import (
    NEW_KEYS,
    STATIC_CASE,
    GroupRules,
    GroupSettings,
    ScoreAggregation,
    StaticValidation,
    TestCase,
    TestGroup,
    combine_word,
    declared_max,
    group_worth,
    input_args,
    is_group,
    parse_args,
    parse_number,
    read_yaml,
)

GROUP_FILE = "test_group.yaml"
# Keys of the older versions that the judge reads in a 2025-09 test_group.yaml too (docs/package-format.md,
# "Test groups and scores"); any other key the 2025-09 table does not know is an error there.
OLDER_KEYS = ("on_reject", "grader_flags", "range", "grading", "input_validator_flags", "output_validator_flags")


def _strict(own: dict[str, Any], path: Path, where: str, rules: GroupRules) -> dict[str, Any]:
    """A 2025-09 test_group.yaml, checked and tracked (a testdata.yaml in such a package is read as before)."""
    if not rules.strict or not (path / GROUP_FILE).is_file():
        return own
    warnings = check_known(own, Place.TEST_GROUP, f"{where}/{GROUP_FILE}", extra=OLDER_KEYS)
    return Tracked(own, f"{where}/{GROUP_FILE}", warnings)


def _read_only(cfg: Mapping[str, Any], where: str) -> None:
    """Keys that are accepted and checked with nothing to do for a judge (keys.py: visualizers, feedback)."""
    for key in ("input_visualizer_args", "output_visualizer_args"):
        parse_args(cfg.get(key), f"{where}: {key}")
    if cfg.get("full_feedback") is not None and not isinstance(cfg.get("full_feedback"), bool):
        raise PackageError(f"{where}: full_feedback must be true or false")
    for key in ("hint", "description"):
        if cfg.get(key) is not None and not isinstance(cfg.get(key), str):
            raise PackageError(f"{where}: {key} must be a string")


def _test_config(entry: Path, where: str, rules: GroupRules) -> dict[str, Any]:
    """A 2025-09 test case's own settings (``X.yaml`` beside ``X.in``), checked and tracked."""
    yaml_path = entry.with_suffix(".yaml")
    if not yaml_path.is_file():
        return {}
    cfg = read_yaml(yaml_path)
    if not rules.strict:
        return cfg
    return Tracked(cfg, where, check_known(cfg, Place.TEST_CASE, where))


def _test_case(entry: Path, data_root: Path, group: str, rules: GroupRules) -> tuple[TestCase, tuple[str, ...]]:
    ans = entry.with_suffix(".ans")
    test_name = entry.relative_to(data_root).with_suffix("").as_posix()
    where = f"data/{test_name}.yaml"
    cfg = _test_config(entry, where, rules) if not rules.inherit else {}
    t_input, t_by_name = input_args(cfg.get("input_validator_args"), where)
    files = entry.with_suffix(".files")
    test = TestCase(
        test_name,
        entry,
        ans if ans.is_file() else None,
        group,
        validator_args=parse_args(cfg["output_validator_args"], where) if "output_validator_args" in cfg else None,
        input_validator_args=(t_input, t_by_name) if "input_validator_args" in cfg else None,
        args=parse_args(cfg["args"], where) if "args" in cfg else None,
        files=files if not rules.inherit and files.is_dir() else None,
    )
    if isinstance(cfg, Tracked):
        _read_only(cfg, where)
        check_all_read(cfg, Place.TEST_CASE)
        return test, cfg.warnings
    return test, ()


def _group_contents(
    path: Path, data_root: Path, name: str, rules: GroupRules
) -> tuple[list[TestCase], list[Path], list[str]]:
    """A group's tests (in name order), its subgroups' folders, and the warnings about its tests' settings."""
    warnings: list[str] = []
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
                if rules.inherit or (name == "secret" and folder == path and is_group(entry, rules)):
                    subdirs.append(entry)
                else:  # 2025-09: only a folder of data/secret with test_group.yaml is a group
                    folders.append(entry)
            elif entry.suffix == ".in" and entry.is_file():
                test, said = _test_case(entry, data_root, name, rules)
                tests.append(test)
                warnings.extend(said)
    if subdirs and len(tests) and not rules.inherit:
        raise PackageError(f"data/{name}: test groups (folders with test_group.yaml) and other tests side by side")
    tests.sort(key=lambda t: t.name)
    return tests, subdirs, warnings


def _require_pass(own: Mapping[str, Any], name: str, scored: bool) -> tuple[str, ...]:
    """2025-09 ``require_pass``: the groups (``sample`` or ``secret/<group>``) that must be accepted first."""
    raw = own.get("require_pass")
    if raw is None:
        return ()
    where = f"data/{name}: require_pass"
    names = (raw,) if isinstance(raw, str) else raw
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise PackageError(f"{where}: a group's name (or sample), or a list of them")
    if not scored:
        raise PackageError(f"{where}: not allowed in sample")
    for other in names:
        if name == "secret" and other != "sample":
            raise PackageError(f"{where}: secret may depend on sample only, not {other!r}")
        if not other < name:
            raise PackageError(f"{where}: {other!r} must come before {name!r} (in name order)")
    return tuple(names)


def _static(
    own: Mapping[str, Any], name: str, rules: GroupRules, aggregation: ScoreAggregation
) -> StaticValidation | None:
    """2025-09 ``static_validation_score`` (and ``static_validator_args``): the group's static validation test
    case, checked as the spec says."""
    where = f"data/{name}"
    raw = own.get("static_validation_score")
    args = own.get("static_validator_args")
    if raw is None:
        if args is not None:
            raise PackageError(f"{where}: static_validator_args without static_validation_score")
        return None
    if rules.static_validator is None:
        raise PackageError(f"{where}: static_validation_score, but the package has no static_validator/")
    if raw == "pass-fail":
        if aggregation is not ScoreAggregation.PASS_FAIL and rules.scoring:
            raise PackageError(f"{where}: static_validation_score: pass-fail needs score_aggregation: pass-fail")
        return StaticValidation(0.0, True, parse_args(args, f"{where}: static_validator_args"))
    score = parse_number(raw, f"{where}: static_validation_score")
    if score < 0 or not rules.scoring or aggregation is ScoreAggregation.PASS_FAIL:
        raise PackageError(f"{where}: a numeric static_validation_score needs a scoring problem and a sum or min group")
    return StaticValidation(score, False, parse_args(args, f"{where}: static_validator_args"))


@dataclass(frozen=True)
class _Place:
    """Where a group is loaded: its folder, data/, and what its parent decided."""

    path: Path
    data_root: Path
    inherited: GroupSettings
    max_score: float
    scored: bool


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
    return _load(_Place(path, data_root, inherited, max_score, scored), rules)


def _load(at: _Place, rules: GroupRules) -> TestGroup:
    name = at.path.relative_to(at.data_root).as_posix()
    own = _strict(rules.config(at.path), at.path, f"data/{name}", rules)
    if not isinstance(own, Tracked):
        for key in NEW_KEYS:
            if own.get(key) is not None:
                raise PackageError(f"data/{name}: `{key}` is a 2025-09 key (test_group.yaml of a 2025-09 package)")
    settings = at.inherited.inherit(own, at.path, name, rules)
    tests, subdirs, warnings = _group_contents(at.path, at.data_root, name, rules)
    sub_maxes = [group_worth(sub, at.data_root, rules) for sub in subdirs]
    given = sum(m for m in sub_maxes if m is not None)
    missing = sum(1 for m in sub_maxes if m is None)
    share = max(at.max_score - given, 0.0) / missing if missing else 0.0
    subgroups = tuple(
        _load(_Place(sub, at.data_root, settings, share if m is None else m, at.scored), rules)
        for sub, m in zip(subdirs, sub_maxes, strict=True)
    )
    aggregation = settings.aggregation_kind
    static = _static(own, name, rules, aggregation) if isinstance(own, Tracked) else None
    if static is not None and any(t.name == f"{name}/{STATIC_CASE}" for t in tests):
        raise PackageError(f"data/{name}: a test named {STATIC_CASE} beside the group's static validation")
    # how subgroups combine: legacy grader_flags (sum, avg, min, max); 2025-09: the group's own aggregation
    if rules.inherit:
        combine = combine_word(own, f"data/{name}")
    else:
        combine = "min" if own.get("score_aggregation") == "min" else "sum"
    static_max = static.max_score if static is not None else 0.0
    if aggregation is ScoreAggregation.SUM and rules.score_files_absolute and tests and not subgroups:
        score_file_max = (at.max_score - static_max) / len(tests)
    else:
        score_file_max = at.max_score if not subgroups else 0.0
    require = _require_pass(own, name, at.scored) if isinstance(own, Tracked) else ()
    if isinstance(own, Tracked):
        declared_max(own, f"data/{name}")  # read (its parent used it): checked
        _read_only(own, f"data/{name}")
        check_all_read(own, Place.TEST_GROUP, extra=OLDER_KEYS)
        warnings[:0] = own.warnings
    return TestGroup(
        name=name,
        path=at.path,
        max_score=at.max_score,
        aggregation=aggregation,
        on_reject_break=settings.on_reject_break,
        validator_args=settings.output_validator_args,
        input_validator_args=settings.input_validator_args,
        tests=tuple(tests),
        subgroups=subgroups,
        scored=at.scored,
        input_validator_args_by_name=settings.input_validator_args_by_name,
        args=settings.args,
        score_file_max=score_file_max,
        combine=combine,
        require_pass=require,
        static=static,
        warnings=tuple(warnings),
    )
