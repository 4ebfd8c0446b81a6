"""Rummy numbers, the reference criterion (reference/rummy.py), standalone.

d[i] = max(0, n[i] - n[i-1]) is the fewest runs that can start at number i+1; the cards are layable
iff every number i has room for the runs started at i-2, i-1 and i: d[i-2] + d[i-1] + d[i] <= n[i].
"""

import sys


def layable(n):
    d = [max(0, n[i] - n[i - 1]) for i in range(13)]
    return all(d[i - 2] + d[i - 1] + d[i] <= n[i] for i in range(13))


n = [int(arg) for arg in sys.argv[1:]]
sys.exit(0 if layable(n) else 1)
