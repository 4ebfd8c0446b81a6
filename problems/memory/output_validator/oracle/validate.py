#!/usr/bin/env python3
"""Interactive oracle of problem ``memory`` (Kattis convention).

``validate.py X.in X.ans feedback_dir/ [candies|flips]``, stdin = the program's output, stdout = its input.

Protocol: the program writes one card number per line; the oracle answers each with the card's letter, or
``0`` for an invalid flip (a card that left the game, or the 1st card of the current turn again). After the
answer to the flip that removes the last pair it writes ``END``; the program must then exit without
writing anything more.

* Not a number, a number outside 1..50, more than 1000 card numbers, anything after END → PV (exit 43,
  ``judgemessage.txt`` starting with ``PV:``).
* Group ``candies``: accepted when all 25 candies were earned (the game need not be over).
* Group ``flips`` (the default): accepted when the game is over after at most 100 valid flips.
* A program that stops talking is killed by the judge's time limit (TLE); the oracle just waits.

``X.in`` is a layout (``random <seed>`` / ``fixed <name>`` and 50 letters) or ``adversary <tiebreak>
<seed>``: the adaptive adversary of :mod:`reference.memory_adversary`; for it the oracle checks at the end
that a full layout matches every answer it gave (a failure is a judge error, exit 1) and logs that layout.
``X.ans`` holds the reference strategy's number of flips, for the log only. For random layouts the number
of flips goes to ``metric.txt``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from reference.memory import CARDS, FLIP_TARGET, PAIRS, REQUEST_LIMIT, Game, parse_spec
from reference.memory_adversary import consistent_layout, dealer_for

ACCEPT, REJECT, JUDGE_ERROR = 42, 43, 1
MAX_LINE = 64  # bytes; a longer line is garbage


class ProtocolViolation(Exception):
    pass


class Oracle:
    def __init__(self, spec_text: str) -> None:
        self.spec = parse_spec(spec_text)
        self.game = Game(dealer_for(self.spec))
        self.requests: list[int] = []
        self.answers: list[str] = []
        self.program_gone = False  # its stdin was closed: it exited

    def run(self) -> None:
        """Answer card numbers until the game is over or the program stops; raises ProtocolViolation."""
        stdin = sys.stdin.buffer
        while not self.game.over:
            line = stdin.readline(MAX_LINE + 1)
            if not line:
                return  # end of file: the program exited
            number = self._card_number(line)
            letter = self.game.flip(number)
            self.requests.append(number)
            self.answers.append(letter)
            self._send((letter or "0") + ("\nEND" if self.game.over else ""))
            if self.program_gone:
                return
        if stdin.read(1):
            raise ProtocolViolation("the program wrote more after END (it must exit when the game is over)")

    def _card_number(self, line: bytes) -> int:
        where = f"card number #{len(self.requests) + 1}"
        if len(line) > MAX_LINE:
            raise ProtocolViolation(f"{where}: a line longer than {MAX_LINE} bytes")
        text = line.strip()
        sign = text[:1] == b"-"
        digits = text[1:] if sign else text
        if not digits.isdigit() or not digits.isascii():
            raise ProtocolViolation(f"{where}: expected a card number 1..{CARDS} on a line, got {line!r}")
        if len(self.requests) >= REQUEST_LIMIT:
            raise ProtocolViolation(f"more than {REQUEST_LIMIT} card numbers")
        number = -int(digits) if sign else int(digits)
        if not 1 <= number <= CARDS:
            raise ProtocolViolation(f"{where}: card {number} is out of range 1..{CARDS}")
        return number

    def _send(self, text: str) -> None:
        try:
            os.write(1, (text + "\n").encode())
        except BrokenPipeError:
            self.program_gone = True


def verdict(oracle: Oracle, mode: str) -> tuple[int, str]:
    game = oracle.game
    state = f"{game.flips} valid flips ({game.requests} card numbers), {game.candies}/{PAIRS} candies"
    if game.over:
        if mode == "flips" and game.flips > FLIP_TARGET:
            return REJECT, f"game over after {state}: more than {FLIP_TARGET} flips"
        return ACCEPT, f"game over after {state}"
    left = f"the program stopped before the game was over ({game.pairs_left} pairs left), after {state}"
    if mode == "candies" and game.candies == PAIRS:
        return ACCEPT, left + "; all candies earned"
    return REJECT, left


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print("usage: validate.py input answer feedback_dir [candies|flips]", file=sys.stderr)
        return JUDGE_ERROR
    feedback = Path(argv[3])
    mode = "candies" if "candies" in argv[4:] else "flips"
    oracle = Oracle(Path(argv[1]).read_text())
    answer = Path(argv[2]).read_text().strip() if Path(argv[2]).is_file() else ""
    try:
        oracle.run()
        code, message = verdict(oracle, mode)
    except ProtocolViolation as violation:
        code, message = REJECT, f"PV: {violation}"
    lines = [message, f"test: {oracle.spec.kind} {oracle.spec.name}"]
    if answer:
        lines.append(f"the reference strategy needs {answer} flips here")
    if oracle.spec.kind == "adversary":
        layout, consistent = consistent_layout(oracle.game, oracle.requests, oracle.answers)
        lines.append(f"adversary's layout: {layout}")
        if not consistent:
            lines.append("JE: the adversary's answers do not match this layout")
            code = JUDGE_ERROR
        else:
            lines.append(f"consistent: replaying the {len(oracle.requests)} card numbers on it gives the same answers")
    (feedback / "judgemessage.txt").write_text("\n".join(lines) + "\n")
    if code == ACCEPT and oracle.game.over and oracle.spec.kind == "random":
        (feedback / "metric.txt").write_text(f"{oracle.game.flips}\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
