"""contest.yaml's ``counterexamples`` policy (issue 46; docs/serve.md, "Counterexamples (coming)"): read into a
typed, checked value of the contest model (who sees them, the budget per search, the per-team limit), and
problems.yaml's per-problem override; a wrong value is one line naming the key. `judge serve` does not act
on it yet."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import make_package

from judge.fuzz.options import ExplainBudget
from judge.serve.model.contest import load_info, load_problems
from judge.serve.model.contest_values import ContestError
from judge.serve.model.counterexamples import PER_TEAM, CounterexamplePolicy, CounterexampleView

CONTEST = 'id: c\nname: C\nduration: "5:00:00"\n'


def info(tmp_path: Path, extra: str) -> CounterexamplePolicy:
    path = tmp_path / "contest.yaml"
    path.write_text(CONTEST + extra)
    return load_info(path).counterexamples


def test_absent_is_off_with_the_default_budget(tmp_path: Path) -> None:
    policy = info(tmp_path, "")
    assert policy == CounterexamplePolicy() and policy.show is CounterexampleView.OFF
    assert (policy.budget, policy.per_team) == (ExplainBudget(), PER_TEAM)


@pytest.mark.parametrize(
    ("written", "show"),
    [("off", "off"), ('"off"', "off"), ("jury", "jury"), ("team", "team"), ("{show: off}", "off")],
)
def test_the_short_form_and_yamls_off(tmp_path: Path, written: str, show: str) -> None:
    assert info(tmp_path, f"counterexamples: {written}\n").show is CounterexampleView(show)  # off: YAML's false


def test_the_long_form(tmp_path: Path) -> None:
    policy = info(tmp_path, "counterexamples: {show: team, examples: 300, seconds: 12.5, per_team: 5}\n")
    assert policy == CounterexamplePolicy(CounterexampleView.TEAM, ExplainBudget(300, 12.5), 5)
    assert policy.to_json() == {"show": "team", "examples": 300, "seconds": 12.5, "per_team": 5}
    assert policy.view(None) is CounterexampleView.TEAM
    assert policy.view(CounterexampleView.JURY) is CounterexampleView.JURY


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("on", "counterexamples: expected off, jury or team, got True"),
        ("teams", "expected off, jury or team, got 'teams'"),
        ("{show: all}", "counterexamples.show: expected off, jury or team"),
        ("{examples: 0}", "counterexamples.examples: expected a positive whole number"),
        ("{examples: true}", "counterexamples.examples"),
        ("{seconds: 0}", "counterexamples.seconds"),
        ("{seconds: 7200}", "counterexamples.seconds"),
        ("{per_team: -1}", "counterexamples.per_team"),
        ("{limit: 3}", "counterexamples: unknown key 'limit'"),
    ],
)
def test_a_wrong_value_is_one_line_naming_the_key(tmp_path: Path, written: str, said: str) -> None:
    with pytest.raises(ContestError) as refused:
        info(tmp_path, f"counterexamples: {written}\n")
    message = str(refused.value)
    assert said in message and "\n" not in message and "contest.yaml" in message


def test_a_problem_may_say_otherwise(tmp_path: Path) -> None:
    root = tmp_path / "problems"
    for name in ("a", "b"):
        make_package(root / name, {"name": name.upper()}, {"secret/1": (b"1\n", b"1\n")}, validator=False)
    path = tmp_path / "problems.yaml"
    path.write_text("- id: a\n  counterexamples: off\n- id: b\n")
    a, b = load_problems(path, [root], 256)
    assert (a.counterexamples, b.counterexamples) == (CounterexampleView.OFF, None)
    path.write_text("- id: a\n  counterexamples: everyone\n")
    with pytest.raises(ContestError, match="entry 1: counterexamples: expected off, jury or team"):
        load_problems(path, [root], 256)
