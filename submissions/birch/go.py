# Problem go, accepted: the whole board as one base-3 integer, written as 72 big-endian bytes
# (3**361 < 2**576). 72 bytes is the information limit, so this scores 100 on every position.
import sys

SYMBOLS = ".BW"
N = 19
NBYTES = 72


def main():
    data = sys.stdin.buffer.read()
    header, _, rest = data.partition(b"\n")
    if header == b"ENCODE":
        value = 0
        for line in rest.split(b"\n")[:N]:
            for ch in line.decode("ascii").strip():
                value = value * 3 + SYMBOLS.index(ch)
        sys.stdout.buffer.write(value.to_bytes(NBYTES, "big"))
    else:  # DECODE: the rest, to the end of the input, is the encoding
        value = int.from_bytes(rest, "big")
        points = []
        for _ in range(N * N):
            value, digit = divmod(value, 3)
            points.append(SYMBOLS[digit])
        points.reverse()
        board = "".join(points)
        sys.stdout.write("".join(board[r * N:(r + 1) * N] + "\n" for r in range(N)))


main()
