"""`judge contest init`'s times: ``--start`` (a TIME, or ``+SPAN`` from now), ``--duration``, ``--freeze``."""

from __future__ import annotations

import argparse
import math
import re
import time

from judge.commands.common import UsageError
from judge.serve.model.times import TimeError, parse_reltime, parse_time

_SPAN = re.compile(r"(\d+(?:\.\d+)?)([smh]?)")


def _span(text: str, option: str) -> float:
    """A length of time: ``h:mm:ss`` (a RELTIME) or a number of seconds, or with ``s``, ``m`` or ``h`` (``90m``)."""
    m = _SPAN.fullmatch(text.strip())
    if m:
        return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]
    try:
        return parse_reltime(text, option)
    except TimeError:
        raise UsageError(f"{option} {text!r}: expected a length like 0:30:00, 90m, 45s or 2h") from None


def demo_times(args: argparse.Namespace) -> tuple[float, float, float]:
    """`judge contest init`'s start (``--start``: a TIME, or ``+SPAN`` from now; default now, to the minute),
    duration (default 5 h) and freeze (default 1 h; 0: never frozen)."""
    now = time.time()
    if args.start is None:
        start = now // 60 * 60
    elif args.start.startswith("+"):
        start = float(math.ceil(now + _span(args.start[1:], "--start +")))  # whole seconds
    else:
        try:
            start = parse_time(args.start, "--start")
        except TimeError as exc:
            raise UsageError(f"{exc} (or +SPAN from now, e.g. +2m)") from None
    duration = _span(args.duration, "--duration")
    freeze = _span(args.freeze, "--freeze")
    if duration <= 0:
        raise UsageError(f"--duration {args.duration}: must be longer than 0")
    if not 0 <= freeze <= duration:
        raise UsageError(f"--freeze {args.freeze}: must be between 0 (never frozen) and the duration")
    return start, duration, freeze
