import sys

chunk = b"x" * (1 << 20)
for _ in range(1024):
    sys.stdout.buffer.write(chunk)
