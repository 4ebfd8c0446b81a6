"""Multi-pass judging as the Kattis spec and DOMjudge define it, on the `countdown` fixture.

Its validator keeps no state: it learns each pass's number from its `input_file`, so it only works when
the judge passes that pass's input (the previous pass's nextpass.in), as DOMjudge and BAPCtools do. It
exits 1 (a judge error) when the judge breaks the rest of the contract (nextpass.in left in the feedback
directory, the feedback directory not kept across passes).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import Runner

FIXTURE = Path(__file__).parent / "fixtures" / "countdown"
ACCEPTED = FIXTURE / "submissions" / "accepted" / "countdown.py"


@pytest.fixture(scope="module")
def env(sandbox_runner: Runner) -> Environment:
    return Environment(sandbox_runner, load_languages(), toolchain())


def judge(package: Path, source: Path, env: Environment, tmp_path: Path) -> SubmissionResult:
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    return judge_submission(prepared, source, env)


def copy_fixture(tmp_path: Path) -> Path:
    dst = tmp_path / "countdown"
    shutil.copytree(FIXTURE, dst)
    return dst


def test_each_pass_reads_the_previous_pass_nextpass_in(env: Environment, tmp_path: Path) -> None:
    result = judge(FIXTURE, ACCEPTED, env, tmp_path)
    assert result.verdict is Verdict.AC, [(t.name, t.verdict, t.message) for t in result.tests]
    by_name = {t.name: t for t in result.tests}
    three = by_name["secret/1-three-passes"]
    assert three.passes == 3  # the last allowed pass may end the test (no nextpass.in): not an error
    assert by_name["secret/2-one-pass"].passes == 1
    # judgemessage.txt is appended to by each pass: each pass's part is shown once
    assert three.message.splitlines() == ["pass 1: 3 -> 2", "pass 2: 2 -> 1", "pass 3: 1 -> 0"]


def test_a_wrong_pass_ends_the_test_with_its_verdict(env: Environment, tmp_path: Path) -> None:
    result = judge(FIXTURE, FIXTURE / "submissions" / "run_time_error" / "crash_at_one.py", env, tmp_path)
    assert result.verdict is Verdict.RTE
    three = next(t for t in result.tests if t.name == "sample/1")
    assert three.passes == 2 and three.verdict is Verdict.RTE  # passes 1 fine, pass 2 (input 1) crashes


def test_more_passes_than_allowed_is_a_judge_error(env: Environment, tmp_path: Path) -> None:
    package = copy_fixture(tmp_path)
    yaml = package / "problem.yaml"
    yaml.write_text(yaml.read_text().replace("validation_passes: 3", "validation_passes: 2"))
    result = judge(package, ACCEPTED, env, tmp_path)
    assert result.verdict is Verdict.JE
    bad = next(t for t in result.tests if t.verdict is not Verdict.AC)
    assert bad.name == "secret/1-three-passes" and bad.passes == 2
    assert "asked for pass 3, but validation_passes is 2" in bad.message


def test_nextpass_in_with_a_rejection_is_a_judge_error(env: Environment, tmp_path: Path) -> None:
    package = copy_fixture(tmp_path)
    validator = package / "output_validator" / "validate.py"
    text = validator.read_text().replace(
        "        sys.exit(43)\n", "        (feedback / 'nextpass.in').write_text('1')\n        sys.exit(43)\n", 1
    )
    validator.write_text(text)
    result = judge(package, package / "submissions" / "wrong_answer" / "same.py", env, tmp_path)
    assert result.verdict is Verdict.JE
    assert "wrote nextpass.in but did not accept" in result.tests[0].message


def test_a_program_that_fails_leaves_no_stale_feedback(env: Environment, tmp_path: Path) -> None:
    result = judge(FIXTURE, FIXTURE / "submissions" / "wrong_answer" / "skip_one.py", env, tmp_path)
    assert result.verdict is Verdict.WA
    assert "given 2, printed '0'" in result.tests[0].message
