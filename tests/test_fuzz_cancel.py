"""`fuzz_submission(cancelled=...)` (issue 33: live fuzzing yields its slot to real judging): asked before the
build and before every example, never while a disagreement found is shrunk; a cancelled run says how many
examples it judged, so that the caller resumes with the rest of its budget. With a scripted runner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import make_package
from test_fuzz_search import HOOKS, ByInput, Program, doubles, off_by_one_from

from judge.fuzz.engine import fuzz_submission
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import FuzzOutcome, FuzzStatus
from judge.judging.submission import prepare
from judge.judging.verdict import Verdict
from judge.package.problem import load_problem


def fuzz(
    tmp_path: Path, program: Program, cancelled: Callable[[ByInput], bool], **options: object
) -> tuple[FuzzOutcome, ByInput]:
    """Fuzz the scripted submission on the doubling package; ``cancelled`` is asked with the runner."""
    package = make_package(tmp_path / "double", {"name": "Double"}, {"secret/01": (b"1\n", b"2\n")}, validator=False)
    (package / "fuzz.py").write_text(HOOKS)
    source = tmp_path / "double.py"
    source.write_text("print(2 * int(input()))\n")
    runner = ByInput(program)
    env = fake_environment(runner)
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    settings = FuzzOptions(**{"examples": 100, "seed": 1, "use_database": False, **options})  # type: ignore[arg-type]
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    out = fuzz_submission(prepared, source, env, settings, workdir=work, cancelled=lambda: cancelled(runner))
    return out, runner


def after_runs(n: int) -> Callable[[ByInput], bool]:
    return lambda runner: len(runner.stdins) >= n


def test_a_cancelled_run_stops_before_the_next_example_and_says_how_far_it_got(tmp_path: Path) -> None:
    # one search, as live fuzzing runs it (pipeline=False): with the pipeline's second search, an example
    # drawn while the other's run was under way may run once the count is reached (seen under load)
    out, runner = fuzz(tmp_path, doubles, after_runs(10), pipeline=False)
    assert out.status is FuzzStatus.CANCELLED and not out.failed and out.counterexample is None
    assert out.runs == len(runner.stdins) == 10  # not one more program run once it turned true
    assert 10 <= out.examples < 100  # examples that repeated an input already judged count, runs do not


def test_the_rest_of_the_budget_finishes_the_job(tmp_path: Path) -> None:
    first, _ = fuzz(tmp_path / "a", doubles, after_runs(10), examples=60)
    rest = fuzz(tmp_path / "b", doubles, lambda r: False, examples=60 - first.examples, seed=2)[0]
    assert first.status is FuzzStatus.CANCELLED and rest.status is FuzzStatus.PASSED
    assert first.examples + rest.examples == 60


def test_a_disagreement_found_is_still_shrunk_and_confirmed_when_cancelled_meanwhile(tmp_path: Path) -> None:
    def found_one(runner: ByInput) -> bool:  # true from the first wrong run on: shrinking must go on regardless
        return any(int(s) >= 37 for s in runner.stdins)

    out, _ = fuzz(tmp_path, off_by_one_from(37), found_one)
    assert out.status is FuzzStatus.COUNTEREXAMPLE and out.counterexample is not None
    cex = out.counterexample
    assert (cex.input, cex.output, cex.verdict, cex.confirmed) == (b"37\n", b"75\n", Verdict.WA, True)
    assert out.shrink_runs > 0


def test_cancelled_before_it_starts_it_builds_nothing(tmp_path: Path) -> None:
    out, runner = fuzz(tmp_path, doubles, lambda r: True)
    assert out.status is FuzzStatus.CANCELLED and out.examples == 0
    assert runner.calls == [] and runner.stdins == []  # not even compiled


@pytest.mark.parametrize("jobs", [1, 2])
def test_parallel_searches_are_cancelled_together(tmp_path: Path, jobs: int) -> None:
    out, runner = fuzz(tmp_path, doubles, after_runs(8), jobs=jobs)
    assert out.status is FuzzStatus.CANCELLED
    assert out.runs == len(runner.stdins) and 8 <= out.runs < 8 + jobs + 1  # a run under way when it turned true ends
    assert out.examples >= out.runs


def test_without_cancelled_nothing_changes(tmp_path: Path) -> None:
    out, _ = fuzz(tmp_path, doubles, lambda r: False, examples=40)
    assert out.status is FuzzStatus.PASSED and out.examples == 40
