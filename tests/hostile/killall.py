"""kill -9 -1: start a child first, then kill everything we may; report that we survived."""

import os
import signal
import time

child = os.fork()
if child == 0:
    time.sleep(1000)
    os._exit(0)
os.kill(-1, signal.SIGKILL)
_, status = os.waitpid(child, 0)
print("survived; child killed:", os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL)
