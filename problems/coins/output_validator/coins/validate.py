"""Output validator of problem ``coins``: checks every move, scores 100 * optimal / used.

Kattis convention: ``validate.py input_file answer_file feedback_dir/ < team_output``; exit 42 accepts,
43 rejects. The answer file is the reference's shortest sequence (its length gives the optimum) or the
single word ``impossible``.

The team output is read as whitespace-separated words (so ``\\r\\n``, trailing spaces and a missing final
newline are forgiven); each word is a row. A row may carry leading or trailing ``.`` (they are trimmed:
rows that differ by a shift are the same row). Accepted: ``score.txt`` = 100 * optimal / used (100 for
a right ``impossible``, and for an already solved start answered with the start alone), ``metric.txt`` =
the number of moves used (not written for ``impossible``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from reference import coins

ACCEPT = 42
REJECT = 43
MAX_MOVES = 10_000  # the statement's limit on the length of a sequence
ROW_CHARACTERS = re.compile(r"[AB.]+")


class Rejected(Exception):
    pass


def expected_optimum(start: str, answer: bytes) -> int | None:
    """The optimum from the answer file (None: impossible), after checking the file is a real sequence."""
    words = answer.decode("ascii").split()
    if words == [coins.IMPOSSIBLE]:
        return None
    if not words or words[0] != start or not coins.is_goal(words[-1]):
        raise SystemExit(f"answer file is not a sequence from {start} to a goal")
    pairs = zip(words, words[1:])  # noqa: B905 - runs on pypy3 (Python 3.9) too: no strict=
    if not all(coins.is_move(a, b) for a, b in pairs):
        raise SystemExit("answer file holds an illegal move")
    return len(words) - 1


def rows_of(team: bytes) -> list[str]:
    try:
        words = team.decode("ascii").split()
    except UnicodeDecodeError:
        raise Rejected("the output is not ASCII text") from None
    if not words:
        raise Rejected("empty output")
    if len(words) > MAX_MOVES + 1:
        raise Rejected(f"{len(words) - 1} moves: more than {MAX_MOVES}")
    rows: list[str] = []
    for k, word in enumerate(words, start=1):
        if not ROW_CHARACTERS.fullmatch(word) or not coins.trim(word):
            shown = word if len(word) <= 40 else word[:40] + "..."
            raise Rejected(f"row {k} is not a row of A, B and '.' with at least one coin: {shown!r}")
        rows.append(coins.trim(word))
    return rows


def used_moves(start: str, rows: list[str]) -> int:
    """The number of moves of a legal sequence from ``start`` to a goal; Rejected otherwise."""
    if rows[0] != start:
        raise Rejected(f"row 1 is {rows[0]!r}, not the start {start!r}")
    for k in range(1, len(rows)):
        if not coins.is_move(rows[k - 1], rows[k]):
            raise Rejected(f"row {k + 1} ({rows[k]}) does not follow from row {k} ({rows[k - 1]}) by one move")
    if not coins.is_goal(rows[-1]):
        raise Rejected(f"the last row ({rows[-1]}) is not a goal")
    return len(rows) - 1


def judge(start: str, optimum: int | None, team: bytes, feedback: Path) -> int:
    try:
        words = team.split()
        if words == [coins.IMPOSSIBLE.encode()]:
            if optimum is not None:
                raise Rejected(f"'impossible', but a goal is reachable in {optimum} moves")
            (feedback / "judgemessage.txt").write_text("impossible: right\n")
            (feedback / "score.txt").write_text(f"{100:.6f}\n")
            return ACCEPT
        used = used_moves(start, rows_of(team))
    except Rejected as why:
        (feedback / "judgemessage.txt").write_text(f"{why}\n")
        return REJECT
    if optimum is None or used < optimum:
        # a legal sequence the reference says cannot exist: the package is wrong, not the team
        raise SystemExit(f"legal sequence of {used} moves, but the answer file says {optimum}")
    score = 100.0 if used == 0 else 100.0 * optimum / used
    moves = "1 move" if used == 1 else f"{used} moves"
    (feedback / "judgemessage.txt").write_text(f"{moves} (optimum {optimum}): score {score:.2f}\n")
    (feedback / "score.txt").write_text(f"{score:.6f}\n")
    (feedback / "metric.txt").write_text(f"{used}\n")
    return ACCEPT


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print("usage: validate.py input_file answer_file feedback_dir/ < team_output", file=sys.stderr)
        return 2
    start = coins.parse_input(Path(argv[1]).read_bytes())
    optimum = expected_optimum(start, Path(argv[2]).read_bytes())
    return judge(start, optimum, sys.stdin.buffer.read(), Path(argv[3]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
