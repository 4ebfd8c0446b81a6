#!/usr/bin/env python3
"""Input validator for klondike: exit 42 if stdin is a valid test, 43 (with a message on stderr) if not.

    solve n            1 <= n <= 1000, then n lines of 52 distinct cards (rank A23456789TJQK + suit SHDC)
    stats N seed       1000 <= N <= 100000, 0 <= seed <= 2^31 - 1

Strict format: single spaces, one trailing newline per line, no blank lines, no leading zeros.
"""

from __future__ import annotations

import re
import sys

CARD = r"[A2-9TJQK][SHDC]"
DEAL = re.compile(rf"{CARD}(?: {CARD}){{51}}")
NUMBER = r"(0|[1-9][0-9]*)"


def check(text: str) -> str | None:
    """None if valid, else the reason."""
    if not text.endswith("\n"):
        return "the input must end with a newline"
    lines = text[:-1].split("\n")
    head = lines[0]
    if m := re.fullmatch(rf"stats {NUMBER} {NUMBER}", head):
        n, seed = int(m[1]), int(m[2])
        if not 1000 <= n <= 100_000:
            return f"stats: N = {n} out of 1000..100000"
        if not 0 <= seed <= 2**31 - 1:
            return f"stats: seed = {seed} out of 0..2^31-1"
        return None if len(lines) == 1 else "stats: one line only"
    m = re.fullmatch(rf"solve {NUMBER}", head)
    if not m:
        return f"first line must be 'solve n' or 'stats N seed', not {head[:40]!r}"
    n = int(m[1])
    if not 1 <= n <= 1000:
        return f"solve: n = {n} out of 1..1000"
    if len(lines) != n + 1:
        return f"solve: {n} deals announced, {len(lines) - 1} lines follow"
    for i, line in enumerate(lines[1:], 1):
        if not DEAL.fullmatch(line):
            return f"deal {i}: not 52 cards separated by single spaces"
        if len(set(line.split())) != 52:
            return f"deal {i}: a card appears twice"
    return None


def main() -> None:
    try:
        text = sys.stdin.buffer.read().decode("ascii")
    except UnicodeDecodeError:
        print("input is not ASCII", file=sys.stderr)
        sys.exit(43)
    reason = check(text)
    if reason:
        print(reason, file=sys.stderr)
        sys.exit(43)
    sys.exit(42)


if __name__ == "__main__":
    main()
