"""Live fuzzing's demo (issue 33's acceptance, docs/live-fuzzing.md "Try it"): `judge contest init DIR
--weak-tests rummy` gives rummy only its samples as secret data; rummy's wrong_answer/runs_of_three.py is
accepted there (and rejected by the real package: tests/test_problem_packages.py), and the fuzz engine live
fuzzing uses finds the run of four it misses."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from judge.commands.cli import main
from judge.fuzz.engine import fuzz_submission
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import FuzzStatus
from judge.judging.submission import Environment, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import make_runner
from judge.serve.model.contest import load_contest

ROOT = Path(__file__).resolve().parent.parent
WRONG = Path("submissions") / "wrong_answer" / "runs_of_three.py"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    problems = tmp_path / "problems"
    for name in ("rummy", "coins"):
        shutil.copytree(ROOT / "problems" / name, problems / name, ignore=shutil.ignore_patterns("__pycache__"))
    dest = tmp_path / "demo"
    argv = ["contest", "init", str(dest), "--problems", str(problems), "--weak-tests", "rummy", "--teams", "2"]
    assert main(argv) == 0
    return dest


def test_weak_tests_leave_only_the_samples_as_secret_data(demo: Path) -> None:
    rummy = demo / "problems" / "rummy"
    secret = sorted(str(p.relative_to(rummy / "data" / "secret")) for p in (rummy / "data" / "secret").rglob("*"))
    samples = sorted(p.name for p in (rummy / "data" / "sample").iterdir() if p.name != "testdata.yaml")
    assert secret == ["samples", *(f"samples/{n}" for n in samples), "samples/testdata.yaml", "testdata.yaml"]
    assert len(samples) == 8  # the samples stay samples too
    contest = load_contest(demo)
    problem = next(cp.problem for cp in contest.problems if cp.id == "rummy")
    assert problem.secret.max_score == 100 and len([t for t in problem.tests() if t.group.startswith("secret")]) == 4
    coins = demo / "problems" / "coins" / "data" / "secret"  # the other problems are untouched
    assert sorted(p.name for p in coins.iterdir()) == sorted(
        p.name for p in (ROOT / "problems" / "coins" / "data" / "secret").iterdir()
    )


def test_weak_tests_refuses_a_problem_it_cannot_fuzz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problems = tmp_path / "problems"
    shutil.copytree(ROOT / "tests" / "fixtures" / "sum", problems / "sum")
    for name, message in (("nope", "no such problem here"), ("sum", "it has no fuzz.py")):
        assert main(["contest", "init", str(tmp_path / "d"), "--problems", str(problems), "--weak-tests", name]) == 2
        assert message in capsys.readouterr().err
        assert not (tmp_path / "d").exists() or not any((tmp_path / "d").iterdir())  # nothing written


def test_the_wrong_program_passes_the_weak_tests_and_fuzzing_catches_it(demo: Path, tmp_path: Path) -> None:
    env = Environment(make_runner(os.environ.get("JUDGE_SANDBOX", "auto")), load_languages(), toolchain())
    rummy = demo / "problems" / "rummy"
    prepared = prepare(load_problem(rummy), env, tmp_path / "prep")
    result = judge_submission(prepared, rummy / WRONG, env)
    assert result.verdict is Verdict.AC and result.score == 100  # the weak set misses it
    out = fuzz_submission(prepared, rummy / WRONG, env, FuzzOptions(examples=200, seed=33, use_database=False))
    assert out.status is FuzzStatus.COUNTEREXAMPLE and out.counterexample is not None, out
    assert out.counterexample.verdict is Verdict.WA and out.counterexample.confirmed
