"""klondike, WRONG: plays one game greedily. Every foundation move and run move is made at once (that part
is safe), but an empty pile always takes the first King that can go there, with no look-ahead: when the
choice of King matters the score is too low. On random deals the choice almost never matters, so its
statistics pass the stats subtask; it fails solve."""

import random
import sys

RANKS = "A23456789TJQK"
SUITS = "SHDC"


def card(t):
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


def greedy(deal):
    piles = [deal[p::7] for p in range(7)]
    down = [len(p) - 1 for p in piles]
    base = [p[-1] for p in piles]
    top = base[:]
    found = [0, 0, 0, 0]

    def expose(p):
        if down[p]:
            down[p] -= 1
            base[p] = top[p] = piles[p][down[p]]
        else:
            base[p] = top[p] = -1

    while True:
        moved = False
        for p in range(7):
            t = top[p]
            if t >= 0 and found[t // 13] == t % 13:
                found[t // 13] += 1
                if t == base[p]:
                    expose(p)
                else:
                    top[p] = t + 1
                moved = True
        for src in range(7):
            b = base[src]
            if b >= 0 and b % 13 != 12 and (b + 1) in top:
                top[top.index(b + 1)] = top[src]
                expose(src)
                moved = True
        if not moved and -1 in base:
            empty = base.index(-1)
            for p in range(7):
                if down[p] and base[p] % 13 == 12:
                    base[empty], top[empty] = base[p], top[p]
                    expose(p)
                    moved = True
                    break
        if not moved:
            return sum(found)


def main():
    words = sys.stdin.read().split()
    if words[0] == "stats":
        n, seed = int(words[1]), int(words[2])
        rng = random.Random(seed)
        scores = []
        for _ in range(n):
            cards = list(range(52))
            rng.shuffle(cards)
            scores.append(greedy(cards))
        mean = sum(scores) / n
        std = (sum((s - mean) ** 2 for s in scores) / n) ** 0.5
        print(f"{mean:.6f} {std:.6f}")
    else:
        n = int(words[1])
        for i in range(n):
            print(greedy([card(t) for t in words[2 + 52 * i : 2 + 52 * (i + 1)]]))


main()
