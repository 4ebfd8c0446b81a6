# Problem go, cheater: pass 1 saves the board in a file in its working directory (the box) and
# outputs nothing (0 bytes!); pass 2 reads that file back. Each pass runs in a fresh sandbox, so in
# pass 2 the file is not there and the open() fails: run-time error. (Outside a sandbox, with both
# passes in one directory, this round-trips every board in 0 bytes: see tests/test_go_submissions.py.)
import os
import sys

NAME = "go-board.txt"
data = sys.stdin.buffer.read()
header, _, rest = data.partition(b"\n")
if header == b"ENCODE":
    with open(NAME, "wb") as f:
        f.write(rest)
else:
    with open(os.path.join(os.getcwd(), NAME), "rb") as f:
        sys.stdout.buffer.write(f.read())
