"""A request's JSON body, read strictly (RFC 8259): whatever a client sends, the answer is the value or a
``Refused(400)`` with one line, never another exception (docs/security.md, F6).

Python's ``json.loads`` alone raises ``RecursionError`` on deep nesting (``[`` x 100,000), ``ValueError`` on an
integer of more than 4,300 digits, accepts ``NaN`` and ``Infinity`` (not JSON), reads ``1e999`` as infinity and
``"\\ud800"`` as a lone surrogate that no UTF-8 encoder (SQLite's, the answer's) can write. Here each is a 400.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from judge.serve.model.errors import Refused

MAX_DEPTH = 32  # our bodies nest 3 deep; the spec's objects a few more
MAX_DIGITS = 40  # an integer's digits (ids and times are strings; no property needs more)
# a string literal (skipped whole, in C), or a bracket: what the depth scan looks at
_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)


class _Bad(ValueError):
    """A value JSON allows to parse but we refuse (its message is the client's)."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Bad(f"a number of {len(text.lstrip('-'))} digits (at most {MAX_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Bad(f"the number {text if len(text) <= 20 else text[:20] + '...'} is out of range")
    return value


def _constant(name: str) -> Any:
    raise _Bad(f"{name} is not JSON")


def _depth(body: bytes) -> int:
    """How deep the brackets outside strings nest (at most the number of opening brackets: a body with few
    of them, as a submission's base64, is not scanned)."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return 0
    deepest = depth = 0
    for m in _TOKENS.finditer(body):
        token = m.group()
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


def parse_json_body(body: bytes) -> Any:
    """The JSON value of ``body``. Raises Refused (400) with one line for anything else."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "the body must be JSON (it is not UTF-8)") from None
    if _depth(body) > MAX_DEPTH:
        raise Refused(400, f"the body must be JSON nested at most {MAX_DEPTH} deep")
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except _Bad as exc:
        raise Refused(400, f"the body must be JSON: {exc}") from None
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        raise Refused(400, "the body must be JSON") from None
    if _SURROGATE.search(body) is None:  # a lone surrogate can only come from such an escape
        return value
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(400, "the body must be JSON of valid Unicode (it holds a lone surrogate)") from None
    return value
