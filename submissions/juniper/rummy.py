# WRONG: repeatedly lays the longest run available (the first on ties); fails e.g. on 1 1 2 1 1,
# where 1-5 leaves a lone 3 but 1-2-3 and 3-4-5 lay everything.
import sys


def greedy(n):
    while any(n):
        best_start, best_len = 0, 0
        for start in range(13):
            length = 0
            while length < 13 and n[(start + length) % 13] > 0:
                length += 1
            if length > best_len:
                best_start, best_len = start, length
        if best_len < 3:
            return False
        for p in range(best_start, best_start + best_len):
            n[p % 13] -= 1
    return True


sys.exit(0 if greedy([int(arg) for arg in sys.argv[1:]]) else 1)
