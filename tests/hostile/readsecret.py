"""Try to read every path given; print the ones that worked. Exit 0 if none did."""

import os
import sys

leaked = []
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as f:
                f.read(1)
        leaked.append(path)
    except OSError:
        pass
print("LEAKED" if leaked else "nothing readable", *leaked)
sys.exit(1 if leaked else 0)
