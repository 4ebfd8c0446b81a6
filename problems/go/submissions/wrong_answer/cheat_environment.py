# Problem go, cheater: pass 1 puts the board in an environment variable and outputs nothing
# (0 bytes); pass 2 looks for it there. An environment variable dies with its process and the
# judge starts pass 2 with the language's fixed environment, so pass 2 finds nothing and prints an
# empty board: wrong answer. Here to show the judge carries nothing from pass 1 into pass 2.
import os
import sys

VAR = "GO_CHEAT_BOARD"
data = sys.stdin.buffer.read()
header, _, rest = data.partition(b"\n")
if header == b"ENCODE":
    os.environ[VAR] = rest.decode("ascii")
else:
    sys.stdout.write(os.environ.get(VAR, "...................\n" * 19))
