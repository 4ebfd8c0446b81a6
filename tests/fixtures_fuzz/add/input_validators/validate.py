import re
import sys

data = sys.stdin.read()
m = re.fullmatch(r"(\d+) (\d+)\n", data)
ok = m is not None and all(int(g) <= 10**6 and (g == "0" or g[0] != "0") for g in m.groups())
sys.exit(42 if ok else 43)
