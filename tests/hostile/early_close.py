import os

os.close(0)  # close stdin early and go
