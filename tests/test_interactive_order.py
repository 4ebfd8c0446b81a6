"""Interactive verdicts do not depend on scheduling (issue 43): every submission of
tests/fixtures/guessorder (the guessing game, one submission for each way a run can end: who stops first,
and how) is judged ROUNDS times through the real sandbox, every other round with every CPU kept busy by
processes this test starts (and the submissions judged side by side), and must get its folder's verdict
every time (docs/package-format.md, "Interactive problems", for the rule).

Each submission is built once; each round judges its one test (judge_test, as `judge verify` does).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from judge.judging.build import Program, SkipLanguage, build, detect_language
from judge.judging.environment import Environment
from judge.judging.problemtypes import Context, judge_test
from judge.judging.submission import prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import Runner

FIXTURE = Path(__file__).parent / "fixtures" / "guessorder"
ROUNDS = 20  # half of them with busy CPUs
EXPECTED = {
    "accepted": Verdict.AC,
    "wrong_answer": Verdict.WA,
    "run_time_error": Verdict.RTE,
    "time_limit_exceeded": Verdict.TLE,
}
SUBMISSIONS = sorted(p for p in (FIXTURE / "submissions").glob("*/*") if p.is_file())

pytestmark = pytest.mark.slow


@contextmanager
def busy_cpus() -> Iterator[None]:
    """Every CPU kept busy (one spinning process each) while the block runs."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        yield
    finally:
        for p in burners:
            p.kill()
        for p in burners:
            p.wait()


@contextmanager
def _idle() -> Iterator[None]:
    yield


def test_every_case_gets_its_verdict_every_time(sandbox_runner: Runner, tmp_path: Path) -> None:
    env = Environment(sandbox_runner, load_languages(), toolchain())
    problem = load_problem(FIXTURE)
    prepared = prepare(problem, env, tmp_path / "prepare")
    assert prepared.validator is not None, prepared.error
    (test,) = problem.judged_cases()
    programs: dict[str, Program] = {}
    for source in SUBMISSIONS:
        name = f"{source.parent.name}/{source.name}"
        try:
            lang = detect_language(source, env.languages)
            built = build(source, lang, env, problem=problem, workdir=tmp_path / name)
        except SkipLanguage as exc:  # a toolchain is missing here
            pytest.skip(str(exc))
        assert built.program is not None, (name, built.message)
        programs[name] = built.program

    def verdict(n: int, name: str) -> str:
        work = tmp_path / "runs" / f"{n}-{name.replace('/', '-')}"
        work.mkdir(parents=True)
        ctx = Context(problem, programs[name], prepared.validator, env.runner, work)
        return judge_test(ctx, test).verdict.name

    got: dict[str, Counter[str]] = {name: Counter() for name in programs}
    for n in range(ROUNDS):
        busy = n % 2 == 1
        with busy_cpus() if busy else _idle(), ThreadPoolExecutor(os.cpu_count() if busy else 1) as pool:
            names = list(programs)
            for name, v in zip(names, pool.map(verdict, [n] * len(names), names), strict=True):
                got[name][v] += 1

    expected = {name: Counter({EXPECTED[name.split("/")[0]].name: ROUNDS}) for name in programs}
    assert got == expected
