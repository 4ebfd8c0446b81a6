"""`judge fuzz` on the fixture package tests/fixtures_fuzz/add (batch) and a copy of tests/fixtures/guess
(interactive): counterexamples are found, shrunk to the known minimal inputs, confirmed by the package's
own validator, replayed from the example database, reproducible by seed, and saved as regression tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.fuzz.engine import fuzz_submission
from judge.fuzz.hooks import load_hooks
from judge.fuzz.options import FuzzOptions
from judge.fuzz.outcome import FuzzOutcome, FuzzStatus
from judge.judging.submission import Environment, Prepared, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import make_runner

ROOT = Path(__file__).resolve().parent.parent
ADD = ROOT / "tests" / "fixtures_fuzz" / "add"
BUGS = ADD / "submissions" / "fuzz_bugs"
GUESS = ROOT / "tests" / "fixtures" / "guess"


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(make_runner(os.environ.get("JUDGE_SANDBOX", "auto")), load_languages(), toolchain())


@pytest.fixture(scope="module")
def add(env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    return prepare(load_problem(ADD), env, tmp_path_factory.mktemp("add"))


def fuzz(prepared: Prepared, source: Path, env: Environment, examples: int = 100, **kw: object) -> FuzzOutcome:
    kw.setdefault("use_database", False)
    kw.setdefault("seed", 1)
    return fuzz_submission(prepared, source, env, FuzzOptions(examples=examples, **kw))  # type: ignore[arg-type]


def test_the_bugs_pass_the_fixed_tests(add: Prepared, env: Environment) -> None:
    for source in sorted(BUGS.glob("*.py")):
        assert judge_submission(add, source, env).verdict is Verdict.AC, source.name


def test_wrong_answer_is_shrunk_to_the_minimal_input(add: Prepared, env: Environment) -> None:
    out = fuzz(add, BUGS / "wa_big_both.py", env)
    assert out.status is FuzzStatus.COUNTEREXAMPLE and out.failed
    cex = out.counterexample
    assert cex is not None
    assert cex.input == b"101 101\n"  # the smallest input with both numbers above 100
    assert (cex.answer, cex.output, cex.verdict) == (b"202\n", b"203\n", Verdict.WA)
    assert cex.confirmed  # re-judged by the package's own (default) validator
    assert out.examples <= 100 and out.shrink_runs > 0


def test_crash_and_timeout_are_disagreements_and_are_shrunk(add: Prepared, env: Environment) -> None:
    crash = fuzz(add, BUGS / "rte_big_sum.py", env)
    assert crash.counterexample is not None
    assert (crash.counterexample.input, crash.counterexample.verdict) == (b"0 1001\n", Verdict.RTE)
    assert "sum too large" in crash.counterexample.message and crash.counterexample.output is None
    spin = fuzz(add, BUGS / "tle_big_b.py", env, shrink_time_s=2.0)
    assert spin.counterexample is not None and spin.counterexample.verdict is Verdict.TLE
    a, b = map(int, spin.counterexample.input.split())
    assert b > 5000 and (a, b) <= (1000, 10**6)  # shrunk at least part of the way to "0 5001"


def test_a_correct_submission_survives(add: Prepared, env: Environment) -> None:
    out = fuzz(add, ADD / "submissions" / "accepted" / "add.c", env, examples=80)
    assert out.status is FuzzStatus.PASSED and not out.failed
    assert out.examples == 80 and 0 < out.runs <= 80 and out.examples_per_s > 0
    assert out.counterexample is None and out.checker == "fuzz.py accepts()"


def test_the_validator_path_gives_the_same_result(add: Prepared, env: Environment) -> None:
    fast = fuzz(add, BUGS / "wa_big_both.py", env, examples=60, shrink_time_s=0)
    slow = fuzz(add, BUGS / "wa_big_both.py", env, examples=60, shrink_time_s=0, use_accepts=False)
    assert slow.checker == "the default output comparison" and fast.checker == "fuzz.py accepts()"
    assert fast.counterexample is not None and slow.counterexample is not None
    # Same seed, same generated inputs, same first failure: the in-process check agrees with the validator.
    assert (fast.examples, fast.counterexample.input) == (slow.examples, slow.counterexample.input)


LEAVES_A_MARK = """\
import os
a, b = map(int, input().split())
try:
    with open("mark", "x") as f:  # a file in the box, left for the next run to find
        f.write("seen")
except FileExistsError:
    print(-1)  # a run found what an earlier one left: wrong
    raise SystemExit
except OSError:
    pass  # the box is read-only for the program: nothing to leave
