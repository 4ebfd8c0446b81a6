"""Memory: remembers nothing, and turns the same fixed pairs of cards again and again.

On almost every layout the game never ends: the oracle stops it after 1000 card numbers.
"""

import sys

while True:
    for i in range(1, 51):
        sys.stdout.write(f"{i}\n")
        sys.stdout.flush()
        if sys.stdin.readline().strip() in ("", "END"):
            sys.exit(0)
