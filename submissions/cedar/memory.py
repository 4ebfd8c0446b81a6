"""Memory: earns all candies but needs more than 100 flips (subtask 1 only: 30 points).

It looks at every card pairwise, then looks at all of them once more "to be sure", and only then takes
the pairs it remembers from the first look.
"""

import sys


def turn_card(position):
    sys.stdout.write(f"{position}\n")
    sys.stdout.flush()
    answer = sys.stdin.readline().strip()
    if answer == "END":  # the game was over already
        sys.exit(0)
    return "" if answer == "0" else answer


def main():
    seen = {}
    pairs_left = 25
    for look in range(2):
        for i in range(1, 51, 2):
            a, b = turn_card(i), turn_card(i + 1)
            if a and a == b:
                pairs_left -= 1
            if look == 0:
                seen.setdefault(a, []).append(i)
                seen.setdefault(b, []).append(i + 1)
            if pairs_left == 0:
                return
    for letter, positions in sorted(seen.items()):
        if letter and len(positions) == 2:
            a, b = turn_card(positions[0]), turn_card(positions[1])
            if a and a == b:
                pairs_left -= 1
                if pairs_left == 0:
                    return


main()
