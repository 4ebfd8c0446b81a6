"""Double-fork a daemon that outlives us; it writes its pid into the box, then sleeps."""

import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open("daemon.pid", "w") as f:
            f.write(str(os.getpid()))
        time.sleep(1000)
    os._exit(0)
time.sleep(0.3)  # let the daemon start
print("main exits; uid", os.getuid())
