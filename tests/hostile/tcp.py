"""Exit 0 if a TCP connection to 127.0.0.1:PORT fails (good), 1 if it works."""

import socket
import sys

try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
except OSError as exc:
    print("blocked:", exc)
    sys.exit(0)
print("CONNECTED")
sys.exit(1)
