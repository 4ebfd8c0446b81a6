"""Counterexamples for real rejected programs (docs/explain.md), in the sandbox: the demo's wrong Rummy
(cedar's: no wrap-around from 13 to 1) and wrong Coins (cedar's: stops at a goal with gaps) each get an input
that the package's input validators accept, that is none of the package's tests, and that really fails
them when it is added to (a copy of) the package as a test and the program is judged again. A multi-pass
(Go) and an interactive (Memory) problem show the exchange."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from judge.fuzz import save
from judge.fuzz.explain import explain_submission
from judge.fuzz.explanation import ExplainStatus, Explanation, known_inputs
from judge.fuzz.outcome import Counterexample
from judge.fuzz.trial import input_validators
from judge.judging.submission import Environment, Prepared, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import make_runner

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(make_runner(os.environ.get("JUDGE_SANDBOX", "auto")), load_languages(), toolchain())


def prepared(problem_id: str, env: Environment, work: Path) -> Prepared:
    return prepare(load_problem(ROOT / "problems" / problem_id), env, work)


def explained(problem_id: str, source: Path, env: Environment, tmp_path: Path) -> tuple[Prepared, Explanation]:
    package = prepared(problem_id, env, tmp_path / "prep")
    verdict = judge_submission(package, source, env).verdict
    out = explain_submission(package, source, env, verdict)
    assert out.status is ExplainStatus.FOUND, out
    assert out.verdict is verdict and out.input is not None and out.answer is not None
    return package, out


@pytest.mark.parametrize(
    ("problem_id", "source"),
    [("rummy", ROOT / "submissions" / "cedar" / "rummy.c"), ("coins", ROOT / "submissions" / "cedar" / "coins.py")],
)
def test_the_counterexample_really_fails_the_program(
    problem_id: str, source: Path, env: Environment, tmp_path: Path
) -> None:
    package, out = explained(problem_id, source, env, tmp_path)
    assert out.input is not None and out.answer is not None and out.failure is Verdict.WA
    assert not known_inputs(package.problem).holds(out.input)  # never one of the package's tests
    assert len(out.input) < 100 and out.message  # shrunk; the validator says why
    for validator in input_validators(package.problem, env, tmp_path / "iv"):
        assert validator.check(out.input, env.runner, tmp_path) is None, validator.name

    copy = tmp_path / problem_id
    shutil.copytree(ROOT / "problems" / problem_id, copy, ignore=shutil.ignore_patterns("submissions"))
    cex = Counterexample(out.input, out.answer, out.output, out.failure, out.message, True)
    save.save_counterexample(load_problem(copy), cex)
    again = judge_submission(prepare(load_problem(copy), env, tmp_path / "prep2"), source, env)
    added = [t for t in again.tests if t.name.endswith(save.test_name(out.input))]
    assert len(added) == 1 and added[0].verdict is Verdict.WA, again.tests
    assert again.verdict is Verdict.WA


def test_a_multi_pass_problem_shows_the_passes(env: Environment, tmp_path: Path) -> None:
    source = ROOT / "problems" / "go" / "submissions" / "wrong_answer" / "two_bits_per_point.cpp"
    _, out = explained("go", source, env, tmp_path)
    assert out.transcript.startswith("--- pass 1: input (the test)\nENCODE\n")
    assert "--- pass 1: the program's output" in out.transcript
    assert "more than the allowed 80" in out.message


def test_an_interactive_problem_shows_the_exchange(env: Environment, tmp_path: Path) -> None:
    source = ROOT / "problems" / "memory" / "submissions" / "protocol_violation" / "zero_based.c"
    _, out = explained("memory", source, env, tmp_path)
    assert out.verdict is Verdict.PV and out.failure is Verdict.PV
    assert out.transcript.startswith("> 0") and "out of range" in out.message
