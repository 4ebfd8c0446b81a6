"""The scoring rules (docs/package-format.md, "Test groups and scores") through a scripted FakeRunner (no
root, no sandbox, sub-second), beyond what tests/test_judging_rules.py covers: `sum` and `min` groups, each
test's share, the validator's score files, partial scores, where a group stops, samples, 2025-09 groups."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml
from fakes import FakeRunner, Reply, accept, crash, make_package, ran, reject
from rules_support import judge, program_runs, validator

from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict


def two_groups(
    tmp_path: Path, g1: Mapping[str, object], g2: Mapping[str, object], samples: int = 0, **config: object
) -> Path:
    """A scoring problem: groups secret/g1 (worth 40) and secret/g2 (worth 60) of two tests each, with their
    other settings ``g1`` and ``g2``; ``samples`` sample tests."""
    tests = {f"secret/{g}/{i:02d}": (b"x\n", b"x\n") for g in ("g1", "g2") for i in range(2)}
    tests.update({f"sample/{i:02d}": (b"x\n", b"x\n") for i in range(samples)})
    groups = {"secret": {}, "secret/g1": {"max_score": 40, **g1}, "secret/g2": {"max_score": 60, **g2}}
    return make_package(tmp_path / "pkg", {"name": "g", "type": "scoring", **config}, tests, groups=groups)


def grade(tmp_path: Path, package: Path, validators: list[Reply]) -> SubmissionResult:
    """Judge with every program run answering and the validators as scripted (one per test, in order)."""
    return judge(tmp_path, package, FakeRunner([ran(b"x\n")] * len(validators), validators))


def group_scores(result: SubmissionResult) -> dict[str, float]:
    return {g.name: g.score for g in result.groups if g.name.startswith("secret/")}


def multiplier(value: float) -> Reply:
    return validator(42, {"score_multiplier.txt": f"{value}\n".encode()})


SUM: Mapping[str, object] = {"score_aggregation": "sum"}
MIN: Mapping[str, object] = {"score_aggregation": "min"}


def test_a_sum_group_scores_the_mean_fraction_and_each_test_its_share(tmp_path: Path) -> None:
    # score.txt is relative to the group's maximum (legacy and 2023-07 packages)
    result = grade(tmp_path, two_groups(tmp_path, SUM, SUM), [accept(score=40), accept(score=20)] + [accept()] * 2)
    assert group_scores(result) == {"secret/g1": 30.0, "secret/g2": 60.0}
    assert result.test_scores == (20.0, 10.0, 30.0, 30.0)
    assert (result.score, result.max_score, result.verdict) == (90.0, 100.0, Verdict.AC)


def test_a_rejected_test_of_a_sum_group_loses_its_share_only(tmp_path: Path) -> None:
    result = grade(tmp_path, two_groups(tmp_path, SUM, MIN), [reject("no"), accept(), reject("no"), accept()])
    assert group_scores(result) == {"secret/g1": 20.0, "secret/g2": 0.0}
    assert result.verdict is Verdict.WA and result.score == 20.0


def test_a_min_group_is_worth_its_worst_fraction(tmp_path: Path) -> None:
    result = grade(tmp_path, two_groups(tmp_path, MIN, MIN), [multiplier(0.5), multiplier(0.75)] + [accept()] * 2)
    assert group_scores(result) == {"secret/g1": 20.0, "secret/g2": 60.0}
    assert result.test_scores[:2] == (20.0, 30.0)  # each test of a min group may earn the group's maximum


def test_an_acceptance_without_a_score_file_is_the_full_fraction(tmp_path: Path) -> None:
    result = grade(tmp_path, two_groups(tmp_path, SUM, MIN), [accept()] * 4)
    assert result.score == 100.0 and [t.fraction for t in result.tests] == [1.0] * 4


@pytest.mark.parametrize(
    "reply, why",
    [
        (multiplier(1.5), "out of range"),
        (validator(42, {"score.txt": b"-5\n"}), "out of range"),
        (validator(42, {"score.txt": b"10\n", "score_multiplier.txt": b"0.5\n"}), "both score.txt and score_mu"),
    ],
)
def test_an_impossible_score_is_the_packages_fault(tmp_path: Path, reply: Reply, why: str) -> None:
    result = grade(tmp_path, two_groups(tmp_path, SUM, MIN), [reply] + [accept()] * 3)
    assert result.tests[0].verdict is Verdict.JE and why in result.tests[0].message
    assert result.verdict is Verdict.JE and not result.verdict.charged


def test_a_rejection_with_a_score_scores_nothing(tmp_path: Path) -> None:
    result = grade(tmp_path, two_groups(tmp_path, SUM, MIN), [reject("no", score=40)] + [accept()] * 3)
    assert result.tests[0].verdict is Verdict.WA and "the score is ignored" in result.tests[0].message
    assert group_scores(result)["secret/g1"] == 20.0


def test_on_reject_break_stops_its_group_only(tmp_path: Path) -> None:
    package = two_groups(tmp_path, {**MIN, "on_reject": "break"}, MIN)
    runner = FakeRunner([ran(b"x\n")] * 3, [reject("no"), accept(), accept()])
    result = judge(tmp_path, package, runner)
    assert [t.name for t in result.tests] == ["secret/g1/00", "secret/g2/00", "secret/g2/01"]
    assert len(program_runs(runner)) == 3
    assert group_scores(result) == {"secret/g1": 0.0, "secret/g2": 60.0}


def test_a_judge_error_in_one_group_keeps_the_others_score_but_is_the_verdict(tmp_path: Path) -> None:
    result = grade(tmp_path, two_groups(tmp_path, MIN, MIN), [accept(), crash(2), accept(), accept()])
    assert group_scores(result) == {"secret/g1": 0.0, "secret/g2": 60.0}
    assert result.verdict is Verdict.JE and not result.verdict.charged


def test_samples_are_judged_for_the_verdict_but_never_scored(tmp_path: Path) -> None:
    package = two_groups(tmp_path, MIN, MIN, samples=1)
    result = grade(tmp_path, package, [reject("sample failed")] + [accept()] * 4)
    assert result.tests[0].name == "sample/00" and result.test_scores[0] == 0.0
    assert result.verdict is Verdict.WA  # the first failure, in judging order: samples first
    assert result.score == 100.0


def test_groups_of_groups_add_up_their_subgroups(tmp_path: Path) -> None:
    tests = {f"secret/a/{s}/01": (b"x\n", b"x\n") for s in ("s1", "s2")} | {"secret/b/01": (b"x\n", b"x\n")}
    groups = {
        "secret": {},
        "secret/a": {"max_score": 50},
        "secret/a/s1": {"max_score": 20},
        "secret/a/s2": {"max_score": 30},
        "secret/b": {"max_score": 50},
    }
    package = make_package(tmp_path / "pkg", {"name": "n", "type": "scoring"}, tests, groups=groups)
    result = grade(tmp_path, package, [accept(), multiplier(0.5), reject("no")])
    scores = {g.name: g.score for g in result.groups}
    assert scores == {"secret/a/s1": 20.0, "secret/a/s2": 15.0, "secret/a": 35.0, "secret/b": 0.0, "secret": 35.0}
    assert result.score == 35.0


def test_a_score_in_a_2025_pass_fail_group_is_a_judge_error(tmp_path: Path) -> None:
    tests = {name: (b"x\n", b"x\n") for name in ("secret/pf/01", "secret/sum/01", "secret/sum/02")}
    config = {"name": "p", "type": "scoring", "problem_format_version": "2025-09"}
    package = make_package(tmp_path / "pkg", config, tests)
    settings = {
        "pf": {"max_score": 30, "score_aggregation": "pass-fail"},
        "sum": {"max_score": 70, "score_aggregation": "sum"},
    }
    for group, own in settings.items():
        (package / "data" / "secret" / group / "test_group.yaml").write_text(yaml.safe_dump(own))
    (tmp_path / "ok").mkdir()
    (tmp_path / "bad").mkdir()
    ok = grade(tmp_path / "ok", package, [accept(), accept(score=35), accept(score=17.5)])
    # 2025-09: score.txt is the test's own score, out of max_score / N = 35 in a sum group of 2 tests
    assert group_scores(ok) == {"secret/pf": 30.0, "secret/sum": 52.5}
    bad = grade(tmp_path / "bad", package, [accept(score=30), accept(), accept()])
    assert bad.tests[0].verdict is Verdict.JE and "pass-fail group" in bad.tests[0].message
