"""Counterexamples for rejected submissions (``explain_submission``, docs/explain.md) with a scripted runner:
never an input of the package's own tests (the search walks around them; only those: withheld), the budget
(examples, and seconds on the caller's clock) respected, which verdicts are searched and shown, the caller's
stop, and the result's JSON.

The package's reference doubles a number (tests/test_fuzz_search.py's); its tests are 1 (a sample) and
37 and 2 (secret).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import make_package, ran
from test_fuzz_search import HOOKS, ByInput, Program, doubles, off_by_one_from, out_of_time_from

from judge.fuzz.explain import SEARCH_SHARE, explain_submission
from judge.fuzz.explanation import ExplainStatus, Explanation, KnownInputs, explained, known_inputs, shown
from judge.fuzz.options import ExplainBudget
from judge.judging.submission import prepare
from judge.judging.verdict import Verdict
from judge.package.problem import load_problem

TESTS = {"sample/1": (b"1\n", b"2\n"), "secret/01": (b"37\n", b"74\n"), "secret/02": (b"2\n", b"4\n")}
SMALL = HOOKS.replace("st.integers(0, 1000)", "st.integers(0, 3)")  # 0..3: every input gets tried


def explain(
    tmp_path: Path,
    program: Program,
    verdict: Verdict = Verdict.WA,
    *,
    hooks: str = HOOKS,
    budget: ExplainBudget | None = None,
    **kw: object,
) -> tuple[Explanation, ByInput]:
    package = make_package(tmp_path / "double", {"name": "Double"}, TESTS, validator=False)
    (package / "fuzz.py").write_text(hooks)
    source = tmp_path / "double.py"
    source.write_text("print(2 * int(input()))\n")  # never run: the runner is scripted
    runner = ByInput(program)
    env = fake_environment(runner)
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    work = tmp_path / "work"
    work.mkdir()
    budget = budget or ExplainBudget(examples=100, seconds=1e6)
    out = explain_submission(prepared, source, env, verdict, budget, workdir=work, **kw)  # type: ignore[arg-type]
    return out, runner


def wrong_on(inputs: set[int]) -> Program:
    return lambda n: ran(b"%d\n" % (2 * n + 1)) if n in inputs else doubles(n)


def test_a_counterexample_is_found_shrunk_and_never_a_tests_input(tmp_path: Path) -> None:
    # fuzz alone shrinks to 37, the secret test's input: the search walks around it to the next smallest
    out, runner = explain(tmp_path, off_by_one_from(37))
    assert out.status is ExplainStatus.FOUND and out.found, out
    assert (out.input, out.answer, out.output, out.failure) == (b"38\n", b"76\n", b"77\n", Verdict.WA)
    assert out.verdict is Verdict.WA and out.note == ""
    assert 0 < out.found_after_s <= out.elapsed_s  # when the first failure to show was judged
    assert b"37\n" in runner.stdins  # 37 was run (and failed), and not shown


def test_failing_only_on_the_tests_inputs_is_withheld(tmp_path: Path) -> None:
    out, runner = explain(tmp_path, wrong_on({1, 2}), hooks=SMALL)  # fails on the sample's 1 and the secret 2
    assert {b"1\n", b"2\n"} <= set(runner.stdins)  # both tried, and both failed
    assert out.status is ExplainStatus.WITHHELD and not out.found
    assert out.withheld >= 1 and "equal to one of the package's tests" in out.note
    assert out.input is None and out.answer is None and out.output is None  # nothing of them is kept
    assert b"1\n" not in repr(out.to_json()).encode()


def test_an_input_with_the_same_tokens_as_a_test_is_withheld_too() -> None:
    known = KnownInputs.of([b"1 2\n3\n"])
    assert known.holds(b"1 2\n3\n") and known.holds(b"1  2 3") and known.holds(b" 1\t2\r\n3\n")
    assert not known.holds(b"1 2 4\n") and not known.holds(b"12 3\n")


def test_the_known_inputs_are_every_sample_and_secret_test(tmp_path: Path) -> None:
    package = make_package(tmp_path / "p", {"name": "P"}, {**TESTS, "secret/g/03": (b"5\n", b"10\n")}, validator=False)
    known = known_inputs(load_problem(package))
    assert all(known.holds(data) for data in (b"1\n", b"37\n", b"2\n", b"5\n"))
    assert not known.holds(b"3\n")


def test_the_examples_budget_is_respected(tmp_path: Path) -> None:
    out, runner = explain(tmp_path, doubles, budget=ExplainBudget(examples=7, seconds=1e6))
    assert out.status is ExplainStatus.NOT_FOUND and out.note == "none in 7 examples"
    assert out.examples == 7 and 0 < len(runner.stdins) <= 7


def test_the_seconds_budget_is_respected(tmp_path: Path) -> None:
    """On the caller's clock (one second per look): the search stops taking examples at its share of it."""
    ticks = iter(range(10**6))
    budget = ExplainBudget(examples=1000, seconds=40)
    out, runner = explain(tmp_path, doubles, budget=budget, clock=lambda: float(next(ticks)))
    assert out.status is ExplainStatus.NOT_FOUND and out.note.endswith("when time was up")
    looks = budget.seconds * SEARCH_SHARE  # each example looks at the clock at least once
    assert 0 < len(runner.stdins) <= looks and out.examples <= looks


