"""When each submission of a contest folder was made: what `judge grade --scoreboard pass-fail` ranks by.

``SUBMISSIONS_DIR/times.yaml`` (optional) maps a submission's path, ``<contestant>/<file or folder>``, to
when it was made: a contest time (``"0:47:12"``, h:mm:ss since the start; a bare number is seconds, as YAML
reads an unquoted 1:02:03) or an absolute time with a time zone (``"2026-03-01T10:47:12+01:00"``). Its
key ``start`` is the contest's start, for the absolute times and the file times. A submission it does not
name was made when its file was last modified (a folder: its newest file). Without ``start``, the
contest starts at the earliest absolute time of all (so the first submission is at 0:00). Copies and
clones reset file times: for a board that must not change, write times.yaml.

`judge grade --assignment` (docs/course.md) needs when each submission was made, not how long after a start:
``made_at`` gives the absolute times (a contest time in times.yaml counts from its ``start``, else from the
assignment's opening).

Every mistake is a ``TimesError`` with one line. Nothing here runs a program.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from judge.grade.discovery import TIMES_NAME, Entry
from judge.scoreboard.times import TimeError, parse_reltime, parse_time

START_KEY = "start"


class TimesError(Exception):
    """times.yaml is malformed, names no submission, or puts one before the start (one line)."""


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TimesError(f"{path}: not readable YAML ({type(exc).__name__})") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise TimesError(f"{path}: expected a mapping of <contestant>/<file>: time (and `start`)")
    return data


def _when(value: Any, where: str) -> tuple[bool, float]:
    """(absolute?, seconds): an absolute TIME (since the epoch), or a contest time (since the start)."""
    try:
        if isinstance(value, datetime) or (isinstance(value, str) and "-" in value.strip()[1:]):
            return True, parse_time(value, where)
        return False, parse_reltime(value, where)
    except TimeError as exc:
        raise TimesError(str(exc)) from None


def _modified(path: Path) -> float:
    if path.is_dir():
        return max((p.stat().st_mtime for p in path.iterdir() if p.is_file()), default=path.stat().st_mtime)
    return path.stat().st_mtime


def submission_times(root: Path, entries: Sequence[Entry]) -> Mapping[str, float]:
    """Each entry's contest time in seconds, by its ``rel`` (``<contestant>/<file>``). Raises TimesError."""
    path = root / TIMES_NAME
    data = _read(path)
    start = None
    if START_KEY in data:
        absolute, start = _when(data[START_KEY], f"{path}: start")
        if not absolute:
            raise TimesError(f"{path}: start must be a time with a time zone, like 2026-03-01T10:00:00+01:00")
    given: dict[str, tuple[bool, float]] = {}
    for key, value in data.items():
        if key == START_KEY:
            continue
        if "/" not in key or not (root / key).exists():
            raise TimesError(f"{path}: {key!r} names no submission (write <contestant>/<file>)")
        given[key] = _when(value, f"{path}: {key}")
    when = {e.rel: given.get(e.rel) or (True, _modified(e.path)) for e in entries}
    if start is None:
        start = min((t for absolute, t in when.values() if absolute), default=0.0)
    out = {}
    for rel, (absolute, t) in when.items():
        out[rel] = t - start if absolute else t
        if out[rel] < 0:
            raise TimesError(f"{path}: {rel} was made {-out[rel]:.0f} s before the start")
    return out


def made_at(root: Path, entries: Sequence[Entry], default_start_s: float | None) -> Mapping[str, float]:
    """When each entry was made, in seconds since the epoch, by its ``rel``: times.yaml's absolute times, its
    contest times after its ``start`` (else after ``default_start_s``), else the file's time. Raises TimesError."""
    path = root / TIMES_NAME
    data = _read(path)
    start = default_start_s
    if START_KEY in data:
        absolute, start = _when(data[START_KEY], f"{path}: start")
        if not absolute:
            raise TimesError(f"{path}: start must be a time with a time zone, like 2026-03-01T10:00:00+01:00")
    out: dict[str, float] = {}
    given: dict[str, tuple[bool, float]] = {}
    for key, value in data.items():
        if key == START_KEY:
            continue
        if "/" not in key or not (root / key).exists():
            raise TimesError(f"{path}: {key!r} names no submission (write <contestant>/<file>)")
        given[key] = _when(value, f"{path}: {key}")
    for e in entries:
        absolute, t = given.get(e.rel) or (True, _modified(e.path))
        if not absolute and start is None:
            raise TimesError(
                f"{path}: {e.rel} has a time after the start, and neither times.yaml nor the assignment "
                "says when that is (write `start`, or an absolute time)"
            )
        out[e.rel] = t if absolute else t + (start or 0.0)
    return out
