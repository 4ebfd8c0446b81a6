"""Scores of tests, groups and a submission. Pure functions (see docs/package-format.md, "Scores")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judge.judging.results import CaseResult, GroupScore
from judge.judging.verdict import Verdict
from judge.package.problem import MetricSpec, Problem, ScoreAggregation, TestGroup
from judge.package.testgroups import combine_scores


@dataclass(frozen=True)
class Scored:
    score: float
    max_score: float
    verdict: Verdict
    groups: tuple[GroupScore, ...]
    test_scores: Mapping[str, float]


_BY_MIN = (ScoreAggregation.MIN, ScoreAggregation.PASS_FAIL)


def _static_max(group: TestGroup) -> float:
    """The maximum of the group's static validation test case (2025-09; 0 without one, or pass-fail)."""
    return group.static.max_score if group.static is not None else 0.0


def test_max(group: TestGroup) -> float:
    """The most one test of this group can score (in a sum group, the static validation test case's
    maximum is taken off first: ``(max_score - static_validation_score) / N``, as the 2025-09 spec says)."""
    n = len(group.tests)
    if n == 0 or group.subgroups:
        return 0.0
    return group.max_score if group.aggregation in _BY_MIN else (group.max_score - _static_max(group)) / n


def _static_score(group: TestGroup, results: Mapping[str, CaseResult], tests: dict[str, float]) -> float | None:
    """The score of the group's static validation test case (None: it has none, or it is pass-fail, when
    it counts as one more test that must be accepted)."""
    case = group.static_case()
    if case is None or group.static is None:
        return None
    fraction = _fraction(results.get(case.name))
    if group.static.pass_fail:
        tests[case.name] = 0.0
        return None
    tests[case.name] = fraction * group.static.max_score if group.scored else 0.0
    return tests[case.name]


def _leaf_score(group: TestGroup, results: Mapping[str, CaseResult], tests: dict[str, float]) -> float:
    """The score of a group of tests (no subgroups)."""
    fractions = [_fraction(results.get(t.name)) for t in group.tests]
    static = _static_score(group, results, tests)
    case = group.static_case()
    if case is not None and static is None:  # a pass-fail static validation test case: one more test
        fractions.append(_fraction(results.get(case.name)))
    per_test = test_max(group)
    for t, f in zip(group.tests, fractions, strict=False):
        tests[t.name] = f * per_test if group.scored else 0.0
    if not group.scored:
        return 0.0
    if not fractions:
        return static or 0.0
    if group.aggregation in _BY_MIN:
        score = group.max_score * min(fractions)
        return score if static is None else min(score, static)
    return (group.max_score - _static_max(group)) * sum(fractions) / len(fractions) + (static or 0.0)


def _group_score(
    group: TestGroup, results: Mapping[str, CaseResult], out: list[GroupScore], tests: dict[str, float]
) -> float:
    if group.subgroups:
        parts = [_group_score(sub, results, out, tests) for sub in group.subgroups]
        static = _static_score(group, results, tests)
        score = combine_scores(group.combine, parts + ([static] if static is not None else []))
        for t in group.tests:
            tests[t.name] = 0.0
    else:
        score = _leaf_score(group, results, tests)
    verdict = first_failure([results[t.name] for t in group.judged_cases() if t.name in results])
    out.append(GroupScore(group.name, round(score, 6), group.max_score, verdict))
    return score


def _fraction(result: CaseResult | None) -> float:
    if result is None or result.verdict is not Verdict.AC or result.skipped:
        return 0.0
    return min(max(result.fraction, 0.0), 1.0)


def first_failure(results: Sequence[CaseResult]) -> Verdict:
    for r in results:
        if not r.skipped and r.verdict is not Verdict.AC:
            return r.verdict
    return Verdict.AC


def score_submission(problem: Problem, results: Mapping[str, CaseResult]) -> Scored:
    """Score every group; the problem's score is data/secret's."""
    groups: list[GroupScore] = []
    tests: dict[str, float] = {}
    if problem.sample is not None:
        _group_score(problem.sample, results, groups, tests)
    score = _group_score(problem.secret, results, groups, tests)
    ordered = [results[t.name] for t in problem.judged_cases() if t.name in results]
    verdict = first_failure(ordered)
    if any(r.verdict is Verdict.JE and not r.skipped for r in ordered):
        verdict = Verdict.JE  # never charge the contestant for the judge's failure
    return Scored(round(score, 6), problem.secret.max_score, verdict, tuple(groups), tests)


def _in_groups(group_name: str, wanted: tuple[str, ...]) -> bool:
    if not wanted:
        return group_name == "secret" or group_name.startswith("secret/")
    return any(group_name == w or group_name == f"secret/{w}" or group_name.startswith(f"secret/{w}/") for w in wanted)


def aggregate_metric(spec: MetricSpec | None, results: Sequence[CaseResult]) -> float | None:
    if spec is None:
        return None
    relevant = [r for r in results if _in_groups(r.group, spec.groups)]
    if not relevant or any(r.verdict is not Verdict.AC or r.skipped for r in relevant):
        return None  # a metric only means something for a submission that passes the tests it is taken on
    values = [r.metric for r in relevant if r.metric is not None]
    if not values:
        return None
    match spec.aggregate:
        case "max":
            return max(values)
        case "min":
            return min(values)
        case "sum":
            return sum(values)
    return round(sum(values) / len(values), 6)
