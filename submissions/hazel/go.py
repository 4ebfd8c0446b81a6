# Problem go, wrong answer: the base-3 number in 71 bytes (568 bits), "since log2(3**361) = 572.2 is
# almost 568". Boards whose value is at least 2**568 lose their top bits: all white, for one, and most
# random positions with stones near the top left corner.
import sys

SYMBOLS = ".BW"
N = 19
NBYTES = 71

data = sys.stdin.buffer.read()
header, _, rest = data.partition(b"\n")
if header == b"ENCODE":
    value = 0
    for ch in rest.decode("ascii"):
        if ch in SYMBOLS:
            value = value * 3 + SYMBOLS.index(ch)
    sys.stdout.buffer.write((value % (1 << (8 * NBYTES))).to_bytes(NBYTES, "big"))
else:
    value = int.from_bytes(rest, "big")
    points = []
    for _ in range(N * N):
        value, digit = divmod(value, 3)
        points.append(SYMBOLS[digit])
    board = "".join(reversed(points))
    sys.stdout.write("".join(board[r * N:(r + 1) * N] + "\n" for r in range(N)))
