"""The package's own submissions for problem ``go``, run directly (no sandbox: none of them is hostile).

The accepted ones must agree with the reference byte for byte, the seed's Pascal scheme must use 73
bytes, and the file cheater must really cheat when both passes share a directory (so that its RTE
under the judge is the sandbox's doing, not a bug of its own).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import go

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "go"
SUBMISSIONS = PACKAGE / "submissions"
TESTS = sorted((PACKAGE / "data").rglob("*.in"))
boards = st.lists(
    st.text(alphabet=go.SYMBOLS, min_size=go.SIZE, max_size=go.SIZE), min_size=go.SIZE, max_size=go.SIZE
).map(tuple)


def run(argv: list[str], stdin: bytes, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, timeout=60)


def round_trip(argv: list[str], board: go.Board) -> bytes:
    """Runs both passes; returns the encoding after checking that the board comes back."""
    encoded = run(argv, go.format_input(board))
    assert encoded.returncode == 0, encoded.stderr
    decoded = run(argv, go.DECODE_HEADER + encoded.stdout)
    assert decoded.returncode == 0, decoded.stderr
    assert decoded.stdout.split() == [row.encode() for row in board]
    return encoded.stdout


PYTHON_ACCEPTED = [sys.executable, "-S", "-B", str(SUBMISSIONS / "accepted" / "base3.py")]


@settings(max_examples=10, deadline=None)
@given(boards)
def test_accepted_python_agrees_with_the_reference(board: go.Board) -> None:
    assert round_trip(PYTHON_ACCEPTED, board) == go.encode(board)


@pytest.mark.parametrize("name", ["03-all-white", "21-bytes-newlines", "23-bytes-nul-then-ff"])
def test_accepted_python_on_awkward_tests(name: str) -> None:
    board = go.parse_input((PACKAGE / "data" / "secret" / f"{name}.in").read_bytes())
    assert round_trip(PYTHON_ACCEPTED, board) == go.encode(board)


def compile_with(tmp_path: Path, argv: list[str]) -> Path:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    done = subprocess.run(argv, capture_output=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp_path / "prog"


def test_accepted_c_agrees_with_the_reference_on_every_test(tmp_path: Path) -> None:
    source = SUBMISSIONS / "accepted" / "base3_bytes.c"
    exe = compile_with(tmp_path, ["gcc", "-std=gnu17", "-O2", "-o", "prog", str(source)])
    for path in TESTS:
        board = go.parse_input(path.read_bytes())
        assert round_trip([str(exe)], board) == go.encode(board), path.name


def seed_encoding(board: go.Board) -> bytes:
    """The seed's packing: 5 points per byte, the first of the five least significant."""
    digits = [go.SYMBOLS.index(ch) for ch in "".join(board)]
    groups = [digits[i : i + 5] for i in range(0, go.POINTS, 5)]
    return bytes(sum(d * 3**k for k, d in enumerate(group)) for group in groups)


def test_seed_pascal_uses_73_bytes_with_the_seeds_packing(tmp_path: Path) -> None:
    source = SUBMISSIONS / "partially_accepted" / "seed_five_per_byte.pas"
    shutil.copy(source, tmp_path / "go.pas")
    exe = compile_with(tmp_path, ["fpc", "-Mobjfpc", "-O2", "-v0", "-oprog", "go.pas"])
    for path in TESTS:
        board = go.parse_input(path.read_bytes())
        encoding = round_trip([str(exe)], board)
        assert encoding == seed_encoding(board), path.name
        assert len(encoding) == 73 and go.score(len(encoding)) == 93.75


def test_the_two_bits_scheme_is_over_the_limit_but_correct(tmp_path: Path) -> None:
    source = SUBMISSIONS / "wrong_answer" / "two_bits_per_point.cpp"
    exe = compile_with(tmp_path, ["g++", "-std=gnu++17", "-O2", "-o", "prog", str(source)])
    board = go.parse_input(TESTS[0].read_bytes())
    assert len(round_trip([str(exe)], board)) == 91 > go.MAX_BYTES


def test_71_bytes_fail_on_all_white() -> None:
    argv = [sys.executable, "-S", "-B", str(SUBMISSIONS / "wrong_answer" / "base3_71_bytes.py")]
    white = tuple("W" * go.SIZE for _ in range(go.SIZE))
    encoded = run(argv, go.format_input(white))
    assert len(encoded.stdout) == 71
    assert run(argv, go.DECODE_HEADER + encoded.stdout).stdout != go.format_board(white)


def test_the_file_cheater_cheats_only_when_the_passes_share_a_directory(tmp_path: Path) -> None:
    argv = [sys.executable, "-S", "-B", str(SUBMISSIONS / "run_time_error" / "cheat_file_in_box.py")]
    board = go.parse_input(TESTS[0].read_bytes())
    shared, first, second = tmp_path / "shared", tmp_path / "first", tmp_path / "second"
    for d in (shared, first, second):
        d.mkdir()
    encoded = run(argv, go.format_input(board), cwd=shared)
    assert encoded.stdout == b""
    assert run(argv, go.DECODE_HEADER, cwd=shared).stdout == go.format_board(board)
    run(argv, go.format_input(board), cwd=first)
    assert run(argv, go.DECODE_HEADER, cwd=second).returncode != 0