print(a + b)
"""


@pytest.mark.parametrize("writable", [False, True])
def test_the_fast_path_runs_share_nothing(env: Environment, tmp_path: Path, writable: bool) -> None:
    """Where the package lets submissions write files, each run gets a fresh box; where it does not,
    the box is read-only for every run (and one box serves them all): either way no run sees another's."""
    package = tmp_path / "add"
    shutil.copytree(ADD, package)
    if writable:
        with (package / "problem.yaml").open("a") as f:
            f.write("allow_file_writing: true\n")
    source = tmp_path / "mark.py"
    source.write_text(LEAVES_A_MARK)
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    out = fuzz(prepared, source, env, examples=12, jobs=2, shrink_time_s=0)
    assert out.status is FuzzStatus.PASSED and out.runs >= 6, out.to_json()


def test_a_seed_makes_the_run_reproducible(add: Prepared, env: Environment) -> None:
    runs = [fuzz(add, BUGS / "rte_big_sum.py", env, seed=s, shrink_time_s=0) for s in (7, 7, 8)]
    first = [(r.examples, r.counterexample and r.counterexample.input) for r in runs]
    assert first[0] == first[1]
    assert runs[0].seed == runs[1].seed == 7 and runs[2].seed == 8


def test_parallel_workers_are_deterministic(add: Prepared, env: Environment) -> None:
    runs = [fuzz(add, BUGS / "rte_big_sum.py", env, 40, seed=11, jobs=3, shrink_time_s=0) for _ in range(2)]
    assert [(r.examples, r.counterexample and r.counterexample.input) for r in runs].count(
        (runs[0].examples, runs[0].counterexample and runs[0].counterexample.input)
    ) == 2
    assert runs[0].status is FuzzStatus.COUNTEREXAMPLE
    ok = fuzz(add, ADD / "submissions" / "accepted" / "add.py", env, 31, jobs=2)
    assert ok.status is FuzzStatus.PASSED and ok.examples == 31  # the examples are split, not repeated


def test_failures_are_replayed_first_from_the_database(add: Prepared, env: Environment, tmp_path: Path) -> None:
    db = tmp_path / "db"
    found = fuzz(add, BUGS / "rte_big_sum.py", env, use_database=True, database_dir=db, seed=3)
    assert found.counterexample is not None and not found.replayed and any(db.rglob("*"))
    again = fuzz(add, BUGS / "rte_big_sum.py", env, use_database=True, database_dir=db, seed=4)
    assert again.replayed and again.examples == 1
    assert again.counterexample is not None and again.counterexample.input == found.counterexample.input
    # The database is per submission: the correct one does not inherit the failure.
    ok = fuzz(add, ADD / "submissions" / "accepted" / "add.py", env, 8, use_database=True, database_dir=db)
    assert ok.status is FuzzStatus.PASSED


def _copy(package: Path, tmp_path: Path) -> Path:
    dest = tmp_path / package.name
    shutil.copytree(package, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def judge_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "JUDGE_CACHE": os.environ.get("JUDGE_CACHE", "/nonexistent")},
    )


def test_cli_save_adds_a_regression_test(env: Environment, tmp_path: Path) -> None:
    package = _copy(ADD, tmp_path)
    bug = package / "submissions" / "fuzz_bugs" / "wa_big_both.py"
    proc = judge_cli("fuzz", str(package), str(bug), "--seed", "1", "--save", "--json", "--no-db")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["status"] == "counterexample" and report["counterexample"]["input"] == "101 101\n"
    saved = [Path(p) for p in report["saved_as"]]
    assert [p.suffix for p in saved] == [".in", ".ans"] and saved[0].parent == package / "data" / "secret"
    assert saved[1].read_bytes() == b"202\n"
    # The next judging of the package catches the bug; the correct submission still gets everything.
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    result = judge_submission(prepared, bug, env)
    assert result.verdict is Verdict.WA and result.tests[-1].name.startswith("secret/fuzz-")
    good = judge_submission(prepared, package / "submissions" / "accepted" / "add.py", env)
    assert (good.verdict, good.score) == (Verdict.AC, 100.0)


