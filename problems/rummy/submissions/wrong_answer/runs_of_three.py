# WRONG: every run has exactly three cards (a run may be longer). For each number to start from, it goes
# round once and, at each number, starts as many runs of three as that number has cards left. It passes
# the four samples (the demo's weak test set: `judge contest init --weak-tests rummy`, docs/live-fuzzing.md)
# but fails on a run of four: 1 1 1 1 0 0 0 0 0 0 0 0 0 is layable.
import sys


def layable(n):
    for first in range(13):
        left = list(n)
        for k in range(13):
            p = (first + k) % 13
            runs = left[p]
            if runs < 0:
                break
            for q in (p, (p + 1) % 13, (p + 2) % 13):
                left[q] -= runs
        else:
            if not any(left):
                return True
    return False


sys.exit(0 if layable([int(arg) for arg in sys.argv[1:]]) else 1)