def test_the_callers_stop_cancels_it(tmp_path: Path) -> None:
    runs: list[int] = []

    def stop_after_five() -> bool:
        return len(runs) >= 5

    def counted(n: int) -> object:
        runs.append(n)
        return doubles(n)

    out, runner = explain(tmp_path, counted, cancelled=stop_after_five)  # type: ignore[arg-type]
    assert out.status is ExplainStatus.CANCELLED and out.input is None
    # the stop is asked before an example is drawn: the search is pipelined (a second search draws its next
    # example while the first one's runs), so one drawn before the fifth run ended may still run (timing)
    assert len(runner.stdins) in (5, 6)


def test_time_outs_are_not_shown_unless_the_package_says_so(tmp_path: Path) -> None:
    slow, _ = explain(tmp_path / "a", out_of_time_from(500))
    assert slow.status is ExplainStatus.NOT_FOUND  # a TLE may be the machine's load: not a counterexample
    said = HOOKS + "\nEXPLAIN_TLE = True\n"
    found, _ = explain(tmp_path / "b", out_of_time_from(500), hooks=said)
    assert (found.status, found.input, found.failure) == (ExplainStatus.FOUND, b"500\n", Verdict.TLE)
    assert found.output is None
    assert "time limit" in found.message


def test_which_submissions_are_searched(tmp_path: Path) -> None:
    assert [v for v in Verdict if explained(v, explain_tle=False)] == [Verdict.WA, Verdict.RTE, Verdict.PV]
    assert explained(Verdict.TLE, explain_tle=True) and not explained(Verdict.MLE, explain_tle=True)
    assert not shown(Verdict.TLE, explain_tle=False) and shown(Verdict.RTE, explain_tle=False)
    tle, runner = explain(tmp_path / "a", out_of_time_from(500), Verdict.TLE)
    assert tle.status is ExplainStatus.UNAVAILABLE and "TLE submissions are not explained" in tle.note
    assert runner.calls == []  # not even built
    said = HOOKS + "\nEXPLAIN_TLE = True\n"
    searched, _ = explain(tmp_path / "b", out_of_time_from(500), Verdict.TLE, hooks=said)
    assert searched.status is ExplainStatus.FOUND


def test_a_crash_is_shown_as_a_crash(tmp_path: Path) -> None:
    out, _ = explain(tmp_path, lambda n: ran(exit_code=3) if n >= 40 else doubles(n), Verdict.RTE)
    assert (out.status, out.input, out.failure, out.output) == (ExplainStatus.FOUND, b"40\n", Verdict.RTE, None)
    assert "exit status 3" in out.message


def test_no_fuzz_py_and_a_broken_one(tmp_path: Path) -> None:
    package = make_package(tmp_path / "bare", {"name": "Bare"}, TESTS, validator=False)
    env = fake_environment(ByInput(doubles))
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    bare = explain_submission(prepared, tmp_path / "x.py", env, Verdict.WA)
    assert bare.status is ExplainStatus.UNAVAILABLE and "has no fuzz.py" in bare.note
    broken, _ = explain(tmp_path / "b", doubles, hooks=HOOKS + "\nEXPLAIN_TLE = 'yes'\n")
    assert broken.status is ExplainStatus.ERROR and "EXPLAIN_TLE must be True or False" in broken.note


def test_the_result_survives_its_json(tmp_path: Path) -> None:
    found, _ = explain(tmp_path / "a", off_by_one_from(37))
    withheld, _ = explain(tmp_path / "b", wrong_on({1, 2}), hooks=SMALL)
    for out in (found, withheld):
        back = Explanation.from_json(out.to_json())
        assert back.to_json() == out.to_json()
        zero = {"elapsed_s": 0.0, "found_after_s": 0.0}  # the JSON keeps milliseconds
        assert replace(back, **zero) == replace(out, **zero)


def test_a_budget_is_checked() -> None:
    for bad in ({"examples": 0}, {"examples": True}, {"seconds": 0}, {"seconds": float("nan")}, {"seconds": "5"}):
        with pytest.raises(ValueError):
            ExplainBudget(**bad)  # type: ignore[arg-type]
