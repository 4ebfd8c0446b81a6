"""Input validator of problem ``go``: exit 42 when stdin is exactly ``ENCODE\\n`` and a 19x19 board.

The board is 19 lines of 19 characters from ``.``, ``B``, ``W``, every line ending in ``\\n``;
nothing else (no ``\\r``, no trailing spaces, no blank lines). Standalone: no imports from the judge.
"""

from __future__ import annotations

import re
import sys

VALID = 42
INVALID = 43
TEST_FILE = re.compile(rb"ENCODE\n(?:[.BW]{19}\n){19}")


def main() -> int:
    data = sys.stdin.buffer.read()
    if TEST_FILE.fullmatch(data):
        return VALID
    if not data.startswith(b"ENCODE\n"):
        print("the first line is not ENCODE", file=sys.stderr)
        return INVALID
    lines = data[len(b"ENCODE\n") :].split(b"\n")
    for i, line in enumerate(lines[:-1], start=1):
        if not re.fullmatch(rb"[.BW]{19}", line):
            print(f"board line {i} is not 19 characters from '.BW': {line[:40]!r}", file=sys.stderr)
            return INVALID
    if lines[-1] != b"":
        print("the last line does not end in a newline", file=sys.stderr)
    else:
        print(f"expected 19 board lines, got {len(lines) - 1}", file=sys.stderr)
    return INVALID


if __name__ == "__main__":
    sys.exit(main())
