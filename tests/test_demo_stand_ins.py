"""The demo's own programs that stand in for a package's program (submissions/README.md).

`hazel/go.py`, `hazel/klondike.cpp` and `cedar/klondike.py` show the mistakes of the packages'
`wrong_answer/base3_71_bytes.py`, `time_limit_exceeded/plain_dfs.cpp` and `wrong_answer/greedy.py`, but
were written on their own, so that `judge similarity submissions/` does not flag them as copies of the
demo's other programs (docs/similarity.md). `judge verify` pins the packages' programs' verdicts; these
tests pin that the demo's answer as they do, test by test, so their verdicts are the same. None of these
programs is hostile: they run directly, as in tests/test_go_submissions.py.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.commands.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "submissions"
PROBLEMS = ROOT / "problems"
PYTHON = [sys.executable, "-S", "-B"]


def run(argv: list[str], stdin: bytes) -> bytes:
    done = subprocess.run(argv, input=stdin, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def inputs(problem: str) -> list[Path]:
    return sorted((PROBLEMS / problem / "data").rglob("*.in"))


def test_hazels_go_coder_encodes_and_decodes_as_the_packages_71_byte_coder() -> None:
    ours = [*PYTHON, str(DEMO / "hazel" / "go.py")]
    theirs = [*PYTHON, str(PROBLEMS / "go" / "submissions" / "wrong_answer" / "base3_71_bytes.py")]
    rng = random.Random(49)
    boards = [path.read_bytes() for path in inputs("go")]
    for _ in range(20):
        density = rng.random()
        rows = ("".join(rng.choice("BW") if rng.random() < density else "." for _ in range(19)) for _ in range(19))
        boards.append(("ENCODE\n" + "".join(row + "\n" for row in rows)).encode())
    lost = 0
    for board in boards:
        encoded = run(ours, board)
        assert encoded == run(theirs, board) and len(encoded) == 71
        decoded = run(ours, b"DECODE\n" + encoded)
        assert decoded.split() == run(theirs, b"DECODE\n" + encoded).split()
        lost += decoded.split() != board.split()[1:]
    assert lost > 0  # still the mistake it is there to show


def test_cedars_greedy_klondike_answers_as_the_packages_greedy_on_every_test() -> None:
    ours = [*PYTHON, str(DEMO / "cedar" / "klondike.py")]
    theirs = [*PYTHON, str(PROBLEMS / "klondike" / "submissions" / "wrong_answer" / "greedy.py")]
    for path in inputs("klondike"):
        text = path.read_bytes()
        got = run(ours, text)
        assert got == run(theirs, text), path.name
        if path.parent.name == "solve":  # the greedy is wrong, never above the optimum
            best = [int(x) for x in path.with_suffix(".ans").read_text().split()]
            assert all(g <= b for g, b in zip(map(int, got.split()), best, strict=True))


# The tests on which the package's plain search finishes (it runs out of time on the others), and the
# deals (numbered from 1) of the others on which it does: all 52 out early, or a small search.
FINISHING = ["sample/2", "secret/solve/01_random", "secret/solve/02_no_move", "secret/stats/01_small"]
FINISHING_DEALS = {
    "sample/1": [1, 2, 4, 5],
    "secret/solve/03_complete": [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 19, 20, 22, 23, 26, 27],
    "secret/solve/04_kings": [6, 7, 8],
    "secret/solve/05_king_choice": [1, 2, 3, 6],
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_hazels_brute_force_klondike_answers_as_the_packages_plain_search(tmp_path: Path) -> None:
    exes = []
    for source in (
        DEMO / "hazel" / "klondike.cpp",
        PROBLEMS / "klondike" / "submissions" / "time_limit_exceeded" / "plain_dfs.cpp",
    ):
        exe = tmp_path / source.stem
        subprocess.run(["g++", "-std=gnu++17", "-O2", "-o", str(exe), str(source)], check=True)
        exes.append(str(exe))
    data = PROBLEMS / "klondike" / "data"
    for name in FINISHING:
        text = (data / f"{name}.in").read_bytes()
        assert run([exes[0]], text) == run([exes[1]], text), name
    deals, best = [], []
    for name, numbers in FINISHING_DEALS.items():
        lines = (data / f"{name}.in").read_text().splitlines()[1:]
        answers = (data / f"{name}.ans").read_text().split()
        deals += [lines[k - 1] for k in numbers]
        best += [answers[k - 1] for k in numbers]
    text = (f"solve {len(deals)}\n" + "".join(deal + "\n" for deal in deals)).encode()
    assert run([exes[0]], text).split() == [b.encode() for b in best] == run([exes[1]], text).split()
    for seed in (1, 2, 3):  # every deal's exact score, through the statistics of 1000 of them
        text = f"stats 1000 {seed}\n".encode()
        assert run([exes[0]], text) == run([exes[1]], text)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_hazels_brute_force_klondike_runs_out_of_time_where_the_plain_search_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The judge on sample 1 (whose third deal is a large search without a table) and a random solve test."""
    package = tmp_path / "klondike"
    shutil.copytree(PROBLEMS / "klondike", package, ignore=shutil.ignore_patterns("submissions", "__pycache__"))
    keep = {"sample/1", "secret/solve/01_random"}
    for path in (package / "data").rglob("*.in"):
        name = path.relative_to(package / "data").with_suffix("").as_posix()
        if name not in keep:
            path.unlink()
            path.with_suffix(".ans").unlink()
    assert main(["run", str(package), str(DEMO / "hazel" / "klondike.cpp"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [(t["name"], t["verdict"]) for t in result["tests"]] == [
        ("sample/1", "TLE"),
        ("secret/solve/01_random", "AC"),
    ]
