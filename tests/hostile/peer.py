"""Interactive peer (a validator): sends 5 numbers, expects each doubled; 42 accept, 43 reject."""

import sys

for i in range(5):
    try:
        print(i + 1, flush=True)
    except BrokenPipeError:
        print("PV: program closed its input", file=sys.stderr)
        sys.exit(43)
    line = sys.stdin.readline()
    if not line:
        print("PV: program stopped talking", file=sys.stderr)
        sys.exit(43)
    if line.strip() != str(2 * (i + 1)):
        print("PV: garbage", line[:40], file=sys.stderr)
        sys.exit(43)
sys.exit(42)
