"""Package ``coins``: data reproducibility, validators (Kattis convention, through subprocess), fuzz
hooks, and the package's own submissions run directly (none of them is hostile)."""

from __future__ import annotations

import filecmp
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings

from reference import coins

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "coins"
DATA = PACKAGE / "data"
SUBMISSIONS = PACKAGE / "submissions"
INPUT_VALIDATOR = PACKAGE / "input_validators" / "validate.py"
OUTPUT_VALIDATOR = PACKAGE / "output_validator" / "coins" / "validate.py"
TESTS = sorted(DATA.rglob("*.in"))


def load_fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("coins_fuzz", PACKAGE / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fuzz = load_fuzz()


def relative_files(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())


def input_valid(data: bytes) -> tuple[bool, str]:
    done = subprocess.run([sys.executable, str(INPUT_VALIDATOR)], input=data, capture_output=True, timeout=120)
    assert done.returncode in (42, 43), done.stderr
    return done.returncode == 42, done.stderr.decode()


def validate(start: str, answer: bytes, team: bytes, tmp_path: Path) -> tuple[int, dict[str, str]]:
    """Runs the output validator; returns its exit code and the feedback files it wrote."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "t.in").write_bytes(coins.format_input(start))
    (tmp_path / "t.ans").write_bytes(answer)
    feedback = tmp_path / "feedback"
    shutil.rmtree(feedback, ignore_errors=True)
    feedback.mkdir()
    argv = [sys.executable, str(OUTPUT_VALIDATOR), str(tmp_path / "t.in"), str(tmp_path / "t.ans"), f"{feedback}/"]
    done = subprocess.run(argv, input=team, capture_output=True, timeout=120)
    files = {p.name: p.read_text() for p in feedback.iterdir()}
    return done.returncode, files


def score(files: dict[str, str]) -> float:
    return float(files["score.txt"])


# ---------------------------------------------------------------- data


def test_generator_reproduces_the_committed_data(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(PACKAGE / "generators" / "gen.py"), str(tmp_path)], check=True)
    assert relative_files(tmp_path) == relative_files(DATA)
    for rel in relative_files(DATA):
        assert filecmp.cmp(tmp_path / rel, DATA / rel, shallow=False), rel


def test_every_input_is_valid_and_answers_are_optimal() -> None:
    assert len(TESTS) >= 20
    sizes = set()
    for path in TESTS:
        ok, message = input_valid(path.read_bytes())
        assert ok, (path, message)
        start = coins.parse_input(path.read_bytes())
        sizes.add(len(start))
        shortest, _ = coins.search(start)  # a goal found breadth-first, or every reachable row visited
        assert path.with_suffix(".ans").read_bytes() == coins.format_answer(shortest)
    assert set(range(4, 10)) <= sizes


def test_the_tests_the_issue_asks_for_are_there() -> None:
    answers = {p.read_text().strip(): p.with_suffix(".ans").read_text().split() for p in DATA.glob("secret/*.in")}
    assert len(answers["ABABA"]) - 1 == 5
    impossible = [s for s, a in answers.items() if a == ["impossible"]]
    assert {len(s) for s in impossible} >= {4, 5, 6, 7, 8, 9}
    solved = {len(s): len(a) - 1 for s, a in answers.items() if a != ["impossible"]}
    assert all(solved.get(n, 0) >= 1 for n in range(4, 10)) and max(solved.values()) >= 16
    assert any(len(a) == 1 and a != ["impossible"] for a in answers.values())  # a start that is a goal


def test_statement_examples_are_the_samples() -> None:
    statement = (PACKAGE / "statement" / "problem.en.md").read_text()
    for path in sorted((DATA / "sample").glob("*.in")):
        assert f"```\n{path.read_text()}```" in statement
        assert f"```\n{path.with_suffix('.ans').read_text()}```" in statement


# ---------------------------------------------------------------- input validator


@pytest.mark.parametrize(
    "data",
    [b"ABABA", b"ABABA\r\n", b"AB.AB\n", b"abab\n", b"A\n", b"ABABABABAB\n", b"ABABA\n\n", b" ABABA\n", b""],
)
def test_input_validator_rejects_bad_format(data: bytes) -> None:
    assert not input_valid(data)[0]


def test_input_validator_rejects_starts_that_break_the_promise() -> None:
    # AABBA: no goal, and ABBA walks away from the first A forever
    ok, message = input_valid(b"AABBA\n")
    assert not ok and "promise" in message


# ---------------------------------------------------------------- output validator


def test_output_validator_accepts_optimal_and_scores_longer_sequences(tmp_path: Path) -> None:
    path = coins.solve("ABABA")
    assert path is not None
    answer = coins.format_answer(path)
    code, files = validate("ABABA", answer, answer, tmp_path / "a")
    assert code == 42 and score(files) == 100 and files["metric.txt"].strip() == "5"
    # two extra moves: one move there and back again
    detour = [path[0], coins.successors(path[0])[1], *path]
    team = "\r\n".join(f"..{row}." for row in detour).encode()  # CRLF, no final newline, stray dots
    code, files = validate("ABABA", answer, team, tmp_path / "b")
    assert code == 42 and score(files) == pytest.approx(100 * 5 / 7) and files["metric.txt"].strip() == "7"


def test_output_validator_impossible(tmp_path: Path) -> None:
    code, files = validate("ABAB", b"impossible\n", b"impossible\n", tmp_path / "a")
    assert code == 42 and score(files) == 100 and "metric.txt" not in files
    code, files = validate("ABAB", b"impossible\n", b"ABAB\nA..BBA\n", tmp_path / "b")
    assert code == 43 and "score.txt" not in files
    answer = coins.format_answer(coins.solve("ABABA"))
    code, files = validate("ABABA", answer, b"impossible\n", tmp_path / "c")
    assert code == 43 and "reachable in 5 moves" in files["judgemessage.txt"]


def test_output_validator_start_that_is_a_goal(tmp_path: Path) -> None:
    code, files = validate("AABB", b"AABB\n", b"AABB\n", tmp_path / "a")
    assert code == 42 and score(files) == 100 and files["metric.txt"].strip() == "0"
    code, files = validate("AABB", b"AABB\n", b"AABB\nABA..B\nAABB\n", tmp_path / "b")
    assert code == 42 and score(files) == 0


@pytest.mark.parametrize(
    ("team", "message"),
    [
        (b"", "empty output"),
        (b"ABAAB\nAABAB\nA..ABAB\nABAA..B\nAAABB\n", "not the start"),
        (b"ABABA\nAABAB\n", "does not follow"),  # skips a move
        (b"ABABA\nAB..AAB\n", "not a goal"),  # legal, but stops early
        (b"ABABA\nABA BA\n", "does not follow"),  # a space inside a row splits it
        (b"ABABA\nAB__AAB\n", "not a row"),
        (b"ABABA\n...\n", "not a row"),
        ("ABABA\nAB··AAB\n".encode(), "not ASCII"),
        (b"ABABA\nABAB.A\n", "does not follow"),  # a gap of one cell: no legal move makes it
        (b"Impossible\n", "not a row"),
    ],
)
def test_output_validator_rejects(team: bytes, message: str, tmp_path: Path) -> None:
    answer = coins.format_answer(coins.solve("ABABA"))
    code, files = validate("ABABA", answer, team, tmp_path)
    assert code == 43, files
    assert message in files["judgemessage.txt"] and "score.txt" not in files


def test_output_validator_rejects_too_many_moves(tmp_path: Path) -> None:
    there = coins.successors("ABABA")[1]
    team = "\n".join(["ABABA", there] * 5001 + ["ABABA", "ABAAB", "AABAB", "A..ABAB", "ABAA..B", "AAABB"]).encode()
    code, files = validate("ABABA", coins.format_answer(coins.solve("ABABA")), team, tmp_path)
    assert code == 43 and "more than 10000" in files["judgemessage.txt"]


def test_output_validator_is_a_judge_error_when_the_answer_file_is_wrong(tmp_path: Path) -> None:
    # the answer file claims 'impossible' but the team reaches a goal: the package is at fault (exit not 42/43)
    code, _ = validate("ABABA", b"impossible\n", coins.format_answer(coins.solve("ABABA")), tmp_path)
    assert code not in (42, 43)


# ---------------------------------------------------------------- fuzz hooks


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(fuzz.strategy())
def test_fuzz_inputs_are_valid_and_answers_come_from_the_reference(test_input: bytes) -> None:
    assert input_valid(test_input)[0]
    assert fuzz.answer(test_input) == coins.format_answer(coins.solve(coins.parse_input(test_input)))


# ---------------------------------------------------------------- submissions


def run(argv: list[str], start: str) -> bytes:
    done = subprocess.run(argv, input=coins.format_input(start), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(fuzz.starts())
def test_accepted_python_agrees_with_the_reference(start: str) -> None:
    argv = [sys.executable, "-S", "-B", str(SUBMISSIONS / "accepted" / "bfs.py")]
    assert run(argv, start) == coins.format_answer(coins.solve(start))


def compiled(source: Path, tmp_path: Path) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    exe = tmp_path / source.stem
    subprocess.run(["g++", "-std=gnu++17", "-O2", "-o", str(exe), str(source)], check=True, timeout=120)
    return exe


def test_accepted_cpp_agrees_with_the_reference_on_the_data(tmp_path: Path) -> None:
    exe = compiled(SUBMISSIONS / "accepted" / "bfs.cpp", tmp_path)
    for path in TESTS:
        assert run([str(exe)], coins.parse_input(path.read_bytes())) == path.with_suffix(".ans").read_bytes(), path


def test_seed_program_scores_100_on_ababa(tmp_path: Path) -> None:
    exe = compiled(SUBMISSIONS / "wrong_answer" / "seed_depth5.cpp", tmp_path)
    team = run([str(exe)], "ABABA")
    code, files = validate("ABABA", coins.format_answer(coins.solve("ABABA")), team, tmp_path / "v")
    assert code == 42 and score(files) == 100
    # ...but it knows no 'impossible', and its goal test ignores gaps
    assert run([str(exe)], "ABAB") == b""
    assert b"." in run([str(exe)], "AABAA").split()[-1]  # its last row, "separated", has a gap


def test_seed_order_unchanged_is_a_wrong_answer(tmp_path: Path) -> None:
    exe = compiled(SUBMISSIONS / "wrong_answer" / "seed_goal_first.cpp", tmp_path)
    team = run([str(exe)], "ABABA")
    assert team.split()[0] == b"AAABB" and team.split()[-1] == b"ABABA"
    code, _ = validate("ABABA", coins.format_answer(coins.solve("ABABA")), team, tmp_path / "v")
    assert code == 43
