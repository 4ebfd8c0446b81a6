# Correct but too slow: tries every way to lay the card of the smallest number that still has
# cards (runs of 3, 4 or 5 cards), without memoisation. Fine for a handful of cards, hopeless for
# hundreds when the answer is no.
import sys


def layable(n):
    if not any(n):
        return True
    i = next(j for j in range(13) if n[j] > 0)
    for first in range(i - 4, i + 1):
        for length in (3, 4, 5):
            if first + length <= i:
                continue
            cells = [p % 13 for p in range(first, first + length)]
            if all(n[c] > 0 for c in cells):
                for c in cells:
                    n[c] -= 1
                found = layable(n)
                for c in cells:
                    n[c] += 1
                if found:
                    return True
    return False


sys.setrecursionlimit(10000)
sys.exit(0 if layable([int(arg) for arg in sys.argv[1:]]) else 1)
