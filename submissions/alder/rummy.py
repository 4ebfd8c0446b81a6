# The seed's own solution (Maximilian Noppel, "001 Problem Solving: Rummy Numbers"), verbatim except
# for the last line: the answer is the exit status, so solve()'s result is passed to sys.exit.
# It uses numpy, which the judge's python3 offers.
import sys
import numpy as np

def solve():
    n = np.array(sys.argv[1:], dtype=int)
    assert(len(n) == 13)

    for i in range(13):
        minl = min(n[(i-1) % 13], n[(i-2) % 13])
        minr = min(n[(i+1) % 13], n[(i+2) % 13])
        if n[i % 13] - minl - minr > min(n[(i-1) % 13] - minl, n[(i+1) % 13] - minr):
            return 1

    return 0

sys.exit(solve())
