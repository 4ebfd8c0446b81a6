#!/usr/bin/env python3
"""Input validator for rummy: ``validate.py [linear] [max N] < X.in``; exit 42 = valid, 43 = invalid.

A test is one line: exactly 13 integers in 0..100, written without signs or leading zeros,
separated by single spaces, ending in a newline. Group arguments: ``linear`` -- the count of 13s
is 0 (no run can wrap around); ``max N`` -- every count is at most N.
"""

from __future__ import annotations

import re
import sys

NUMBERS = 13
MAX_COUNT = 100
LINE = re.compile(r"(0|[1-9][0-9]*)( (0|[1-9][0-9]*)){12}\n")


def check(text: str, args: list[str]) -> str | None:
    """None when ``text`` is a valid test for the group arguments ``args``, else why not."""
    max_count, linear = MAX_COUNT, False
    i = 0
    while i < len(args):
        if args[i] == "linear":
            linear = True
            i += 1
        elif args[i] == "max" and i + 1 < len(args) and args[i + 1].isdigit():
            max_count = min(max_count, int(args[i + 1]))
            i += 2
        else:
            raise SystemExit(f"validate.py: unknown argument {args[i]!r}")  # the package's own bug
    if LINE.fullmatch(text) is None:
        return f"not one line of {NUMBERS} plain non-negative integers separated by single spaces: {text[:80]!r}"
    counts = [int(tok) for tok in text.split()]
    for number, count in enumerate(counts, start=1):
        if count > max_count:
            return f"the count of {number}s is {count}, above {max_count}"
    if linear and counts[-1] != 0:
        return f"group 'linear' needs no 13s, got {counts[-1]}"
    return None


def main() -> int:
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        print("input is not ASCII", file=sys.stderr)
        return 43
    problem = check(text, sys.argv[1:])
    if problem is not None:
        print(problem, file=sys.stderr)
        return 43
    return 42


if __name__ == "__main__":
    sys.exit(main())
