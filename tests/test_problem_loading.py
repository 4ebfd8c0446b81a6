"""Loading packages: the fixtures load, and broken packages give one-line PackageErrors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge.judging.results import CaseResult
from judge.judging.scoring import score_submission
from judge.judging.verdict import Verdict
from judge.package.problem import AnswerMode, PackageError, ScoreAggregation, load_problem

FIXTURES = Path(__file__).parent / "fixtures"


def test_fixture_types() -> None:
    assert not load_problem(FIXTURES / "sum").scoring
    guess = load_problem(FIXTURES / "guess")
    assert guess.interactive and not guess.multi_pass and guess.output_validator is not None
    rev = load_problem(FIXTURES / "reverse")
    assert rev.multi_pass and rev.limits.validation_passes == 2
    primes = load_problem(FIXTURES / "primes")
    assert primes.scoring
    assert [g.name for g in primes.secret.subgroups] == ["secret/group1", "secret/group2"]
    assert [g.max_score for g in primes.secret.subgroups] == [40, 60]
    assert primes.secret.subgroups[0].aggregation is ScoreAggregation.MIN
    assert load_problem(FIXTURES / "sum").answer_mode is AnswerMode.STDOUT


def test_tests_are_in_judging_order() -> None:
    names = [t.name for t in load_problem(FIXTURES / "primes").tests()]
    assert names[0] == "sample/01"
    assert names == ["sample/01"] + sorted(names[1:])


def _copy(tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copytree(FIXTURES / name, dst)
    return dst


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda p: (p / "problem.yaml").unlink(), "no problem.yaml"),
        (lambda p: (p / "problem.yaml").write_text("name: [unclosed"), "not valid YAML"),
        (lambda p: (p / "problem.yaml").write_text("type: banana"), "unknown problem type"),
        (lambda p: (p / "problem.yaml").write_text("limits: {time_limit: fast}"), "expected a number"),
        (lambda p: [shutil.rmtree(p / "data" / d) for d in ("secret", "sample")], "no data/secret"),
        (lambda p: [f.unlink() for f in (p / "data" / "secret").glob("*.in")], "no test cases"),
        (lambda p: (p / "data/secret/testdata.yaml").write_text("score_aggregation: median"), "score_aggregation"),
    ],
)
def test_broken_packages(tmp_path: Path, mutate, needle: str) -> None:  # type: ignore[no-untyped-def]
    pkg = _copy(tmp_path, "sum")
    mutate(pkg)
    with pytest.raises(PackageError) as info:
        load_problem(pkg)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def _result(name: str, group: str, verdict: Verdict, fraction: float = 1.0) -> CaseResult:
    return CaseResult(name, group, verdict, fraction if verdict is Verdict.AC else 0.0, 0.1, 0.1, 1000)


def test_group_scores() -> None:
    problem = load_problem(FIXTURES / "primes")
    results = {t.name: _result(t.name, t.group, Verdict.AC) for t in problem.tests()}
    full = score_submission(problem, results)
    assert full.score == 100 and full.verdict is Verdict.AC
    g2 = [t for t in problem.tests() if t.group == "secret/group2"]
    results[g2[1].name] = _result(g2[1].name, g2[1].group, Verdict.WA)
    part = score_submission(problem, results)
    assert part.score == 40 and part.verdict is Verdict.WA
    results[g2[1].name] = _result(g2[1].name, g2[1].group, Verdict.AC, 0.5)
    assert score_submission(problem, results).score == 70  # min aggregation: 60 * 0.5


def test_judge_error_is_never_charged() -> None:
    problem = load_problem(FIXTURES / "sum")
    tests = problem.tests()
    results = {t.name: _result(t.name, t.group, Verdict.AC) for t in tests}
    results[tests[1].name] = _result(tests[1].name, tests[1].group, Verdict.JE)
    assert score_submission(problem, results).verdict is Verdict.JE


def test_a_package_with_samples_only_is_judged_on_its_samples(tmp_path: Path) -> None:
    """DOMjudge's `hello` has data/sample only: its samples are the judged and scored tests."""
    pkg = _copy(tmp_path, "sum")
    shutil.rmtree(pkg / "data" / "secret")
    problem = load_problem(pkg)
    assert problem.sample is None
    assert [t.name for t in problem.tests()] == ["sample/00"]
    results = {t.name: _result(t.name, t.group, Verdict.AC) for t in problem.tests()}
    scored = score_submission(problem, results)
    assert scored.verdict is Verdict.AC and scored.score == scored.max_score == 100
