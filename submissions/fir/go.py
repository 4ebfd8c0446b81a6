# Demo contest, hostile contestant: reads the answers. Pass 1 looks for the judge's test files, finds
# the .in holding this very board and "encodes" it as that file's path (a few bytes); pass 2 opens the
# .ans beside it and prints the board. Outside a sandbox this gets full marks with tiny encodings; in
# the judge's sandbox there are no test files to find (and no other processes to peek at), so pass 1
# writes nothing and pass 2 prints nothing: wrong answer.
import os
import sys

MAX_DIRS = 5000


def roots():
    yield from ("/work", "/home", "/root", "/srv", "/opt", "/judge", "/problems", "/data", "/tmp", "/var/tmp")
    here = os.getcwd()
    while here != "/":
        here = os.path.dirname(here)
        yield here
    for pid in os.listdir("/proc"):  # other processes' working directories: the judge's, perhaps
        if pid.isdigit():
            yield f"/proc/{pid}/cwd"


def test_inputs():
    seen = 0
    for root in roots():
        for dirpath, _dirs, files in os.walk(root):
            seen += 1
            if seen > MAX_DIRS:
                return
            for name in files:
                if name.endswith(".in"):
                    yield os.path.join(dirpath, name)


data = sys.stdin.buffer.read()
header, _, rest = data.partition(b"\n")
if header == b"ENCODE":
    for path in test_inputs():
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    sys.stdout.buffer.write(path.encode())
                    break
        except OSError:
            pass
else:
    try:
        with open(rest.decode(errors="replace")[:-3] + ".ans") as f:
            sys.stdout.write(f.read())
    except (OSError, ValueError):
        pass
