import sys

for line in sys.stdin:
    print(2 * int(line), flush=True)
