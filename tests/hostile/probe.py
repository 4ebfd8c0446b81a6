"""Harmless probe: reports what the sandbox looks like from inside, as JSON."""

import json
import os
import sys

visible = [p for p in os.listdir("/proc") if p.isdigit()]
with open("/proc/net/dev") as f:
    interfaces = sorted(line.split(":")[0].strip() for line in f.readlines()[2:])
readable = {}
for path in sys.argv[1:]:
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, "rb").close()
        readable[path] = True
    except OSError:
        readable[path] = False
print(
    json.dumps(
        {
            "uid": os.getuid(),
            "euid": os.geteuid(),
            "pid": os.getpid(),
            "visible_pids": len(visible),
            "interfaces": interfaces,
            "readable": readable,
            "cwd": os.getcwd(),
        }
    )
)
