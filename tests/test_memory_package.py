"""Problem ``memory``: the package's data, generator, input validator, fuzz hooks and stub detection."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from judge.package.problem import load_problem
from reference.memory import SEED_WORST, parse_spec

PACKAGE = Path(__file__).resolve().parent.parent / "problems" / "memory"
INPUT_VALIDATOR = PACKAGE / "input_validators" / "validate.py"
ALL_INPUTS = sorted((PACKAGE / "data").rglob("*.in"))


def _load_fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("memory_fuzz_hooks", PACKAGE / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fuzz = _load_fuzz()


def validate_input(data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, str(INPUT_VALIDATOR)], input=data, capture_output=True, timeout=60)


def test_generator_reproduces_the_committed_data(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(PACKAGE / "generators" / "gen.py"), str(tmp_path)], check=True, timeout=120)
    committed = {p.relative_to(PACKAGE / "data"): p.read_bytes() for p in (PACKAGE / "data").rglob("*") if p.is_file()}
    generated = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert generated == committed


def test_groups_judge_the_same_tests() -> None:
    candies = PACKAGE / "data" / "secret" / "candies"
    flips = PACKAGE / "data" / "secret" / "flips"
    assert [(p.name, p.read_bytes()) for p in sorted(candies.glob("*.in"))] == [
        (p.name, p.read_bytes()) for p in sorted(flips.glob("*.in"))
    ]
    settings_c = yaml.safe_load((candies / "testdata.yaml").read_text())
    settings_f = yaml.safe_load((flips / "testdata.yaml").read_text())
    assert (settings_c["range"], settings_f["range"]) == ("0 30", "0 70")
    assert (settings_c["accept_score"], settings_f["accept_score"]) == (30, 70)  # what Kattis tools score
    assert settings_c["output_validator_flags"] == "candies" and settings_f["output_validator_flags"] == "flips"
    problem = load_problem(PACKAGE)
    assert problem.group("secret/candies").validator_args == ("candies",)
    assert (problem.group("secret/candies").max_score, problem.group("secret/flips").max_score) == (30, 70)
    kinds = {parse_spec(p.read_text()).kind for p in flips.glob("*.in")}
    assert kinds == {"random", "fixed", "adversary"}
    assert any(parse_spec(p.read_text()).layout == SEED_WORST for p in flips.glob("*.in"))


def test_every_test_is_valid_input() -> None:
    assert len(ALL_INPUTS) > 30
    data = b"".join(p.read_bytes() for p in ALL_INPUTS[:1])
    assert validate_input(data).returncode == 42
    for path in ALL_INPUTS:  # in-process: the same parser the validator uses
        parse_spec(path.read_text())


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"adversary oldest 1",
        b"adversary bogus 1\n",
        b"fixed x\n" + SEED_WORST.encode(),
        b"fixed x\n" + SEED_WORST[:-2].encode() + b"AA\n",
        b"fixed x\n" + SEED_WORST.lower().encode() + b"\n",
        b"fixed x\n" + SEED_WORST.encode() + b"\nmore\n",
        b"fixed \xff\n" + SEED_WORST.encode() + b"\n",
    ],
)
def test_input_validator_rejects(data: bytes) -> None:
    run = validate_input(data)
    assert run.returncode == 43 and run.stderr


def test_fuzz_answers_match_the_committed_answers() -> None:
    for path in ALL_INPUTS:
        assert fuzz.answer(path.read_bytes()) == path.with_suffix(".ans").read_bytes()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzz.strategy())
def test_fuzz_inputs_are_valid(data: bytes) -> None:
    parse_spec(data.decode("ascii"))
    assert int(fuzz.answer(data)) <= 98


@settings(max_examples=5, deadline=None)
@given(fuzz.strategy())
def test_fuzz_inputs_pass_the_input_validator(data: bytes) -> None:
    assert validate_input(data).returncode == 42


def test_stub_detection_picks_function_style_submissions_only() -> None:
    stubs = yaml.safe_load((PACKAGE / "judge.yaml").read_text())["stubs"]
    language = {".py": "python3", ".c": "c", ".cpp": "cpp", ".pas": "pascal"}
    function_style = {
        "greedy_faceup.c",
        "reference_function.py",
        "seed_naive.pas",
        "seed_improved.pas",
        "same_card_twice.py",
    }
    for path in sorted((PACKAGE / "submissions").rglob("*.*")):
        detect = stubs[language[path.suffix]]["detect"]
        assert bool(re.search(detect, path.read_text())) == (path.name in function_style), path.name
    python = stubs["python3"]["detect"]
    assert re.search(python, "import sys\ndef play(turn_card):\n    pass\n")
    assert not re.search(python, "def play(turn_card):\n    x = input()\n")
    assert not re.search(python, "class A:\n    def play(self):\n        pass\n")
    assert re.search(stubs["c"]["detect"], '#include "grader.h"\nvoid play(void) { faceup(1); }\n')
    assert not re.search(stubs["c"]["detect"], "void play(void) {}\nint main(void) { play(); }\n")
    assert re.search(stubs["pascal"]["detect"], "UNIT memory;\ninterface\n")
    assert not re.search(stubs["pascal"]["detect"], "program Memory;\n")
    for language_id, stub in stubs.items():
        assert stub["files"] == f"stubs/{language_id}"  # not include/: Kattis tools add that to every submission
        assert (PACKAGE / stub["files"] / stub["main"]).is_file()
