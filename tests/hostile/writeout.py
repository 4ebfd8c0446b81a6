"""Try to create every path given; print the ones that worked. Exit 0 if none did."""

import sys

written = []
for path in sys.argv[1:]:
    try:
        with open(path, "w") as f:
            f.write("pwned\n")
        written.append(path)
    except OSError:
        pass
print("WROTE" if written else "nothing writable", *written)
sys.exit(1 if written else 0)
