"""The ICPC Contest API's times, as the CCS specs write them: absolute ``TIME`` (ISO 8601 with a time zone)
and relative ``RELTIME`` (``h:mm:ss.uuu``). Pure. `judge serve` speaks them (serve/model/times.py adds its
clock) and `judge grade --scoreboard pass-fail` reads submission times in them (grade/times.py)."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any


class TimeError(ValueError):
    """A malformed TIME or RELTIME: one line for the organizer or the client."""


_TIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?\s*(Z|[+-]\d{2}(?::?\d{2})?)$")
_RELTIME = re.compile(r"^(-)?(\d+):([0-5]\d):([0-5]\d)(\.\d{1,6})?$")


def format_time(t: float) -> str:
    """``2026-11-22T10:00:00.000+00:00`` (always UTC, always milliseconds)."""
    ms = int(round(t * 1000))
    dt = datetime.fromtimestamp(ms // 1000, UTC)
    return f"{dt:%Y-%m-%dT%H:%M:%S}.{ms % 1000:03d}+00:00"


def parse_time(value: Any, where: str) -> float:
    """A TIME from YAML or JSON (a string, or the datetime PyYAML makes of an unquoted one). The time
    zone is required: a contest must not start at a different hour on another machine."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise TimeError(f"{where}: {value} has no time zone (write e.g. 2026-11-22T10:00:00+01 or ...Z)")
        return value.timestamp()
    if not isinstance(value, str):
        raise TimeError(f"{where}: expected a time like 2026-11-22T10:00:00+01, got {value!r}")
    m = _TIME.match(value.strip())
    if not m:
        raise TimeError(f"{where}: {value!r} is not a time like 2026-11-22T10:00:00.000+01 (a time zone is required)")
    iso = value.strip().replace(" ", "T", 1)
    zone = m.group(8)
    if zone == "Z":
        iso = iso[:-1] + "+00:00"
    elif len(zone) == 3:  # +01
        iso += ":00"
    elif ":" not in zone:  # +0100
        iso = iso[:-2] + ":" + iso[-2:]
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError as exc:
        raise TimeError(f"{where}: {value!r}: {exc}") from None


def format_reltime(seconds: float) -> str:
    """``h:mm:ss.uuu``, with a leading ``-`` before the contest starts."""
    ms = int(round(abs(seconds) * 1000))
    sign = "-" if seconds < 0 and ms else ""
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{sign}{h}:{m:02d}:{s:02d}.{ms:03d}"


def parse_reltime(value: Any, where: str) -> float:
    """A RELTIME: ``h:mm:ss(.uuu)``; also a number of seconds (PyYAML reads an unquoted ``5:00:00`` as
    the sexagesimal integer 18000)."""
    if isinstance(value, bool):
        raise TimeError(f"{where}: expected a duration like 5:00:00, got {value!r}")
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise TimeError(f"{where}: expected a duration like 5:00:00, got {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise TimeError(f"{where}: expected a duration like 5:00:00, got {value!r}")
    m = _RELTIME.match(value.strip())
    if not m:
        raise TimeError(f"{where}: {value!r} is not a duration like 5:00:00 (h:mm:ss)")
    total = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4)) + float(m.group(5) or 0)
    return -total if m.group(1) else total
