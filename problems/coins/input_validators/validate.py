"""Input validator of problem ``coins``: exit 42 when stdin is one row of 2 to 9 coins, and decided.

Format: one line of ``A`` and ``B`` only, ending in ``\\n``; nothing else (no ``\\r``, no spaces, no blank
lines). The statement also promises that when no goal can be reached, only finitely many rows can be
reached: the validator checks it by running the reference's breadth-first search, which must either find
a goal or run out of rows (within ``reference.coins`` limits; an undecided start is rejected).
"""

from __future__ import annotations

import re
import sys

from reference import coins

VALID = 42
INVALID = 43
PROMISE_ROWS = 500_000  # the search must decide the start within this many rows (the data needs < 60 000)
TEST_FILE = re.compile(rb"[AB]{%d,%d}\n" % (coins.MIN_COINS, coins.MAX_COINS))


def main() -> int:
    data = sys.stdin.buffer.read()
    if not TEST_FILE.fullmatch(data):
        print(
            f"expected one line of {coins.MIN_COINS} to {coins.MAX_COINS} characters A or B, "
            f"then a newline; got {data[:40]!r}",
            file=sys.stderr,
        )
        return INVALID
    start = data.decode().strip()
    try:
        coins.search(start, PROMISE_ROWS)
    except coins.Undecided as why:
        print(f"the promise is not kept (or not provable): {why}", file=sys.stderr)
        return INVALID
    return VALID


if __name__ == "__main__":
    sys.exit(main())
