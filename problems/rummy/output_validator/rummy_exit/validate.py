#!/usr/bin/env python3
"""Output validator for rummy (answers by exit code).

Kattis convention: ``validate.py input answer feedback_dir/ < team_output``; exit 42 = accept,
43 = reject. With ``answer: exit_code`` (judge.yaml) the team output is the program's exit status as a
decimal number and a newline (``0`` means "layable", anything else "not layable"); the answer file
holds ``0`` or ``1``. Only zero versus non-zero is compared.

Anything that is not the judge's exit-status text (or an answer file that disagrees with the
reference solution) is the judge's or the package's fault, not the contestant's: the validator then
exits 1, which the judge reports as JE.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from reference import rummy

STATUS = re.compile(r"\s*(-?[0-9]+)\s*")


def judge_error(message: str) -> int:
    print(f"rummy validator: {message}", file=sys.stderr)
    return 1


def describe(status: int) -> str:
    return f"exit status {status} ({'layable' if status == 0 else 'not layable'})"


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        return judge_error("usage: validate.py input answer feedback_dir [args] < team_output")
    input_file, answer_file, feedback = Path(argv[1]), Path(argv[2]), Path(argv[3])
    expected_text = answer_file.read_text()
    if expected_text.strip() not in ("0", "1"):
        return judge_error(f"answer file {answer_file} should hold 0 or 1, holds {expected_text[:40]!r}")
    expected = int(expected_text)
    truth = rummy.exit_status(rummy.parse_input(input_file.read_text()))  # cross-check the answer file
    if truth != expected:
        return judge_error(f"answer file says {expected}, the reference says {truth}")
    team_text = sys.stdin.read()
    match = STATUS.fullmatch(team_text)
    if match is None:
        return judge_error(
            f"team output {team_text[:40]!r} is not an exit status: is `answer: exit_code` (judge.yaml) honoured?"
        )
    status = int(match.group(1))
    feedback.mkdir(parents=True, exist_ok=True)
    if (status == 0) == (expected == 0):
        (feedback / "judgemessage.txt").write_text(f"correct: {describe(status)}\n")
        return 42
    (feedback / "judgemessage.txt").write_text(
        f"wrong: {describe(status)}, but the cards are {'' if expected == 0 else 'not '}layable\n"
    )
    return 43


if __name__ == "__main__":
    sys.exit(main(sys.argv))
