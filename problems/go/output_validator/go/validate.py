"""Output validator of problem ``go`` (multi-pass: encode, then decode in a fresh sandbox).

Kattis convention: ``validate.py input_file answer_file feedback_dir/ < team_output``; exit 42 accepts
the pass, 43 rejects it. The answer file is the board (19 lines). The pass is told apart by state kept
in the feedback directory, which persists across the passes of one test:

* pass 1 (no ``encoding.bin`` yet): the team output is the encoding, raw bytes. More than 80 bytes is
  rejected. Otherwise it is saved to ``encoding.bin`` and ``nextpass.in`` = ``DECODE\\n`` + the bytes.
* pass 2: the team output must be the board: 19 whitespace-separated tokens equal to the 19 rows (so
  trailing spaces, ``\\r\\n`` or a missing last newline are forgiven). Accepted: ``score.txt`` =
  100 at <= 72 bytes, linear down to 50 at 80 bytes; ``metric.txt`` = the encoding's length in bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from reference import go

ACCEPT = 42
REJECT = 43
STATE = "encoding.bin"


def first_difference(expected: go.Board, tokens: list[str]) -> str | None:
    """A message about the first way ``tokens`` differ from the board, or None when they match."""
    if len(tokens) != go.SIZE:
        return f"expected {go.SIZE} lines of the board, got {len(tokens)} tokens"
    for r, (want, got) in enumerate(zip(expected, tokens), start=1):  # noqa: B905 - pypy3 (3.9): no strict=
        if got == want:
            continue
        if len(got) != go.SIZE:
            return f"line {r}: expected {go.SIZE} characters, got {len(got)}"
        c = next(i for i, (a, b) in enumerate(zip(want, got)) if a != b)  # noqa: B905 - lengths equal
        return f"line {r}, column {c + 1}: expected {want[c]!r}, got {got[c]!r}"
    return None


def encode_pass(team: bytes, feedback: Path) -> int:
    n = len(team)
    if n > go.MAX_BYTES:
        (feedback / "judgemessage.txt").write_text(f"encoding of {n} bytes: more than the allowed {go.MAX_BYTES}\n")
        return REJECT
    (feedback / STATE).write_bytes(team)
    (feedback / "nextpass.in").write_bytes(go.DECODE_HEADER + team)
    (feedback / "judgemessage.txt").write_text(f"encoded in {n} bytes\n")
    return ACCEPT


def decode_pass(team: bytes, expected: go.Board, feedback: Path) -> int:
    # The last pass must leave no nextpass.in behind (pass 1's has been consumed).
    (feedback / "nextpass.in").unlink(missing_ok=True)
    n = len((feedback / STATE).read_bytes())
    problem = first_difference(expected, [t.decode("latin-1") for t in team.split()])
    if problem is not None:
        (feedback / "judgemessage.txt").write_text(f"decoded from {n} bytes: wrong board: {problem}\n")
        return REJECT
    points = go.score(n)
    if points is None:  # pass 1 let it through, so this cannot happen
        raise SystemExit(f"encoding of {n} bytes reached pass 2")
    (feedback / "judgemessage.txt").write_text(f"board restored from {n} bytes: score {points:g}\n")
    (feedback / "score.txt").write_text(f"{points:.6f}\n")
    (feedback / "metric.txt").write_text(f"{n}\n")
    return ACCEPT


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print("usage: validate.py input_file answer_file feedback_dir/ < team_output", file=sys.stderr)
        return 2
    test_input = Path(argv[1]).read_bytes()
    expected = go.parse_board(Path(argv[2]).read_bytes())
    feedback = Path(argv[3])
    if test_input.startswith(go.ENCODE_HEADER) and go.parse_input(test_input) != expected:
        print("the test's .in and .ans hold different boards", file=sys.stderr)
        return 2
    team = sys.stdin.buffer.read()
    if not (feedback / STATE).exists():
        return encode_pass(team, feedback)
    return decode_pass(team, expected, feedback)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
