"""Main program for function-style Python submissions of ``memory`` (the judge supplies it).

The submission is saved beside it as ``solution.py`` and must define ``play(turn_card)``. ``turn_card(i)``
turns card ``i`` (an int) and returns its letter 'A'..'Y', or '' when the flip is invalid (a card that
left the game, the 1st card of the current turn again, a position outside 1..50, or any flip after the
game is over). It talks to the oracle with the problem's line protocol on stdin/stdout, so the submission
must not use them itself (use stderr for debugging).
"""

import sys

import solution

CARDS = 50
PAIRS = 25


class CardGiver:
    def __init__(self) -> None:
        self.pairs_left = PAIRS
        self.first = ""  # letter of the 1st card of the current turn, '' = none
        self.flips = 0  # valid flips

    def turn_card(self, i: int) -> str:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"turn_card expects an int, got {type(i).__name__}")
        if self.pairs_left == 0 or not 1 <= i <= CARDS:
            return ""
        sys.stdout.write(f"{i}\n")
        sys.stdout.flush()
        answer = sys.stdin.readline().strip()
        if not answer:  # the oracle has stopped (it rejected the run): nothing more to do
            sys.exit(0)
        if answer == "0":
            return ""
        self.flips += 1
        if not self.first:
            self.first = answer
        else:
            if answer == self.first:
                self.pairs_left -= 1
            self.first = ""
        if self.pairs_left == 0:
            sys.stdin.readline()  # END
        return answer


def main() -> None:
    giver = CardGiver()
    solution.play(giver.turn_card)


main()
