"""The validators of problem ``go``, called as the judge calls them (Kattis convention, subprocess)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reference import go

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "go"
OUTPUT_VALIDATOR = PACKAGE / "output_validator" / "go" / "validate.py"
INPUT_VALIDATOR = PACKAGE / "input_validators" / "validate.py"
BOARD: go.Board = tuple("".join(go.SYMBOLS[(r + c * c) % 3] for c in range(go.SIZE)) for r in range(go.SIZE))


def make_test(tmp_path: Path, board: go.Board = BOARD) -> tuple[Path, Path, Path]:
    test_in, test_ans, feedback = tmp_path / "t.in", tmp_path / "t.ans", tmp_path / "feedback"
    test_in.write_bytes(go.format_input(board))
    test_ans.write_bytes(go.format_board(board))
    feedback.mkdir()
    return test_in, test_ans, feedback


def validate(test: tuple[Path, Path, Path], team_output: bytes) -> int:
    test_in, test_ans, feedback = test
    argv = [sys.executable, str(OUTPUT_VALIDATOR), str(test_in), str(test_ans), f"{feedback}/"]
    return subprocess.run(argv, input=team_output, capture_output=True).returncode


def read(feedback: Path, name: str) -> str | None:
    path = feedback / name
    return path.read_text() if path.exists() else None


@pytest.mark.parametrize(("n_bytes", "score"), [(0, 100.0), (72, 100.0), (73, 93.75), (80, 50.0)])
def test_two_passes_accept_and_score(tmp_path: Path, n_bytes: int, score: float) -> None:
    test = make_test(tmp_path)
    feedback = test[2]
    encoding = bytes((7 * i + 10) % 256 for i in range(n_bytes))  # includes \n, \r and NUL
    assert validate(test, encoding) == 42
    assert (feedback / "nextpass.in").read_bytes() == b"DECODE\n" + encoding
    assert read(feedback, "score.txt") is None
    (feedback / "nextpass.in").unlink()  # the judge moves it away to run pass 2
    assert validate(test, go.format_board(BOARD)) == 42
    assert not (feedback / "nextpass.in").exists()
    assert float(read(feedback, "score.txt") or "nan") == score
    assert int(read(feedback, "metric.txt") or "-1") == n_bytes


def test_more_than_80_bytes_is_rejected_in_pass_1(tmp_path: Path) -> None:
    test = make_test(tmp_path)
    assert validate(test, b"\x00" * 81) == 43
    feedback = test[2]
    assert not (feedback / "nextpass.in").exists()
    assert read(feedback, "score.txt") is None
    assert "81 bytes" in (read(feedback, "judgemessage.txt") or "")


def flipped(board: go.Board, r: int, c: int) -> go.Board:
    rows = list(board)
    rows[r] = rows[r][:c] + ("W" if rows[r][c] != "W" else ".") + rows[r][c + 1 :]
    return tuple(rows)


@pytest.mark.parametrize(
    "output",
    [
        go.format_board(flipped(BOARD, 0, 0)),
        go.format_board(flipped(BOARD, 18, 18)),
        go.format_board(BOARD[:18]),
        go.format_board(BOARD) + b"...................\n",
        go.format_board(BOARD).replace(b"\n", b"", 1),
        go.format_board(BOARD).lower(),
        b"",
    ],
)
def test_wrong_boards_are_rejected_in_pass_2(tmp_path: Path, output: bytes) -> None:
    test = make_test(tmp_path)
    assert validate(test, b"x" * 72) == 42
    assert validate(test, output) == 43
    assert read(test[2], "score.txt") is None
    assert "wrong board" in (read(test[2], "judgemessage.txt") or "")


@pytest.mark.parametrize(
    "output",
    [
        go.format_board(BOARD).replace(b"\n", b"\r\n"),
        go.format_board(BOARD).replace(b"\n", b"  \n"),
        go.format_board(BOARD).rstrip(b"\n"),
        b"\n" + go.format_board(BOARD) + b"\n\n",
    ],
)
def test_whitespace_around_the_rows_is_forgiven(tmp_path: Path, output: bytes) -> None:
    test = make_test(tmp_path)
    assert validate(test, b"") == 42
    assert validate(test, output) == 42


def test_inconsistent_test_files_are_a_judge_error(tmp_path: Path) -> None:
    test = make_test(tmp_path)
    test[1].write_bytes(go.format_board(flipped(BOARD, 5, 5)))
    assert validate(test, b"") not in (42, 43)


def check_input(data: bytes) -> int:
    return subprocess.run([sys.executable, str(INPUT_VALIDATOR)], input=data, capture_output=True).returncode


def test_input_validator() -> None:
    good = go.format_input(BOARD)
    assert check_input(good) == 42
    bad = [
        b"",
        good[:-1],
        good + b"\n",
        good.replace(b"ENCODE", b"DECODE"),
        good.replace(b"\n", b"\r\n"),
        good.replace(b"B", b"b", 1),
        go.ENCODE_HEADER + go.format_board(BOARD[:18]),
        go.ENCODE_HEADER + go.format_board((BOARD[0] + ".",) + BOARD[1:]),
        b"ENCODE " + good[len(go.ENCODE_HEADER) :],
    ]
    assert [check_input(b) for b in bad] == [43] * len(bad)
