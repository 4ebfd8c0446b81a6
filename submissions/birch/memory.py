"""Memory, function style: the reference strategy as ``play(turn_card)`` (the judge supplies main.py)."""


def play(turn_card):
    single = {}  # letter -> position of its only seen card
    known = []  # both cards seen, still in the game
    unseen = 1
    while unseen <= 50 or known:
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
