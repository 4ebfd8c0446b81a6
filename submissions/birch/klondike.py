"""klondike: every foundation move and every run move is made at once (a run based at (s, r) can only
ever go onto (s, r+1), and making that move never spoils anything); only the King moves into empty piles
are choices, searched depth-first with a table of positions seen. Standalone (no imports from the
package)."""

import random
import sys

RANKS = "A23456789TJQK"
SUITS = "SHDC"


def card(t):
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


def optimal(deal):
    piles = [deal[p::7] for p in range(7)]
    # state: down[p] face-down count; run base..top of one suit (-1: empty pile); found[s]
    start = ([len(p) - 1 for p in piles], [p[-1] for p in piles], [p[-1] for p in piles], [0, 0, 0, 0])
    seen = set()
    best = 0
    stack = [start]
    while stack:
        down, base, top, found = stack.pop()
        down, base, top, found = down[:], base[:], top[:], found[:]

        def expose(p):
            if down[p]:
                down[p] -= 1
                base[p] = top[p] = piles[p][down[p]]
            else:
                base[p] = top[p] = -1

        changed = True
        while changed:
            changed = False
            for p in range(7):
                t = top[p]
                while t >= 0 and found[t // 13] == t % 13:
                    found[t // 13] += 1
                    if t == base[p]:
                        expose(p)
                    else:
                        top[p] = t + 1
                    t = top[p]
                    changed = True
            for src in range(7):
                b = base[src]
                if b >= 0 and b % 13 != 12 and (b + 1) in top:
                    dst = top.index(b + 1)
                    top[dst] = top[src]
                    expose(src)
                    changed = True
        key = (tuple(down), tuple(base), tuple(top))
        if key in seen:
            continue
        seen.add(key)
        best = max(best, sum(found))
        if best == 52:
            break
        if -1 in base:
            empty = base.index(-1)
            for p in range(7):
                if down[p] and base[p] % 13 == 12:
                    d2, b2, t2 = down[:], base[:], top[:]
                    b2[empty], t2[empty] = b2[p], t2[p]
                    if d2[p]:
                        d2[p] -= 1
                        b2[p] = t2[p] = piles[p][d2[p]]
                    stack.append((d2, b2, t2, found))
    return best


def main():
    words = sys.stdin.read().split()
    if words[0] == "stats":
        n, seed = int(words[1]), int(words[2])
        rng = random.Random(seed)
        total = total2 = 0
        cards = list(range(52))
        for _ in range(n):
            rng.shuffle(cards)
            s = optimal(cards)
            total += s
            total2 += s * s
        mean = total / n
        std = max(total2 / n - mean * mean, 0.0) ** 0.5
        print(f"{mean:.6f} {std:.6f}")
    else:
        n = int(words[1])
        out = []
        for i in range(n):
            deal = [card(t) for t in words[2 + 52 * i : 2 + 52 * (i + 1)]]
            out.append(str(optimal(deal)))
        print("\n".join(out))


main()
