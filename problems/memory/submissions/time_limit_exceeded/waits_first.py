"""Memory: waits for the oracle to speak first (it never does: the program must start), so both wait.

The judge's time limit ends it: TLE, not a hang.
"""

import sys

cards = int(sys.stdin.readline())
for i in range(1, cards + 1):
    print(i, flush=True)
    sys.stdin.readline()
