#!/usr/bin/env python3
"""Input validator of problem ``memory``: exit 42 when stdin is a valid test, 43 otherwise (reason on stderr).

A test is either ``random <seed>`` or ``fixed <name>`` followed by a line of 50 letters A..Y, each exactly
twice, or the single line ``adversary <oldest|newest|random> <seed>``; every line ends with a newline and
there is no other white space.
"""

from __future__ import annotations

import sys

from reference.memory import parse_spec


def main() -> int:
    data = sys.stdin.buffer.read()
    try:
        parse_spec(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as error:
        print(f"invalid test: {error}", file=sys.stderr)
        return 43
    return 42


if __name__ == "__main__":
    sys.exit(main())
