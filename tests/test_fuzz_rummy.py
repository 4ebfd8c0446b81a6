"""Acceptance of `judge fuzz` on problems/rummy (issue 8).

A submission that forgets the wrap-around from 13 to 1 passes a weak fixed test set (the package's
"linear" group, where no card 13 is dealt), but the fuzzer finds a counterexample and shrinks it to a
few non-zero counts; saving it makes it a regression test that the next judging catches. The
seed's own formula survives (2 000 examples with JUDGE_FUZZ_EXAMPLES=2000; CI runs fewer).
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from judge.fuzz.engine import fuzz_submission
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import FuzzStatus
from judge.fuzz.save import save_counterexample
from judge.judging.submission import Environment, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import Runner, make_runner
from judge.runner.protocol import SandboxInfo
from judge.runner.spec import RunResult, RunSpec

ROOT = Path(__file__).resolve().parent.parent
RUMMY = ROOT / "problems" / "rummy"
NO_WRAP = Path("submissions") / "wrong_answer" / "no_wrap.c"
SEED_FORMULA = RUMMY / "submissions" / "accepted" / "seed_formula.py"

pytestmark = pytest.mark.skipif(not (RUMMY / "fuzz.py").is_file(), reason="problems/rummy/fuzz.py not there yet")


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(make_runner(os.environ.get("JUDGE_SANDBOX", "auto")), load_languages(), toolchain())


@pytest.fixture()
def weak(tmp_path: Path) -> Path:
    """A copy of rummy whose only tests are the "linear" group (no samples, no other group)."""
    package = tmp_path / "rummy"
    shutil.copytree(RUMMY, package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(package / "data" / "sample", ignore_errors=True)
    secret = package / "data" / "secret"
    linear = [p for p in secret.iterdir() if p.is_dir() and p.name.endswith("linear")]
    assert len(linear) == 1, sorted(p.name for p in secret.iterdir())
    for p in secret.iterdir():
        if p.is_dir() and p != linear[0]:
            shutil.rmtree(p)
    return package


def test_no_wrap_passes_the_weak_tests_but_fuzz_finds_shrinks_and_saves_a_wrap(
    weak: Path, env: Environment, tmp_path: Path
) -> None:
    prepared = prepare(load_problem(weak), env, tmp_path / "prep")
    assert judge_submission(prepared, weak / NO_WRAP, env).verdict is Verdict.AC  # the weak set misses it
    out = fuzz_submission(prepared, weak / NO_WRAP, env, FuzzOptions(examples=300, seed=1, use_database=False))
    assert out.status is FuzzStatus.COUNTEREXAMPLE and out.counterexample is not None, out
    cex = out.counterexample
    counts = [int(t) for t in cex.input.split()]
    assert len(counts) == 13 and cex.answer == b"0\n" and cex.output not in (None, b"0\n")
    assert sum(c > 0 for c in counts) <= 3, counts  # one run of three cards across 13 -> 1
    assert counts[12] > 0 and counts[0] > 0  # it needs the wrap-around
    assert cex.confirmed and cex.verdict is Verdict.WA  # and rummy's own validator agrees
    # --save: the next judging catches it (rummy's data/secret has groups: into data/secret/fuzz/).
    saved = save_counterexample(prepared.problem, cex)
    assert all(p.parent == weak / "data" / "secret" / "fuzz" for p in saved)
    again = prepare(load_problem(weak), env, tmp_path / "prep2")
    assert judge_submission(again, weak / NO_WRAP, env).verdict is Verdict.WA


# The acceptance run is 2 000 examples; the seed's formula imports numpy, about 0.25 s per run in the
# sandbox, so that is ~9 minutes: CI runs a modest count (JUDGE_FUZZ_EXAMPLES=2000 for the real thing).
SEED_EXAMPLES = int(os.environ.get("JUDGE_FUZZ_EXAMPLES", "25"))


@pytest.mark.slow
def test_the_seed_formula_survives(env: Environment, tmp_path: Path) -> None:
    prepared = prepare(load_problem(RUMMY), env, tmp_path / "prep")
    options = FuzzOptions(examples=SEED_EXAMPLES, seed=2000, use_database=False)
    out = fuzz_submission(prepared, SEED_FORMULA, env, options)
    assert out.status is FuzzStatus.PASSED, out.counterexample
    assert out.examples == SEED_EXAMPLES and out.runs > SEED_EXAMPLES // 2  # repeated inputs are not re-run


class WatchingRunner:
    """The runner, noting whether the package's validator judged an example while the next search's
    submission started (the slot handed over when the example's submission ended)."""

    def __init__(self, inner: Runner, validator: tuple[str, ...]) -> None:
        self.inner, self.validator = inner, validator
        self.cond = threading.Condition()
        self.starts = 0  # submission runs started so far
        self.seen_at_end = threading.local()  # per search: ``starts`` when its submission ended
        self.overlapped: bool | None = None  # None: not decided yet

    @property
    def info(self) -> SandboxInfo:
        return self.inner.info

    def start_paths(self) -> tuple[tuple[str, Runner], ...]:
        return self.inner.start_paths()

    def run_interactive(self, *args: Any, **kw: Any) -> Any:
        return self.inner.run_interactive(*args, **kw)

    def run(self, spec: RunSpec, *, on_start: Any = None, on_end: Any = None) -> RunResult:
        if spec.argv[: len(self.validator)] == self.validator:
            with self.cond:  # until another submission starts (a bound for the failure only)
                if self.overlapped is None:
                    after = self.seen_at_end.starts
                    self.overlapped = self.cond.wait_for(lambda: self.starts > after, timeout=60)
            return self.inner.run(spec, on_start=on_start, on_end=on_end)
        if spec.trusted:
            return self.inner.run(spec, on_start=on_start, on_end=on_end)

        def started() -> None:
            with self.cond:
                self.starts += 1
                self.cond.notify_all()
            if on_start is not None:
                on_start()

        def ended() -> None:
            with self.cond:
                self.seen_at_end.starts = self.starts
            if on_end is not None:
                on_end()

        return self.inner.run(spec, on_start=started, on_end=ended)


def test_with_the_validator_the_next_submission_runs_while_an_output_is_judged(
    env: Environment, tmp_path: Path
) -> None:
    """The validator path (no accepts()): the run slot is given back when the example's submission ends, so
    the next search's submission runs while the validator process judges this one's output (issue 50)."""
    prepared = prepare(load_problem(RUMMY), env, tmp_path / "prep")
    assert prepared.validator is not None
    watching = WatchingRunner(env.runner, prepared.validator.argv)
    out = fuzz_submission(
        prepared,
        SEED_FORMULA,
        Environment(watching, env.languages, env.tools),
        FuzzOptions(examples=10, seed=1, use_database=False, use_accepts=False),
    )
    assert out.status is FuzzStatus.PASSED and out.checker == "the output validator", out.to_json()
    assert watching.overlapped is True
