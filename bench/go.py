"""Benchmark for problem ``go``: encoding sizes of three schemes on the committed tests, and the
reference's speed.

Prints, per test: the bytes used by the reference (one base-3 number), the seed's 5-points-per-byte
packing and 2 bits per point; the score each would get; and the board's zeroth-order empirical entropy
in bytes (what an ideal coder that knows the board's symbol frequencies would need: far below 72 on
sparse positions, which is why the score is capped at 72 bytes and not lower). Then the reference's
encode and decode time per board.

Usage: ``python3 bench/go.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from pathlib import Path

from reference import go

DATA = Path(__file__).resolve().parent.parent / "problems" / "go" / "data"


def entropy_bytes(board: go.Board) -> float:
    counts = Counter("".join(board))
    bits = -sum(n * math.log2(n / go.POINTS) for n in counts.values())
    return bits / 8


def schemes(board: go.Board) -> dict[str, int]:
    return {
        "base3": len(go.encode(board)),
        "5/byte": math.ceil(go.POINTS / 5),
        "2bit": math.ceil(go.POINTS / 4),
    }


def fmt_score(n: int) -> str:
    s = go.score(n)
    return "WA" if s is None else f"{s:g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000, help="encode/decode rounds for the timing")
    args = parser.parse_args()

    tests = sorted(DATA.rglob("*.in"))
    boards = [go.parse_input(p.read_bytes()) for p in tests]
    print(f"{'test':32} {'base3':>6} {'5/byte':>7} {'2bit':>5}  {'scores':>16}  {'entropy B':>9}")
    for path, board in zip(tests, boards, strict=True):
        sizes = schemes(board)
        scores = "/".join(fmt_score(n) for n in sizes.values())
        name = f"{path.parent.name}/{path.stem}"
        row = f"{name:32} {sizes['base3']:6} {sizes['5/byte']:7} {sizes['2bit']:5}"
        print(f"{row}  {scores:>16}  {entropy_bytes(board):9.1f}")

    start = time.perf_counter()
    encodings = [go.encode(b) for _ in range(args.repeat // len(boards) + 1) for b in boards]
    encode_s = (time.perf_counter() - start) / len(encodings)
    start = time.perf_counter()
    for data in encodings:
        go.decode(data)
    decode_s = (time.perf_counter() - start) / len(encodings)
    print(f"\nreference over {len(encodings)} boards: encode {encode_s * 1e6:.1f} us, decode {decode_s * 1e6:.1f} us")


if __name__ == "__main__":
    main()
