"""The committed test data of problem ``go``: reproducible, valid, consistent with the statement."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

from reference import go

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "go"
DATA = PACKAGE / "data"


def relative_files(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())


def test_generator_reproduces_the_committed_data(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(PACKAGE / "generators" / "gen.py"), str(tmp_path)], check=True)
    assert relative_files(tmp_path) == relative_files(DATA)
    for rel in relative_files(DATA):
        assert filecmp.cmp(tmp_path / rel, DATA / rel, shallow=False), rel


def test_every_input_is_valid_and_its_answer_is_its_board() -> None:
    inputs = sorted(DATA.rglob("*.in"))
    assert len(inputs) >= 25
    validator = PACKAGE / "input_validators" / "validate.py"
    for path in inputs:
        done = subprocess.run([sys.executable, str(validator)], stdin=path.open("rb"), capture_output=True)
        assert done.returncode == 42, (path, done.stderr)
        board = go.parse_input(path.read_bytes())
        assert path.with_suffix(".ans").read_bytes() == go.format_board(board)


def test_the_tests_the_issue_asks_for_are_there() -> None:
    boards = {p.stem: go.parse_input(p.read_bytes()) for p in (DATA / "secret").glob("*.in")}
    values = {name: go.board_to_int(b) for name, b in boards.items()}
    assert 0 in values.values()  # empty
    assert 3**go.POINTS - 1 in values.values()  # all white: the largest value
    assert any(set("".join(b)) == {"B"} for b in boards.values())  # all black
    assert any(v >= 2**568 for v in values.values())  # breaks a 71-byte scheme
    densities = sorted(sum(ch != "." for ch in "".join(b)) / go.POINTS for b in boards.values())
    assert any(0.0 < d < 0.15 for d in densities) and any(0.4 < d < 0.6 for d in densities)
    encodings = [go.encode(b) for b in boards.values()]
    assert b"\n" * go.OPTIMAL_BYTES in encodings and any(b"\r\n" in e for e in encodings)


def test_statement_example_is_the_first_sample() -> None:
    statement = (PACKAGE / "statement" / "problem.en.md").read_text()
    sample = (DATA / "sample" / "1-corner.in").read_bytes()
    assert sample.decode() in statement
    hex_lines = go.encode(go.parse_input(sample)).hex(" ")
    assert " ".join(statement.split("```")[-2].split()) == hex_lines
