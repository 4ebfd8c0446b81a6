# WRONG: only checks that no number has exactly one or two cards.
import sys

counts = [int(arg) for arg in sys.argv[1:]]
sys.exit(0 if all(c == 0 or c >= 3 for c in counts) else 1)
