"""judge.judging.problemtypes.run_program: our two extensions applied in one place (input: args, answer:
exit_code), with a scripted FakeRunner: no root, no processes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakeRunner, make_package, ran

from judge.judging.build import Program
from judge.judging.problemtypes import ProgramCall, ProgramRun, run_program
from judge.judging.verdict import Verdict
from judge.package.problem import Problem, load_problem
from judge.runner.spec import LimitHit

ONE_TEST = {"secret/01": (b"3 4\n", b"7\n")}


def _problem(tmp_path: Path, extensions: str = "") -> Problem:
    root = make_package(tmp_path / "pkg", {"name": "p"}, ONE_TEST, validator=False)
    if extensions:
        (root / "judge.yaml").write_text(extensions)
    return load_problem(root)


def _run(tmp_path: Path, problem: Problem, runner: FakeRunner, test_input: Path | None = None, **kw: Any) -> ProgramRun:
    """``problem``'s program run once on ``test_input`` (its test's input by default); ``kw``: ``ProgramCall``'s."""
    files = tmp_path / "prog"
    files.mkdir(exist_ok=True)
    program = Program("python3", files, ("python3", "sub.py"))
    box = tmp_path / "box"
    box.mkdir(exist_ok=True)
    test = next(iter(problem.tests()))
    given = test_input if test_input is not None else test.input_path
    call = ProgramCall(box, given, tmp_path / "out", tmp_path / "err", **kw)
    return run_program(problem, program, runner, call)


def test_stdin_and_stdout_by_default(tmp_path: Path) -> None:
    problem = _problem(tmp_path)
    runner = FakeRunner([ran(b"7\n")])
    run = _run(tmp_path, problem, runner, extra_args=("-v",))
    assert run.verdict is None and run.output_bytes() == b"7\n"
    assert runner.calls[0].argv == ("python3", "sub.py", "-v")
    assert runner.stdins == [b"3 4\n"]


def test_input_args_become_arguments_and_stdin_is_empty(tmp_path: Path) -> None:
    problem = _problem(tmp_path, "input: args\n")
    runner = FakeRunner([ran(b"7\n"), ran(b"7\n")])
    _run(tmp_path, problem, runner)
    # the input given in memory: the file is neither read nor written
    missing = tmp_path / "not-written.in"
    _run(tmp_path, problem, runner, test_input=missing, input_data=b"5\t6\n")
    assert [c.argv for c in runner.calls] == [("python3", "sub.py", "3", "4"), ("python3", "sub.py", "5", "6")]
    assert runner.stdins == [b"", b""] and not missing.exists()


def test_input_in_memory_is_written_for_stdin(tmp_path: Path) -> None:
    problem = _problem(tmp_path)
    runner = FakeRunner([ran(b"11\n")])
    _run(tmp_path, problem, runner, test_input=tmp_path / "fuzz.in", input_data=b"5 6\n")
    assert runner.stdins == [b"5 6\n"]


def test_exit_code_is_the_answer(tmp_path: Path) -> None:
    problem = _problem(tmp_path, "answer: exit_code\n")
    runner = FakeRunner([ran(b"ignored", exit_code=3), ran(limit=LimitHit.CPU_TIME), ran(signal=11)])
    run = _run(tmp_path, problem, runner)
    assert run.verdict is None and run.output_bytes() == b"3\n"
    assert run.output_file().read_bytes() == b"3\n"
    assert _run(tmp_path, problem, runner).verdict is Verdict.TLE
    crashed = _run(tmp_path, problem, runner)
    assert crashed.verdict is Verdict.RTE and "SIGSEGV" in crashed.message


def test_a_failed_run_is_described(tmp_path: Path) -> None:
    problem = _problem(tmp_path)
    runner = FakeRunner([ran(exit_code=2)])
    run = _run(tmp_path, problem, runner)
    assert run.verdict is Verdict.RTE and run.message.startswith("exit status 2")
