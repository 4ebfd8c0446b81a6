# Go in 80 bytes, hazel's entry: read the board as one number in base 3 ('.' = 0, 'B' = 1, 'W' = 2,
# first point most significant) and store it in 71 bytes. I figured 3**361 is about 2**572 and 71 bytes
# is 568 bits, "close enough". It is not: every board worth 2**568 or more keeps only its low 568
# bits (a full black board, a full white board, most boards with stones near the top left corner).
import sys

POINTS = 19 * 19
SIZE = 71
TO_DIGIT = str.maketrans(".BW", "012")


def encode(board):
    number = int("".join(ch for ch in board.translate(TO_DIGIT) if ch in "012"), 3)
    return (number & ((1 << 8 * SIZE) - 1)).to_bytes(SIZE, "big")


def decode(blob):
    number = int.from_bytes(blob, "big")
    place = 3 ** (POINTS - 1)
    cells = ""
    while place:
        digit, number = divmod(number, place)
        cells += ".BW"[digit]
        place //= 3
    return [cells[i : i + 19] for i in range(0, POINTS, 19)]


raw = sys.stdin.buffer.read()
word, blob = raw.split(b"\n", 1)
if word.strip() == b"ENCODE":
    sys.stdout.buffer.write(encode(blob.decode()))
else:
    print("\n".join(decode(blob)))
