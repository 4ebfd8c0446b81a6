"""Memory, function style: "peeks" at each card by turning it twice in a row.

The second flip of the same card is invalid (it returns '' and does not count), so the turns are not what
the program thinks: its 2nd cards pair up with the next card instead, and in the end it leaves the game
unfinished or needs far more than 100 flips.
"""


def play(turn_card):
    letters = {}
    for i in range(1, 51):
        letter = turn_card(i)
        turn_card(i)  # turn it back, the program thinks
        letters.setdefault(letter, []).append(i)
    for letter, positions in sorted(letters.items()):
        if letter and len(positions) == 2:
            turn_card(positions[0])
            turn_card(positions[1])
