"""Our extensions of the Kattis format, read from ``judge.yaml`` beside ``problem.yaml``.

Kattis tools reject keys they do not know in problem.yaml, so everything only this judge understands lives
in its own file, which they ignore. (Older packages kept the same keys under ``judge:`` in problem.yaml;
that is still read.) Pure: reads files, runs nothing. See docs/package-format.md, "Our extensions".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Any

from judge.package.testgroups import PackageError, read_yaml

JUDGE_YAML = "judge.yaml"


class InputMode(StrEnum):
    STDIN = "stdin"
    ARGS = "args"


class AnswerMode(StrEnum):
    STDOUT = "stdout"
    EXIT_CODE = "exit_code"


@dataclass(frozen=True)
class StubSpec:
    """A function-style submission: the package supplies the main program."""

    language: str
    detect: str  # regex searched in the submission's source
    submission_name: str
    main: str
    files: Path  # the folder whose files are copied in beside the submission

    def matches(self, source_text: str) -> bool:
        return re.search(self.detect, source_text) is not None


@dataclass(frozen=True)
class MetricSpec:
    name: str
    aggregate: str = "mean"  # mean | max | min | sum
    better: str = "lower"  # lower | higher
    groups: tuple[str, ...] = ()  # restrict to these group names (empty = all secret tests)


@dataclass(frozen=True)
class Extensions:
    input_mode: InputMode = InputMode.STDIN
    answer_mode: AnswerMode = AnswerMode.STDOUT
    stubs: Mapping[str, StubSpec] = field(default_factory=dict)
    metric: MetricSpec | None = None
    # submissions (path under submissions/) that `judge export` leaves out, with the reason
    export_leave_out: Mapping[str, str] = field(default_factory=dict)
    source: str = ""  # where they were read: "judge.yaml", "problem.yaml judge:" or "" (none)


KNOWN_KEYS = ("input", "answer", "stubs", "metric", "export")


def _relative_folder(value: Any, root: Path, where: str) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise PackageError(f"{where}: expected a folder of the package, relative to it")
    rel = PurePosixPath(value.strip())
    if rel.is_absolute() or ".." in rel.parts:
        raise PackageError(f"{where}: {value!r} must be a folder inside the package")
    return root / rel


def _stubs(raw: Any, root: Path, src: str) -> dict[str, StubSpec]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise PackageError(f"{src} stubs: expected a mapping language -> {{detect, submission_name, main}}")
    stubs: dict[str, StubSpec] = {}
    for lang, spec in raw.items():
        where = f"{src} stubs.{lang}"
        if not isinstance(spec, dict) or not {"detect", "submission_name", "main"} <= spec.keys():
            raise PackageError(f"{where}: needs detect, submission_name and main")
        try:
            re.compile(spec["detect"])
        except (re.error, TypeError) as exc:
            raise PackageError(f"{where}.detect: bad regex: {exc}") from None
        files = _relative_folder(spec.get("files", f"include/{lang}"), root, f"{where}.files")
        if not (files / str(spec["main"])).is_file():
            raise PackageError(f"{where}: {files / str(spec['main'])} does not exist")
        stubs[str(lang)] = StubSpec(str(lang), spec["detect"], str(spec["submission_name"]), str(spec["main"]), files)
    return stubs


def _metric(m: Any, src: str) -> MetricSpec | None:
    if m is None:
        return None
    if not isinstance(m, dict) or "name" not in m:
        raise PackageError(f"{src} metric: needs at least `name`")
    if m.get("aggregate", "mean") not in ("mean", "max", "min", "sum"):
        raise PackageError(f"{src} metric.aggregate: mean, max, min or sum")
    if m.get("better", "lower") not in ("lower", "higher"):
        raise PackageError(f"{src} metric.better: lower or higher")
    return MetricSpec(
        str(m["name"]),
        m.get("aggregate", "mean"),
        m.get("better", "lower"),
        tuple(str(g) for g in m.get("groups", ())),
    )


def _export(raw: Any, src: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not set(raw) <= {"leave_out"}:
        raise PackageError(f"{src} export: expected a mapping with `leave_out`")
    leave = raw.get("leave_out") or {}
    if not isinstance(leave, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in leave.items()):
        raise PackageError(f"{src} export.leave_out: expected a mapping submission path -> reason")
    return {k.strip("/"): v for k, v in leave.items()}


def load_extensions(root: Path, problem_config: Mapping[str, Any]) -> Extensions:
    """Our extensions: ``judge.yaml`` (or, for older packages, the ``judge:`` key of problem.yaml)."""
    in_problem = problem_config.get("judge")
    path = root / JUDGE_YAML
    if path.is_file():
        if in_problem is not None:
            raise PackageError(f"{root.name}: extensions both in judge.yaml and under `judge:` in problem.yaml")
        raw: Any = read_yaml(path)
        src = JUDGE_YAML
    elif in_problem is not None:
        raw, src = in_problem, "problem.yaml judge:"
    else:
        return Extensions()
    if not isinstance(raw, dict):
        raise PackageError(f"{src}: expected a mapping")
    unknown = sorted(set(raw) - set(KNOWN_KEYS))
    if unknown:
        raise PackageError(f"{src}: unknown key {unknown[0]!r} (known: {', '.join(KNOWN_KEYS)})")
    try:
        input_mode = InputMode(raw.get("input", "stdin"))
        answer_mode = AnswerMode(raw.get("answer", "stdout"))
    except ValueError as exc:
        raise PackageError(f"{src}: {exc}") from None
    return Extensions(
        input_mode=input_mode,
        answer_mode=answer_mode,
        stubs=_stubs(raw.get("stubs"), root, src),
        metric=_metric(raw.get("metric"), src),
        export_leave_out=_export(raw.get("export"), src),
        source=src,
    )
