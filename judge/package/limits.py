"""problem.yaml ``limits`` (and the legacy ``.timelimit`` file) -> a frozen ``ProblemLimits``.

2025-09 divides them into submission limits (``time_limit``, ``memory``, ``output``, ``code``; the time
limit a multiple of ``time_resolution``, which is also the limit when none is given) and resource
guarantees (``compilation_*``, ``validation_*``: the judge gives at least that much). See
docs/package-format.md, "problem.yaml". Pure: reads files, runs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.package.errors import PackageError
from judge.package.keys import Place, Tracked, check_all_read
from judge.package.testgroups import parse_number

MIB = 1024 * 1024
DEFAULT_TIME_S = 1.0
RESOLUTION_EPS = 1e-4  # how far from a multiple of time_resolution a time limit may be (float noise)


@dataclass(frozen=True)
class ProblemLimits:
    time_s: float = DEFAULT_TIME_S
    memory_kib: int = 1024 * 1024
    output_bytes: int = 8 * MIB
    validation_passes: int = 2
    code_bytes: int | None = None  # 2025-09 `code`: a larger submission is refused (None: no limit)
    compilation_time_s: float | None = None  # resource guarantees (None: the judge's own)
    compilation_memory_kib: int | None = None
    validation_time_s: float | None = None
    validation_memory_kib: int | None = None
    validation_output_bytes: int | None = None
    time_resolution_s: float = 1.0
    ac_to_time_limit: float = 2.0  # time_multipliers
    time_limit_to_tle: float = 1.5
    time_limit_given: bool = True  # False: the package gave none (2025-09: time_resolution is the limit)

    @property
    def wall_time_s(self) -> float:
        """1.5 x the time limit + 2 s: a program that computes always meets its CPU limit first (the CPU
        kill comes at most 2 s after it, runner/limits.py), one that sleeps or blocks for twice the time
        limit is a TLE from 4 s limits on (DOMjudge's expectation)."""
        return 1.5 * self.time_s + 2


def _positive(raw: Mapping[str, Any], key: str, default: float | None) -> float | None:
    if key not in raw:
        return default
    value = parse_number(raw[key], f"limits.{key}")
    if value <= 0:
        raise PackageError(f"problem.yaml: limits.{key} must be positive, not {raw[key]!r}")
    return value


def _multipliers(raw: Mapping[str, Any]) -> tuple[float, float]:
    value = raw.get("time_multipliers") or {}
    if not isinstance(value, dict):
        raise PackageError("problem.yaml: limits.time_multipliers must be a mapping")
    unknown = sorted(set(value) - {"ac_to_time_limit", "time_limit_to_tle"})
    if unknown:
        raise PackageError(f"problem.yaml: limits.time_multipliers: unknown key {unknown[0]!r}")
    out = []
    for key, default in (("ac_to_time_limit", 2.0), ("time_limit_to_tle", 1.5)):
        factor = parse_number(value.get(key, default), f"limits.time_multipliers.{key}")
        if factor < 1:
            raise PackageError(f"problem.yaml: limits.time_multipliers.{key} must be at least 1")
        out.append(factor)
    return out[0], out[1]


def _time(raw: Mapping[str, Any], root: Path, resolution: float, *, strict: bool) -> tuple[float, bool]:
    """The time limit and whether the package gave one (``strict``, 2025-09: a multiple of the resolution)."""
    timelimit_file = root / ".timelimit"
    if "time_limit" in raw:
        time_s = _positive(raw, "time_limit", None)
        assert time_s is not None
        steps = time_s / resolution
        if strict and abs(steps - round(steps)) > RESOLUTION_EPS:
            raise PackageError(
                f"problem.yaml: limits.time_limit {time_s:g} is not a multiple of time_resolution {resolution:g}"
            )
        return time_s, True
    if timelimit_file.is_file():
        try:
            time_s = float(timelimit_file.read_text().split()[0])
        except (ValueError, IndexError):
            raise PackageError(f"{timelimit_file}: expected a number of seconds") from None
        if time_s <= 0:
            raise PackageError("limits.time_limit must be positive")
        return time_s, True
    return (resolution if strict else DEFAULT_TIME_S), False


def _mib(raw: Mapping[str, Any], key: str) -> int | None:
    value = _positive(raw, key, None)
    return None if value is None else int(value * MIB)


def parse_limits(config: Mapping[str, Any], root: Path, *, strict: bool) -> ProblemLimits:
    """``limits`` of problem.yaml (``strict``: a 2025-09 package, whose keys are checked and tracked)."""
    raw: Any = config.get("limits") or {}
    if not isinstance(raw, dict):
        raise PackageError("problem.yaml: `limits` must be a mapping")
    if strict:  # (its unknown keys are warned about with problem.yaml's)
        raw = Tracked(raw, "problem.yaml limits")
    resolution = _positive(raw, "time_resolution", 1.0)
    assert resolution is not None
    time_s, given = _time(raw, root, resolution, strict=strict)
    ac_to_tl, tl_to_tle = _multipliers(raw)
    code = _positive(raw, "code", None)
    compile_mib = _positive(raw, "compilation_memory", None)
    validation_mib = _positive(raw, "validation_memory", None)
    limits = ProblemLimits(
        time_s=time_s,
        memory_kib=int(parse_number(raw.get("memory", 1024), "limits.memory") * 1024),
        output_bytes=int(parse_number(raw.get("output", 8), "limits.output") * MIB),
        validation_passes=int(parse_number(raw.get("validation_passes", 2), "limits.validation_passes")),
        code_bytes=None if code is None else int(code * 1024),
        compilation_time_s=_positive(raw, "compilation_time", None),
        compilation_memory_kib=None if compile_mib is None else int(compile_mib * 1024),
        validation_time_s=_positive(raw, "validation_time", None),
        validation_memory_kib=None if validation_mib is None else int(validation_mib * 1024),
        validation_output_bytes=_mib(raw, "validation_output"),
        time_resolution_s=resolution,
        ac_to_time_limit=ac_to_tl,
        time_limit_to_tle=tl_to_tle,
        time_limit_given=given,
    )
    if isinstance(raw, Tracked):
        check_all_read(raw, Place.LIMITS)
    return limits
