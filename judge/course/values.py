"""The values an assignment's YAML holds, read one by one: times, spans, percentages, ids, strict mappings.
Every mistake is a ``CourseError`` naming where it is, in one line."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from judge.scoreboard.times import TimeError, parse_reltime, parse_time


class CourseError(ValueError):
    """A course's file, an assignment's key or a roster is wrong: one line naming the file and the key."""


_SPAN_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])")
_SPAN = re.compile(r"^(\s*\d+(?:\.\d+)?\s*[dhms])+\s*$")
_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,35}$")
UNITS_S = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
LONGEST_SPAN_S = 366 * 86400.0  # a term is shorter than a year


def valid_id(value: str) -> bool:
    """The CCS spec's ID (as teams' and contests' ids): ``[A-Za-z0-9_.-]``, at most 36, not starting with
    ``-`` or ``.``, not ending with ``.``."""
    return bool(_ID.match(value)) and not value.endswith(".")


def time_s(value: Any, where: str) -> float:
    """An absolute time with a time zone (``2026-09-08T23:59:00+02:00``), as seconds since the epoch."""
    try:
        return parse_time(value, where)
    except TimeError as exc:
        raise CourseError(str(exc)) from None


def span_s(value: Any, where: str) -> float:
    """A length of time: ``2d``, ``36h``, ``1d12h``, ``90m``, ``45s``, or ``h:mm:ss``; positive, under a year."""
    if isinstance(value, bool):
        raise CourseError(f"{where}: expected a length of time like 1d, 36h or 90m, got {value!r}")
    if isinstance(value, str) and _SPAN.match(value):
        total = sum(float(n) * UNITS_S[u] for n, u in _SPAN_PART.findall(value))
    else:
        try:
            total = parse_reltime(value, where)
        except TimeError:
            raise CourseError(
                f"{where}: expected a length of time like 1d, 36h, 90m or 1:30:00, got {value!r}"
            ) from None
    if not 0 < total <= LONGEST_SPAN_S or not math.isfinite(total):
        raise CourseError(f"{where}: {value!r} must be longer than 0 and at most a year")
    return total


def percent(value: Any, where: str) -> float:
    """A credit in percent, 0 to 100 (``80`` or ``"80%"``)."""
    if isinstance(value, str) and value.strip().endswith("%"):
        value = value.strip()[:-1].strip()
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CourseError(f"{where}: expected a percentage from 0 to 100, got {value!r}")
    if not 0 <= value <= 100:
        raise CourseError(f"{where}: {value:g} is not between 0 and 100 (percent)")
    return float(value)


def positive_int(value: Any, where: str, *, most: int = 1_000_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise CourseError(f"{where}: expected a whole number from 1 to {most}, got {value!r}")
    return value


def an_id(value: Any, where: str) -> str:
    """A student's, a section's, a team's or a problem's id, as written (numbers too: YAML reads 1234567 as one)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise CourseError(f"{where}: expected an id, got {value!r}")
    text = str(value)
    if not valid_id(text):
        raise CourseError(f"{where}: {text!r} is not a valid id (letters, digits, _ . -; at most 36)")
    return text


def ids(value: Any, where: str) -> tuple[str, ...]:
    """One id, or a list of them (no repeats)."""
    items = value if isinstance(value, list) else [value]
    out = tuple(an_id(v, f"{where}[{i}]" if isinstance(value, list) else where) for i, v in enumerate(items))
    if not out:
        raise CourseError(f"{where}: names nobody (an empty list)")
    twice = sorted({i for i in out if out.count(i) > 1})
    if twice:
        raise CourseError(f"{where}: {twice[0]!r} is listed twice")
    return out


def mapping(value: Any, where: str, keys: Sequence[str]) -> Mapping[str, Any]:
    """A mapping whose keys are all among ``keys`` (a misspelt key is an error, never silently ignored)."""
    if not isinstance(value, dict):
        raise CourseError(f"{where}: expected a mapping (keys: {', '.join(keys)}), got {type(value).__name__}")
    unknown = sorted(str(k) for k in value if k not in keys)
    if unknown:
        raise CourseError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(keys)})")
    return value


def choice(value: Any, where: str, options: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in options:
        raise CourseError(f"{where}: expected one of {', '.join(options)}, got {value!r}")
    return value


def text(value: Any, where: str) -> str:
    if not isinstance(value, str | int | float) or isinstance(value, bool) or not str(value).strip():
        raise CourseError(f"{where}: expected some text, got {value!r}")
    return str(value).strip()
