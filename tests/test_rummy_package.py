"""Problem ``rummy``: data, generator, validators (Kattis convention, through subprocess) and fuzz hooks."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from judge.package.problem import load_problem
from reference import rummy

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "rummy"
DATA = PACKAGE / "data"
INPUT_VALIDATOR = PACKAGE / "input_validators" / "validate.py"
OUTPUT_VALIDATOR = PACKAGE / "output_validator" / "rummy_exit" / "validate.py"
GROUPS = sorted(p for p in (DATA / "secret").iterdir() if p.is_dir())


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fuzz = load("rummy_fuzz_hooks", PACKAGE / "fuzz.py")
wrong = load("rummy_wrong_ideas", PACKAGE / "generators" / "wrong.py")
input_check = load("rummy_input_validator", INPUT_VALIDATOR).check


def cases(folder: Path) -> list[tuple[str, tuple[int, ...], int]]:
    return [
        (p.stem, rummy.parse_input(p.read_text()), int(p.with_suffix(".ans").read_text()))
        for p in sorted(folder.glob("*.in"))
    ]


def group_args(group: Path) -> list[str]:
    config = yaml.safe_load((group / "testdata.yaml").read_text())
    return str(config.get("input_validator_flags", "")).split()


def validate_input(data: bytes, *args: str) -> int:
    run = subprocess.run([sys.executable, str(INPUT_VALIDATOR), *args], input=data, capture_output=True, timeout=60)
    return run.returncode


def validate_output(tmp_path: Path, counts: str, answer: str, team: str) -> tuple[int, str]:
    (tmp_path / "t.in").write_text(counts)
    (tmp_path / "t.ans").write_text(answer)
    feedback = tmp_path / "feedback"
    feedback.mkdir(exist_ok=True)
    run = subprocess.run(
        [sys.executable, str(OUTPUT_VALIDATOR), str(tmp_path / "t.in"), str(tmp_path / "t.ans"), f"{feedback}/"],
        input=team.encode(),
        capture_output=True,
        timeout=60,
    )
    message = feedback / "judgemessage.txt"
    return run.returncode, message.read_text() if message.exists() else run.stderr.decode()


# --- data ----------------------------------------------------------------------------------------------


def test_generator_reproduces_the_committed_data(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(PACKAGE / "generators" / "gen.py"), str(tmp_path)], check=True, timeout=120)
    committed = {p.relative_to(DATA): p.read_bytes() for p in DATA.rglob("*") if p.is_file()}
    generated = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert generated == committed


def test_answers_are_the_reference_and_groups_are_balanced() -> None:
    assert [g.name for g in GROUPS] == ["1-linear", "2-small", "3-full"]
    for folder in [DATA / "sample", *GROUPS]:
        found = cases(folder)
        assert found, folder
        for name, counts, answer in found:
            assert answer == rummy.exit_status(counts), (folder.name, name)
        assert 2 * sum(answer == 0 for _, _, answer in found) == len(found), folder.name
    scores = [float(yaml.safe_load((g / "testdata.yaml").read_text())["range"].split()[1]) for g in GROUPS]
    assert sum(scores) == 100
    problem = load_problem(PACKAGE)
    assert [problem.group(f"secret/{g.name}").max_score for g in GROUPS] == scores


def test_the_issue_s_required_tests_are_there() -> None:
    everything = {counts for g in [DATA / "sample", *GROUPS] for _, counts, _ in cases(g)}
    assert (4, 9, 34, 75, 10, 90, 45, 23, 7, 76, 25, 19, 95) in everything  # the seed's example
    assert (0,) * 13 in everything and (100,) * 13 in everything
    assert any(sum(1 for c in counts if c) == 1 for counts in everything)  # a single non-zero count
    big = [c for c in everything if max(c) >= 60 and rummy.layable(c)]
    assert any(
        not rummy.layable((*c[:i], c[i] + d, *c[i + 1 :]))
        for c in big
        for i in range(13)
        for d in (-1, 1)
        if (*c[:i], c[i] + d, *c[i + 1 :]) in everything
    )  # a large input and a near miss of it


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_every_wrong_idea_fails_in_every_group_where_it_can(group: Path) -> None:
    found = cases(group)
    for name, idea in wrong.WRONG_IDEAS.items():
        if name == "no_wrap" and group.name == "1-linear":  # no run can wrap there: it is exact
            assert all(idea(c) == (a == 0) for _, c, a in found)
            continue
        assert any(idea(c) != (a == 0) for _, c, a in found), (group.name, name)


def test_every_test_is_valid_input() -> None:
    for group in [DATA / "sample", *GROUPS]:
        args = group_args(group) if (group / "testdata.yaml").exists() else []
        for path in sorted(group.glob("*.in")):
            assert input_check(path.read_text(), args) is None, path
    assert validate_input((GROUPS[0] / "02-single-count.in").read_bytes(), *group_args(GROUPS[0])) == 42


# --- input validator ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "args"),
    [
        (b"", []),
        (b"0 0 0 0 0 0 0 0 0 0 0 0\n", []),  # 12 counts
        (b"0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", []),  # 14 counts
        (b"0 0 0 0 0 0 0 0 0 0 0 0 101\n", []),
        (b"0 0 0 0 0 0 0 0 0 0 0 0 -1\n", []),
        (b"0 0 0 0 0 0 0 0 0 0 0 0 07\n", []),
        (b"0 0 0 0 0 0 0 0 0 0 0 0 +7\n", []),
        (b"0 0 0 0 0 0 0 0 0 0 0 0 0", []),  # no newline
        (b"0  0 0 0 0 0 0 0 0 0 0 0 0\n", []),
        (b"0\t0 0 0 0 0 0 0 0 0 0 0 0\n", []),
        (b"0 0 0 0 0 0 0 0 0 0 0 0 0\n\n", []),
        (b"0 0 0 0 0 0 0 0 0 0 0 0 1\n", ["linear"]),
        (b"5 0 0 0 0 0 0 0 0 0 0 0 0\n", ["max", "4"]),
        (b"0 0 0 0 0 0 0 0 0 0 0 0 \xd9\xa0\n", []),
    ],
)
def test_input_validator_rejects(data: bytes, args: list[str]) -> None:
    assert validate_input(data, *args) == 43


@pytest.mark.parametrize(
    ("data", "args"),
    [
        (b"0 0 0 0 0 0 0 0 0 0 0 0 0\n", ["linear", "max", "4"]),
        (b"100 100 100 100 100 100 100 100 100 100 100 100 100\n", []),
        (b"4 4 0 0 0 0 0 0 0 0 0 3 4\n", ["max", "4"]),
    ],
)
def test_input_validator_accepts(data: bytes, args: list[str]) -> None:
    assert validate_input(data, *args) == 42


# --- output validator -----------------------------------------------------------------------------------

LAYABLE = "1 1 2 1 1 0 0 0 0 0 0 0 0\n"
STUCK = "0 0 0 0 2 2 1 1 1 0 0 0 0\n"


@pytest.mark.parametrize(
    ("counts", "answer", "team", "verdict"),
    [
        (LAYABLE, "0\n", "0\n", 42),
        (LAYABLE, "0\n", "1\n", 43),
        (LAYABLE, "0\n", "255\n", 43),
        (STUCK, "1\n", "1\n", 42),
        (STUCK, "1\n", "255\n", 42),  # exit(-1): any non-zero status means "not layable"
        (STUCK, "1\n", "3", 42),
        (STUCK, "1\n", "0\n", 43),
    ],
)
def test_output_validator_compares_zero_and_nonzero(
    tmp_path: Path, counts: str, answer: str, team: str, verdict: int
) -> None:
    code, message = validate_output(tmp_path, counts, answer, team)
    assert code == verdict
    assert message.startswith("correct" if verdict == 42 else "wrong")


@pytest.mark.parametrize(
    ("counts", "answer", "team"),
    [
        (LAYABLE, "0\n", ""),  # not an exit status: the judge did not honour answer: exit_code
        (LAYABLE, "0\n", "yes\n"),
        (LAYABLE, "1\n", "1\n"),  # the answer file disagrees with the reference
        (LAYABLE, "2\n", "0\n"),
    ],
)
def test_output_validator_blames_the_judge_not_the_team(tmp_path: Path, counts: str, answer: str, team: str) -> None:
    code, _ = validate_output(tmp_path, counts, answer, team)
    assert code not in (42, 43)


# --- fuzz hooks ------------------------------------------------------------------------------------------


def test_fuzz_strategy_yields_valid_inputs_of_both_kinds() -> None:
    seen: list[bytes] = []

    @settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
    @given(fuzz.strategy())
    def collect(data: bytes) -> None:
        assert input_check(data.decode("ascii"), []) is None, data
        seen.append(data)

    collect()
    answers = [fuzz.answer(data) for data in seen]
    layable = answers.count(b"0\n")
    assert set(answers) == {b"0\n", b"1\n"}
    assert 0.25 * len(seen) <= layable <= 0.75 * len(seen), (layable, len(seen))
    for data in seen[:: max(1, len(seen) // 5)]:  # and the real validator agrees on a few
        assert validate_input(data) == 42


def test_fuzz_answer_and_accepts_match_the_package() -> None:
    for group in [DATA / "sample", *GROUPS]:
        for path in sorted(group.glob("*.in")):
            answer = path.with_suffix(".ans").read_bytes()
            assert fuzz.answer(path.read_bytes()) == answer
            for status in (b"0\n", b"1\n", b"255\n"):
                assert fuzz.accepts(path.read_bytes(), answer, status) == ((status == b"0\n") == (answer == b"0\n"))
