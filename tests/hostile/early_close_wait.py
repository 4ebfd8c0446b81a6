import os
import time

os.close(0)  # close stdin early, then sit there
time.sleep(1000)
