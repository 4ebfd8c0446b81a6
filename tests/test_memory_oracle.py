"""Problem ``memory``: the interactive oracle (Kattis convention, through subprocess), the stubs, and the
seed's two Pascal units run unchanged against the oracle.

The programs run here are the package's own trusted ones (not hostile), so they run without a sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from reference.memory import (
    LETTERS,
    SEED_WORST,
    FixedDealer,
    Game,
    improved_play,
    naive_play,
    parse_spec,
    play,
    simulate,
)
from reference.memory_adversary import dealer_for

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "memory"
VALIDATOR = PACKAGE / "output_validator" / "oracle" / "validate.py"
SUBMISSIONS = PACKAGE / "submissions"
SORTED = "".join(letter * 2 for letter in LETTERS)
RANDOM_TEST = PACKAGE / "data" / "secret" / "flips" / "01-random.in"
ADVERSARY_TESTS = [
    path
    for path in sorted((PACKAGE / "data" / "secret" / "flips").glob("*.in"))
    if path.read_text().startswith("adversary ")
]


class Result:
    def __init__(self, code: int, feedback: Path) -> None:
        self.code = code
        self.message = (feedback / "judgemessage.txt").read_text()
        metric = feedback / "metric.txt"
        self.metric = metric.read_text().strip() if metric.is_file() else None

    @property
    def pv(self) -> bool:
        return self.message.startswith("PV:")


class Session:
    """The test plays the program's side: card numbers go to the oracle's stdin, answers come back."""

    def __init__(self, tmp: Path, test: str, mode: str | None = None) -> None:
        (tmp / "t.in").write_text(test)
        (tmp / "t.ans").write_text("")
        self.feedback = tmp / "feedback"
        self.feedback.mkdir()
        args = [sys.executable, str(VALIDATOR), str(tmp / "t.in"), str(tmp / "t.ans"), f"{self.feedback}/"]
        self.proc = subprocess.Popen(args + ([mode] if mode else []), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.transcript: list[tuple[int, str]] = []

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().decode().strip()

    def turn_card(self, position: int) -> str:
        self.send(f"{position}\n".encode())
        answer = self.read()
        self.transcript.append((position, answer))
        return "" if answer == "0" else answer

    def finish(self) -> Result:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=60)
        return Result(self.proc.returncode, self.feedback)


def fixed(layout: str, name: str = "t") -> str:
    return f"fixed {name}\n{layout}\n"


def play_session(tmp: Path, test: str, strategy: Callable[[Callable[[int], str]], object], mode: str | None = None):
    session = Session(tmp, test, mode)
    strategy(session.turn_card)
    return session


def test_a_game_is_answered_and_ends_with_END(tmp_path: Path) -> None:
    session = play_session(tmp_path, RANDOM_TEST.read_text(), play)
    assert session.read() == "END"
    result = session.finish()
    expected, _ = simulate(play, dealer_for(parse_spec(RANDOM_TEST.read_text())))
    assert result.code == 42 and result.metric == str(expected.flips)
    assert f"game over after {expected.flips} valid flips" in result.message


def test_invalid_flips_are_answered_0_and_not_counted(tmp_path: Path) -> None:
    session = Session(tmp_path, fixed(SORTED))
    assert [session.turn_card(p) for p in (1, 1, 3, 2, 1, 1, 2)] == ["A", "", "B", "A", "A", "", ""]
    session.send(b"3\n")  # 1st card of a turn: valid
    assert session.read() == "B"
    result = session.finish()
    assert result.code == 43 and not result.pv
    assert "5 valid flips (8 card numbers)" in result.message and "24 pairs left" in result.message


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"abc\n", "expected a card number"),
        (b"\n", "expected a card number"),
        (b"1 2\n", "expected a card number"),
        (b"0\n", "out of range"),
        (b"51\n", "out of range"),
        (b"-3\n", "out of range"),
        (b"1" * 100 + b"\n", "longer than"),
    ],
)
def test_garbage_and_out_of_range_are_protocol_violations(tmp_path: Path, line: bytes, why: str) -> None:
    session = Session(tmp_path, fixed(SORTED))
    session.turn_card(5)
    session.send(line)
    assert session.read() == ""  # no answer: the oracle has stopped
    result = session.finish()
    assert result.code == 43 and result.pv and why in result.message


def test_more_than_1000_card_numbers(tmp_path: Path) -> None:
    session = Session(tmp_path, fixed(SORTED))
    session.send(b"1\n3\n" * 500)  # 1000 valid flips, never a pair
    answers = [session.read() for _ in range(1000)]
    assert answers == ["A", "B"] * 500
    session.send(b"1\n")
    assert session.read() == ""
    result = session.finish()
    assert result.code == 43 and result.pv and "more than 1000" in result.message


def test_writing_after_END_is_a_protocol_violation(tmp_path: Path) -> None:
    session = play_session(tmp_path, fixed(SORTED), play)
    assert session.read() == "END"
    session.send(b"1\n")
    result = session.finish()
    assert result.code == 43 and result.pv and "after END" in result.message


def look_at_everything(turn_card: Callable[[int], str]) -> None:
    for position in range(1, 51):
        turn_card(position)


@pytest.mark.parametrize(("mode", "code"), [("candies", 42), ("flips", 43), (None, 43)])
def test_stopping_early_with_all_candies(tmp_path: Path, mode: str | None, code: int) -> None:
    # On the alphabet twice, turns (1,2), (3,4), ... never make a pair but show every card.
    result = play_session(tmp_path, fixed(LETTERS + LETTERS), look_at_everything, mode).finish()
    assert result.code == code and not result.pv and "25 pairs left" in result.message


def test_stopping_early_without_all_candies(tmp_path: Path) -> None:
    result = play_session(tmp_path, fixed(SORTED), lambda tc: [tc(p) for p in (1, 3, 5, 7)], "candies").finish()
    assert result.code == 43 and not result.pv and "0/25 candies" in result.message


def test_silence_then_exit_is_not_a_hang(tmp_path: Path) -> None:
    # A program that never talks: when the judge kills it the oracle sees end of file and stops at once.
    result = Session(tmp_path, fixed(SORTED)).finish()
    assert result.code == 43 and "0 valid flips" in result.message


@pytest.mark.parametrize(
    ("prefix", "mode", "code"), [((), "flips", 42), ((1, 3), "flips", 43), ((1, 3), "candies", 42)]
)
def test_the_100_flip_bound(tmp_path: Path, prefix: tuple[int, ...], mode: str, code: int) -> None:
    def strategy(turn_card: Callable[[int], str]) -> None:
        for position in prefix:  # a turn that shows nothing new
            turn_card(position)
        naive_play(turn_card)  # 100 flips on the seed's worst case

    result = play_session(tmp_path, fixed(SEED_WORST), strategy, mode).finish()
    assert result.code == code and not result.pv
    assert f"game over after {100 + len(prefix)} valid flips" in result.message


@pytest.mark.parametrize("test", ADVERSARY_TESTS, ids=lambda p: p.stem)
@pytest.mark.parametrize(("strategy", "worst"), [(naive_play, 100), (improved_play, 98)])
def test_adversary_transcript_is_consistent(tmp_path: Path, test: Path, strategy, worst: int) -> None:
    session = play_session(tmp_path, test.read_text(), strategy)
    result = session.finish()
    assert result.code == 42 and f"game over after {worst} valid flips" in result.message
    assert "consistent: replaying" in result.message
    layout = result.message.split("adversary's layout: ")[1].split()[0]
    # the logged layout is a real layout, and as a fixed layout it gives exactly the answers we got
    game = Game(FixedDealer(layout))
    assert [(p, game.flip(p) or "0") for p, _ in session.transcript] == session.transcript


# ----------------------------------------------------------------------------- real programs


def run_program(argv: Sequence[str], cwd: Path, test: Path, tmp: Path, mode: str | None = None) -> Result:
    """Kattis interactive: the program's stdout is the oracle's stdin and the other way round."""
    feedback = tmp / f"feedback-{test.stem}-{mode}"
    feedback.mkdir()
    to_oracle_r, to_oracle_w = os.pipe()
    to_program_r, to_program_w = os.pipe()
    oracle_argv = [sys.executable, str(VALIDATOR), str(test), str(test.with_suffix(".ans")), f"{feedback}/"]
    oracle = subprocess.Popen(oracle_argv + ([mode] if mode else []), stdin=to_oracle_r, stdout=to_program_w)
    program = subprocess.Popen(list(argv), cwd=cwd, stdin=to_program_r, stdout=to_oracle_w)
    for fd in (to_oracle_r, to_oracle_w, to_program_r, to_program_w):
        os.close(fd)
    try:
        program.wait(timeout=30)
    finally:
        if program.poll() is None:
            program.kill()
            program.wait()
        oracle.wait(timeout=30)
    return Result(oracle.returncode, feedback)


def stub_box(tmp: Path, language: str, submission: Path, name: str) -> Path:
    box = tmp / f"box-{language}-{submission.stem}"
    shutil.copytree(PACKAGE / "stubs" / language, box)
    shutil.copy(submission, box / name)
    return box


TESTS_TO_RUN = [PACKAGE / "data" / "sample" / "1.in", RANDOM_TEST, *ADVERSARY_TESTS[:1]]


def expected_flips(test: Path, strategy=play) -> int:
    outcome, _ = simulate(strategy, dealer_for(parse_spec(test.read_text())))
    return outcome.flips


def check_runs(argv: Sequence[str], cwd: Path, tmp: Path, strategy=play) -> None:
    for test in TESTS_TO_RUN:
        result = run_program(argv, cwd, test, tmp)
        assert result.code == 42, result.message
        assert f"game over after {expected_flips(test, strategy)} valid flips" in result.message


def test_standalone_reference_agrees_with_the_reference(tmp_path: Path) -> None:
    check_runs([sys.executable, "-S", "-B", str(SUBMISSIONS / "accepted" / "reference.py")], tmp_path, tmp_path)


def test_python_stub_runs_play(tmp_path: Path) -> None:
    box = stub_box(tmp_path, "python3", SUBMISSIONS / "accepted" / "reference_function.py", "solution.py")
    check_runs([sys.executable, "-S", "-B", "main.py"], box, tmp_path)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_c_stub_runs_play(tmp_path: Path) -> None:
    box = stub_box(tmp_path, "c", SUBMISSIONS / "accepted" / "greedy_faceup.c", "solution.c")
    subprocess.run(["gcc", "-std=gnu17", "-O2", "-o", "prog", "main.c", "solution.c"], cwd=box, check=True)
    for test in TESTS_TO_RUN:  # right to left: a mirror image of the reference
        spec = parse_spec(test.read_text())
        result = run_program(["./prog"], box, test, tmp_path)
        assert result.code == 42, result.message
        if spec.kind != "adversary":
            mirrored = simulate(play, FixedDealer(spec.layout[::-1]))[0].flips
            assert f"game over after {mirrored} valid flips" in result.message


FPC_REASON = "fpc (Free Pascal) is not installed here; CI installs it (fp-compiler)"


@pytest.mark.skipif(shutil.which("fpc") is None, reason=FPC_REASON)
@pytest.mark.parametrize(
    ("unit", "port", "worst"), [("seed_naive.pas", naive_play, 100), ("seed_improved.pas", improved_play, 98)]
)
def test_seed_pascal_units_run_unchanged(tmp_path: Path, unit: str, port, worst: int) -> None:
    source = SUBMISSIONS / "accepted" / unit
    box = stub_box(tmp_path, "pascal", source, "memory.pas")
    assert (box / "memory.pas").read_bytes() == source.read_bytes()
    build = subprocess.run(
        ["fpc", "-Mobjfpc", "-O2", "-v0", "-oprog", "main.pas"], cwd=box, capture_output=True, text=True
    )
    assert build.returncode == 0, build.stdout + build.stderr
    check_runs(["./prog"], box, tmp_path, port)
    for test in ADVERSARY_TESTS:
        result = run_program(["./prog"], box, test, tmp_path, "flips")
        assert result.code == 42 and f"game over after {worst} valid flips" in result.message