def test_save_into_a_package_with_groups_keeps_the_points(env: Environment, tmp_path: Path) -> None:
    package = _copy(ADD, tmp_path)
    (package / "problem.yaml").write_text("name: Add\ntype: scoring\nlimits: {time_limit: 0.2, memory: 256}\n")
    secret = package / "data" / "secret"
    (secret / "small").mkdir()
    for f in list(secret.iterdir()):
        if f.is_file():
            f.rename(secret / "small" / f.name)
    bug = package / "submissions/fuzz_bugs/rte_big_sum.py"
    proc = judge_cli("fuzz", str(package), str(bug), "--save", "--no-db")
    assert proc.returncode == 1 and "saved:" in proc.stdout, proc.stdout + proc.stderr
    assert (secret / "fuzz" / "testdata.yaml").is_file() and len(list((secret / "fuzz").glob("*.in"))) == 1
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    result = judge_submission(prepared, bug, env)
    assert result.verdict is Verdict.RTE and result.score == 100.0  # the verdict changes, the points do not
    assert {g.name: g.max_score for g in result.groups}["secret/fuzz"] == 0
    good = judge_submission(prepared, package / "submissions" / "accepted" / "add.py", env)
    assert (good.verdict, good.score, good.max_score) == (Verdict.AC, 100.0, 100.0)


def test_cli_exit_codes(tmp_path: Path) -> None:
    ok = judge_cli("fuzz", str(ADD), str(ADD / "submissions/accepted/add.py"), "--examples", "15", "--no-db")
    assert ok.returncode == 0 and "passed: 15 examples" in ok.stdout, ok.stdout + ok.stderr
    no_hooks = judge_cli("fuzz", str(ROOT / "tests/fixtures/sum"), str(ADD / "submissions/accepted/add.py"))
    assert no_hooks.returncode == 2 and "fuzz.py" in no_hooks.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("print(\n")
    ce = judge_cli("fuzz", str(ADD), str(broken), "--json")
    assert ce.returncode == 1 and json.loads(ce.stdout)["status"] == "not_built"


def _with_hooks(tmp_path: Path, text: str) -> Path:
    package = _copy(ADD, tmp_path)
    (package / "fuzz.py").write_text(text)
    return package


def test_broken_hooks_are_judge_errors_not_counterexamples(env: Environment, tmp_path: Path) -> None:
    header = (
        "from hypothesis import strategies as st\n"
        "def strategy(): return st.integers(0, 2000).map(lambda n: b'%d %d\\n' % (n, n))\n"
    )
    good_answer = "def answer(i): return b'%d\\n' % sum(map(int, i.split()))\n"
    cases = {
        "answer() failed": header + "def answer(i): raise KeyError('boom')\n",
        "invalid input": header.replace("%d %d", "%d  %d") + good_answer,  # two spaces: the validator says no
        "accepts() rejects an output": header + good_answer + "def accepts(i, a, o): return False\n",
    }
    for k, (why, text) in enumerate(cases.items()):
        package = _with_hooks(tmp_path / str(k), text)
        prepared = prepare(load_problem(package), env, tmp_path / f"prep{k}")
        # A correct submission: only a check of every input tells the strategy is wrong.
        out = fuzz(prepared, package / "submissions/accepted/add.py", env, examples=10, check_inputs=True)
        assert out.status is FuzzStatus.ERROR and why in out.message, (why, out)
        if "accepts" not in why:  # a crash is found without accepts(), and confirmed
            # Without the check of every input: the counterexample is checked before it is reported.
            crash = fuzz(prepared, package / "submissions/fuzz_bugs/rte_big_sum.py", env, shrink_time_s=0)
            assert crash.status is FuzzStatus.ERROR and why in crash.message, (why, crash)


def test_interactive_problem_hidden_data_is_shrunk(env: Environment, tmp_path: Path) -> None:
    package = _copy(GUESS, tmp_path)
    (package / "fuzz.py").write_text(
        "from hypothesis import strategies as st\n"
        "def strategy(): return st.integers(1, 1000).map(lambda n: b'%d\\n' % n)\n"
        "def answer(test_input): return b''\n"
        "def accepts(test_input, answer, output): raise AssertionError('never used: interactive')\n"
    )
    problem = load_problem(package)
    hooks = load_hooks(problem)
    assert hooks is not None and hooks.accepts is None  # interactive: the oracle must judge
    prepared = prepare(problem, env, tmp_path / "prep")
    linear = fuzz(prepared, package / "submissions/wrong_answer/linear.py", env, examples=30)
    assert linear.counterexample is not None and linear.checker == "the output validator"
    assert linear.counterexample.input == b"11\n"  # the smallest secret that takes more than 10 guesses
    assert linear.counterexample.verdict is Verdict.WA and b"> 10" in (linear.counterexample.output or b"")
    binary = fuzz(prepared, package / "submissions/accepted/binary.py", env, examples=10)
    assert binary.status is FuzzStatus.PASSED
