"""`judge fuzz`'s search with a scripted runner: no root, no sandbox, no processes.

The package's reference doubles a number; the scripted submission doubles it too, except from some
number on (where it is one off, or runs out of time, or the judge fails). The search must find such an
input, shrink it to the smallest one, and confirm it by judging it again the package's own way; a
submission that always agrees survives every example.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import fake_environment
from fakes import FakeRunner, Reply, make_package, ran

from judge.fuzz.engine import fuzz_submission
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import FuzzOutcome, FuzzStatus
from judge.judging.build import COMPILE_LIMITS
from judge.judging.submission import prepare
from judge.judging.verdict import Verdict
from judge.package.problem import load_problem
from judge.runner.spec import LimitHit, RunResult, RunSpec

HOOKS = """\
from hypothesis import strategies as st


def strategy():
    return st.integers(0, 1000).map(lambda n: b"%d\\n" % n)


def answer(test_input):
    return b"%d\\n" % (2 * int(test_input))
"""
ACCEPTS = """

def accepts(test_input, answer, output):
    return output.split() == answer.split()
"""

Program = Callable[[int], Reply]  # the scripted submission: its run on the input n


class ByInput(FakeRunner):
    """A FakeRunner whose submission runs answer what ``program`` says for their input (stdin); compilations
    succeed, and nothing else runs (the package has no validators)."""

    def __init__(self, program: Program) -> None:
        super().__init__()
        self.program = program

    def run(
        self,
        spec: RunSpec,
        *,
        on_start: Callable[[], object] | None = None,
        on_end: Callable[[], object] | None = None,
    ) -> RunResult:
        if spec.trusted or spec.limits == COMPILE_LIMITS:
            return super().run(spec, on_start=on_start, on_end=on_end)
        test_input = spec.stdin.read_bytes() if spec.stdin is not None else b""
        reply = self.program(int(test_input))
        with self._lock:
            self.calls.append(spec)
            self.stdins.append(test_input)
        if on_start is not None:
            on_start()
        if spec.stdout is not None and reply.stdout is not None:
            spec.stdout.write_bytes(reply.stdout)
        if on_end is not None:
            on_end()
        return reply.result


def doubles(n: int) -> Reply:
    return ran(b"%d\n" % (2 * n))


def off_by_one_from(first: int) -> Program:
    return lambda n: ran(b"%d\n" % (2 * n + 1)) if n >= first else doubles(n)


def out_of_time_from(first: int) -> Program:
    return lambda n: ran(limit=LimitHit.CPU_TIME) if n >= first else doubles(n)


def fuzz(tmp_path: Path, program: Program, *, accepts: bool = True, **options: object) -> FuzzOutcome:
    """Fuzz the scripted submission on the doubling package (with fuzz.py's accepts() or without)."""
    package = make_package(tmp_path / "double", {"name": "Double"}, {"secret/01": (b"1\n", b"2\n")}, validator=False)
    (package / "fuzz.py").write_text(HOOKS + (ACCEPTS if accepts else ""))
    source = tmp_path / "double.py"
    source.write_text("print(2 * int(input()))\n")  # never run: the runner is scripted
    env = fake_environment(ByInput(program))
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    settings = FuzzOptions(**{"examples": 100, "seed": 1, "use_database": False, **options})  # type: ignore[arg-type]
    work = tmp_path / "work"
    work.mkdir()
    return fuzz_submission(prepared, source, env, settings, workdir=work)


@pytest.mark.parametrize("accepts", [True, False])
def test_a_disagreement_is_found_shrunk_and_confirmed(tmp_path: Path, accepts: bool) -> None:
    out = fuzz(tmp_path, off_by_one_from(37), accepts=accepts)
    assert out.status is FuzzStatus.COUNTEREXAMPLE and out.failed, out
    cex = out.counterexample
    assert cex is not None
    assert (cex.input, cex.answer, cex.output, cex.verdict) == (b"37\n", b"74\n", b"75\n", Verdict.WA)
    assert cex.confirmed  # judged again by the package's own comparison: the same rejection
    assert out.checker == ("fuzz.py accepts()" if accepts else "the default output comparison")
    assert 0 < out.examples <= 100 and out.runs <= out.examples


def test_a_run_failure_is_a_disagreement_too(tmp_path: Path) -> None:
    out = fuzz(tmp_path, out_of_time_from(500))
    cex = out.counterexample
    assert cex is not None and out.status is FuzzStatus.COUNTEREXAMPLE
    assert (cex.input, cex.verdict, cex.output) == (b"500\n", Verdict.TLE, None)
    assert cex.confirmed


def test_a_submission_that_always_agrees_survives(tmp_path: Path) -> None:
    out = fuzz(tmp_path, doubles, examples=60)
    assert out.status is FuzzStatus.PASSED and not out.failed and out.counterexample is None
    assert out.examples == 60 and 0 < out.runs <= 60  # an input drawn twice is run once
    assert out.scoreboard_note() == "fuzz: 60 ok"


def test_a_judge_error_stops_the_search_and_is_not_the_submissions_fault(tmp_path: Path) -> None:
    out = fuzz(tmp_path, lambda n: ran(sandbox_error="the launcher failed (scripted)"))
    assert out.status is FuzzStatus.ERROR and out.counterexample is None
    assert "judge error on a generated input" in out.message and out.examples == 1


def test_parallel_searches_give_the_same_outcome_every_time(tmp_path: Path) -> None:
    runs = [fuzz(tmp_path / str(k), off_by_one_from(37), jobs=2, examples=40, shrink_time_s=0) for k in range(2)]
    found = [(r.examples, r.counterexample and r.counterexample.input) for r in runs]
    assert found[0] == found[1] and runs[0].status is FuzzStatus.COUNTEREXAMPLE


def test_parallel_searches_share_the_examples_out(tmp_path: Path) -> None:
    ok = fuzz(tmp_path, doubles, jobs=2, examples=31)
    assert ok.status is FuzzStatus.PASSED and ok.examples == 31  # not 31 per search
