"""The default output validator: Kattis' token comparison, as a pure function.

Flags (Kattis): ``case_sensitive``, ``space_change_sensitive``, ``float_relative_tolerance ε``,
``float_absolute_tolerance ε``, ``float_tolerance ε`` (both). As in problemtools' default validator,
tokens are compared case-insensitively unless ``case_sensitive`` is given, and whitespace only separates
tokens unless ``space_change_sensitive`` is given.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class CheckResult:
    accepted: bool
    message: str


@dataclass(frozen=True)
class CheckerFlags:
    case_sensitive: bool = False
    space_change_sensitive: bool = False
    float_abs: float | None = None
    float_rel: float | None = None


class FlagError(ValueError):
    pass


def parse_flags(args: tuple[str, ...]) -> CheckerFlags:
    case = space = False
    f_abs: float | None = None
    f_rel: float | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "case_sensitive":
            case = True
        elif a == "space_change_sensitive":
            space = True
        elif a in ("float_relative_tolerance", "float_absolute_tolerance", "float_tolerance"):
            if i + 1 >= len(args):
                raise FlagError(f"default validator: {a} needs a value")
            try:
                eps = float(args[i + 1])
            except ValueError:
                raise FlagError(f"default validator: {a} needs a number, not {args[i + 1]!r}") from None
            if a != "float_absolute_tolerance":
                f_rel = eps
            if a != "float_relative_tolerance":
                f_abs = eps
            i += 1
        else:
            raise FlagError(f"default validator: unknown flag {a!r}")
        i += 1
    return CheckerFlags(case, space, f_abs, f_rel)


_SPACE_SPLIT = re.compile(rb"(\s+)")


def _tokens(data: bytes, space_sensitive: bool) -> list[bytes]:
    if space_sensitive:
        return [t for t in _SPACE_SPLIT.split(data) if t != b""]
    return data.split()


def _as_float(token: bytes) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _show(token: bytes) -> str:
    text = token.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:37] + "...")


def check(expected: bytes, actual: bytes, flags: CheckerFlags = CheckerFlags()) -> CheckResult:
    want = _tokens(expected, flags.space_change_sensitive)
    got = _tokens(actual, flags.space_change_sensitive)
    floats = flags.float_abs is not None or flags.float_rel is not None
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        if w == g:
            continue
        if not flags.case_sensitive and w.lower() == g.lower():
            continue
        if floats:
            wf, gf = _as_float(w), _as_float(g)
            if wf is not None:
                if gf is None:
                    return CheckResult(False, f"token {i + 1}: expected a number {_show(w)}, got {_show(g)}")
                diff = abs(wf - gf)
                if (flags.float_abs is not None and diff <= flags.float_abs) or (
                    flags.float_rel is not None and diff <= flags.float_rel * abs(wf)
                ):
                    continue
                return CheckResult(False, f"token {i + 1}: expected {_show(w)}, got {_show(g)} (off by {diff:g})")
        return CheckResult(False, f"token {i + 1}: expected {_show(w)}, got {_show(g)}")
    if len(got) < len(want):
        return CheckResult(False, f"output ends early: expected {len(want)} tokens, got {len(got)}")
    if len(got) > len(want):
        return CheckResult(False, f"extra output after {len(want)} tokens: {_show(got[len(want)])}")
    return CheckResult(True, "")
