"""Properties of the reference for problem ``go`` (reference/go.py) and of its fuzz strategy."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import go

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "go"


def load_fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("go_fuzz", PACKAGE / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FUZZ = load_fuzz()
boards = FUZZ.boards()


def test_the_information_limit_is_72_bytes() -> None:
    assert go.OPTIMAL_BYTES == 72
    assert 3**go.POINTS <= 2 ** (8 * 72)  # 72 bytes are enough ...
    assert 3**go.POINTS > 2 ** (8 * 71)  # ... and 71 are not
    assert math.ceil(go.POINTS * math.log2(3)) == 573


@settings(max_examples=150)
@given(boards)
def test_reference_round_trips_every_position_in_72_bytes(board: go.Board) -> None:
    assert go.is_board(board)
    data = go.encode(board)
    assert len(data) == go.OPTIMAL_BYTES
    assert go.decode(data) == board


@given(st.integers(0, 3**go.POINTS - 1))
def test_base3_value_is_a_bijection(value: int) -> None:
    assert go.board_to_int(go.int_to_board(value)) == value


def test_extreme_values() -> None:
    assert go.board_to_int(tuple("." * 19 for _ in range(19))) == 0
    assert go.board_to_int(tuple("W" * 19 for _ in range(19))) == 3**go.POINTS - 1
    first_black = ("B" + "." * 18,) + tuple("." * 19 for _ in range(18))
    assert go.board_to_int(first_black) == 3 ** (go.POINTS - 1)  # first point = most significant
    with pytest.raises(ValueError):
        go.int_to_board(3**go.POINTS)


@given(boards)
def test_solve_runs_both_passes(board: go.Board) -> None:
    encoding = go.solve(go.format_input(board))
    assert go.solve(go.DECODE_HEADER + encoding) == go.format_board(board)


@given(st.integers(0, 200), st.integers(0, 200))
def test_score_is_monotone_and_bounded(a: int, b: int) -> None:
    sa, sb = go.score(a), go.score(b)
    if a > go.MAX_BYTES:
        assert sa is None
        return
    assert sa is not None and go.SCORE_AT_MAX_BYTES <= sa <= go.FULL_SCORE
    if b <= go.MAX_BYTES and a <= b:
        assert sb is not None and sb <= sa


def test_score_points() -> None:
    assert [go.score(n) for n in (0, 72, 73, 76, 80, 81)] == [100, 100, 93.75, 75, 50, None]


def test_parse_input_is_strict() -> None:
    good = go.format_input(tuple("." * 19 for _ in range(19)))
    assert go.parse_input(good) == tuple("." * 19 for _ in range(19))
    for bad in (good[:-1], good.replace(b"ENCODE", b"DECODE"), good + b"\n", good.replace(b".", b"x", 1)):
        with pytest.raises(ValueError):
            go.parse_input(bad)


@settings(max_examples=8, deadline=None)
@given(FUZZ.strategy())
def test_fuzz_inputs_pass_the_input_validator(test_input: bytes) -> None:
    validator = PACKAGE / "input_validators" / "validate.py"
    done = subprocess.run([sys.executable, str(validator)], input=test_input, capture_output=True)
    assert done.returncode == 42, done.stderr
    assert FUZZ.answer(test_input) == test_input[len(go.ENCODE_HEADER) :]
