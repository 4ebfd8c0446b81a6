"""Memory: the reference strategy as a stand-alone program speaking the line protocol.

Turn unseen cards left to right. When a 1st card's partner has been seen, turn the partner (the pair
leaves); otherwise turn the next unseen card as 2nd card; a pair completed by a 2nd card is taken in the
next turn. Mean 79.66 flips over random layouts, never more than 98.
"""

import sys

CARDS = 50


def turn_card(position: int) -> str:
    sys.stdout.write(f"{position}\n")
    sys.stdout.flush()
    answer = sys.stdin.readline().strip()
    if not answer or answer == "0":
        sys.exit(f"card {position}: unexpected answer {answer!r}")
    return answer


def main() -> None:
    single: dict[str, int] = {}  # letter -> position of its only seen card
    known: list[tuple[int, int]] = []  # both cards seen, still in the game
    unseen = 1
    while unseen <= CARDS or known:
        if known:
            a, b = known.pop()
            turn_card(a)
            turn_card(b)
            continue
        first_pos, unseen = unseen, unseen + 1
        first = turn_card(first_pos)
        if first in single:
            turn_card(single.pop(first))
            continue
        second_pos, unseen = unseen, unseen + 1
        second = turn_card(second_pos)
        if second == first:
            continue
        if second in single:
            known.append((second_pos, single.pop(second)))
        else:
            single[second] = second_pos
        single[first] = first_pos
    end = sys.stdin.readline().strip()
    if end != "END":
        sys.exit(f"expected END, got {end!r}")


main()
