"""The judging rules of batch problems, through a scripted FakeRunner (no root, no sandbox, sub-second):
what a run earns by itself (its limits, its exit), which test's verdict is the submission's, where judging
stops, that a judge error is never charged, and what the program and the validator are given."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeRunner, Reply, accept, crash, make_package, ran, reject
from rules_support import ONE_TEST, LitteringRunner, judge, program_runs, validator, validator_runs

from judge.judging.build import COMPILE_LIMITS
from judge.judging.verdict import Verdict
from judge.runner.spec import LimitHit

THREE_TESTS = {f"secret/{i:02d}": (f"{i}\n".encode(), f"{i}\n".encode()) for i in (1, 2, 3)}


def pass_fail(tmp_path: Path, tests: dict[str, tuple[bytes, bytes]] = THREE_TESTS, **config: object) -> Path:
    return make_package(tmp_path / "pkg", {"name": "b", **config}, tests)


def scoring(tmp_path: Path, tests: dict[str, tuple[bytes, bytes]] = THREE_TESTS) -> Path:
    """A scoring problem: one group of ``tests``, worth 90; a rejection does not stop judging (on_reject:
    continue is the default of scoring problems)."""
    return make_package(tmp_path / "pkg", {"name": "s", "type": "scoring"}, tests, groups={"secret": {"max_score": 90}})


# -- what a run earns by itself ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "run, verdict, said",
    [
        (ran(limit=LimitHit.CPU_TIME, cpu_time_s=1.5), Verdict.TLE, "CPU time limit exceeded"),
        (ran(limit=LimitHit.WALL_TIME), Verdict.TLE, "wall-clock time limit exceeded"),
        (ran(limit=LimitHit.MEMORY, memory_kib=99_000), Verdict.MLE, "memory limit exceeded (99000 KiB)"),
        (ran(limit=LimitHit.OUTPUT), Verdict.OLE, "output limit exceeded"),
        (ran(limit=LimitHit.PROCESSES), Verdict.RTE, "too many processes or threads"),
        (ran(exit_code=3), Verdict.RTE, "exit status 3"),
        (ran(signal=9), Verdict.RTE, "killed by signal SIGKILL"),
    ],
)
def test_a_failed_run_is_its_verdict_and_its_output_is_not_validated(
    tmp_path: Path, run: Reply, verdict: Verdict, said: str
) -> None:
    runner = FakeRunner([run], [])  # a validator run would find no reply: ScriptExhausted
    result = judge(tmp_path, pass_fail(tmp_path, ONE_TEST), runner)
    assert result.verdict is verdict and result.verdict.charged
    assert result.tests[0].verdict is verdict and said in result.tests[0].message
    assert validator_runs(runner) == []


def test_a_run_is_measured_and_the_submission_takes_the_maximum(tmp_path: Path) -> None:
    runs = [ran(b"1\n", cpu_time_s=0.2, memory_kib=3000), ran(b"2\n", cpu_time_s=0.7, memory_kib=1000)]
    result = judge(tmp_path, pass_fail(tmp_path, dict(list(THREE_TESTS.items())[:2])), FakeRunner(runs, [accept()] * 2))
    assert [(t.time_s, t.memory_kib) for t in result.tests] == [(0.2, 3000), (0.7, 1000)]
    assert (result.time_s, result.memory_kib) == (0.7, 3000)


def test_the_program_runs_under_the_problems_limits(tmp_path: Path) -> None:
    package = pass_fail(tmp_path, ONE_TEST, limits={"time_limit": 2.5, "memory": 256, "output": 4})
    runner = FakeRunner([ran(b"1\n")], [accept()])
    assert judge(tmp_path, package, runner).verdict is Verdict.AC
    (spec,) = program_runs(runner)
    assert (spec.limits.time_s, spec.limits.memory_kib, spec.limits.output_bytes) == (2.5, 256 * 1024, 4 * 1024 * 1024)


# -- which test decides, where judging stops ----------------------------------------------------------


def test_the_first_failing_test_is_the_submissions_verdict(tmp_path: Path) -> None:
    runs = [ran(b"1\n"), ran(limit=LimitHit.CPU_TIME), ran(b"0\n")]
    result = judge(tmp_path, scoring(tmp_path), FakeRunner(runs, [accept(score=90), reject("no")]))
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.TLE, Verdict.WA]
    assert result.verdict is Verdict.TLE
    assert result.score == 30.0  # a third of the group: the one accepted test


def test_a_pass_fail_problem_stops_at_the_first_rejection(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"1\n"), ran(b"0\n")], [accept(), reject("no")])
    result = judge(tmp_path, pass_fail(tmp_path), runner)
    assert result.verdict is Verdict.WA
    assert [t.name for t in result.tests] == ["secret/01", "secret/02"]
    assert len(program_runs(runner)) == 2


def test_a_pass_fail_problem_stops_everything_at_a_failed_sample(tmp_path: Path) -> None:
    tests = {"sample/01": (b"1\n", b"1\n"), **THREE_TESTS}
    runner = FakeRunner([ran(exit_code=1)], [])
    result = judge(tmp_path, pass_fail(tmp_path, tests), runner)
    assert result.verdict is Verdict.RTE and [t.name for t in result.tests] == ["sample/01"]


def test_all_tests_judges_past_the_stop_and_counts_none_of_it(tmp_path: Path) -> None:
    runs = [ran(b"1\n"), ran(b"0\n"), ran(limit=LimitHit.CPU_TIME, cpu_time_s=5.0)]
    result = judge(tmp_path, pass_fail(tmp_path), FakeRunner(runs, [accept(), reject("no")]), all_tests=True)
    assert [(t.verdict, t.skipped) for t in result.tests] == [
        (Verdict.AC, False),
        (Verdict.WA, False),
        (Verdict.TLE, True),
    ]
    assert result.verdict is Verdict.WA  # the skipped TLE changes nothing
    assert result.time_s < 5.0


# -- a judge error is never charged ---------------------------------------------------------------------


def test_a_judge_error_after_a_wrong_answer_makes_the_submission_je(tmp_path: Path) -> None:
    runs = [ran(b"0\n"), ran(b"2\n"), ran(b"3\n")]
    result = judge(tmp_path, scoring(tmp_path), FakeRunner(runs, [reject("no"), crash(1), accept(score=90)]))
    assert [t.verdict for t in result.tests] == [Verdict.WA, Verdict.JE, Verdict.AC]
    assert result.verdict is Verdict.JE and not result.verdict.charged


@pytest.mark.parametrize(
    "reply, why",
    [
        (crash(1), "validator exited with status 1 (expected 42 or 43)"),
        (crash(0), "validator exited with status 0"),
        (validator(42, {"score.txt": b"many\n"}), "score.txt does not hold a number"),
    ],
)
def test_a_validator_that_breaks_the_protocol_is_je(tmp_path: Path, reply: Reply, why: str) -> None:
    result = judge(tmp_path, pass_fail(tmp_path, ONE_TEST), FakeRunner([ran(b"1\n")], [reply]))
    assert result.verdict is Verdict.JE and why in result.tests[0].message


def test_a_validator_that_hits_its_limit_is_je(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"1\n")], [validator(limit=LimitHit.WALL_TIME)])
    result = judge(tmp_path, pass_fail(tmp_path, ONE_TEST), runner)
    assert result.verdict is Verdict.JE and "validator hit its" in result.tests[0].message


def test_a_validator_that_cannot_be_built_is_je_and_nothing_runs(tmp_path: Path) -> None:
    package = pass_fail(tmp_path, ONE_TEST)
    folder = package / "output_validators" / "check"
    (folder / "validate.py").unlink()
    (folder / "validate.c").write_text("int main(void) { return 42 }\n")
    runner = FakeRunner([], [], compiles=[ran(b"validate.c:1: error: expected ';'\n", exit_code=1)])
    result = judge(tmp_path, package, runner)
    assert result.verdict is Verdict.JE and not result.verdict.charged and result.tests == ()
    assert program_runs(runner) == []


# -- what the program and the validator are given -------------------------------------------------------------


def test_the_validator_gets_the_kattis_arguments_and_the_output_on_stdin(tmp_path: Path) -> None:
    config = {"name": "a", "validator_flags": "case_sensitive"}
    groups = {"secret": {"output_validator_args": "--strict"}}
    package = make_package(tmp_path / "pkg", config, ONE_TEST, groups=groups)
    runner = FakeRunner([ran(b"1\n")], [accept()])
    assert judge(tmp_path, package, runner).verdict is Verdict.AC
    (program,) = program_runs(runner)
    (check,) = validator_runs(runner)
    *_, given, answer, feedback, flag, arg = check.argv
    data = (package / "data" / "secret").resolve()
    assert Path(given).resolve() == data / "01.in" and Path(answer).resolve() == data / "01.ans"
    assert feedback.endswith("/") and (flag, arg) == ("case_sensitive", "--strict")
    assert check.stdin == program.stdout and check.trusted and not program.trusted
    assert runner.stdins == [b"1\n"]


@pytest.mark.parametrize(
    "output, config, verdict",
    [
        (b"1\n", {}, Verdict.AC),
        (b"  1  \n\n", {}, Verdict.AC),  # whitespace only separates tokens
        (b"2\n", {}, Verdict.WA),
        (b"1.004\n", {"validator_flags": "float_tolerance 0.01"}, Verdict.AC),
        (b"1.04\n", {"validator_flags": "float_tolerance 0.01"}, Verdict.WA),
        (b"1\n", {"validator_flags": "no_such_flag"}, Verdict.JE),  # the package's mistake
    ],
)
def test_without_a_validator_the_default_comparison_decides(
    tmp_path: Path, output: bytes, config: dict[str, str], verdict: Verdict
) -> None:
    package = make_package(tmp_path / "pkg", {"name": "d", **config}, {"secret/01": (b"x\n", b"1\n")}, validator=False)
    runner = FakeRunner([ran(output)], [])
    result = judge(tmp_path, package, runner)
    assert result.verdict is verdict
    assert validator_runs(runner) == []


def test_every_test_runs_in_a_fresh_box_where_programs_may_write_it(tmp_path: Path) -> None:
    runner = LitteringRunner([ran(b"1\n"), ran(b"2\n"), ran(b"3\n")], [accept()] * 3)
    assert judge(tmp_path, pass_fail(tmp_path, allow_file_writing=True), runner).verdict is Verdict.AC
    assert len({box for box, _ in runner.boxes}) == 3
    assert [held for _, held in runner.boxes] == [("sub.py",)] * 3
    assert all(run.box_writable for run in program_runs(runner))


def test_a_box_the_program_may_not_write_is_one_sealed_box_for_every_run(tmp_path: Path) -> None:
    """The runner seals a box the program may not write (no run can change it): the submission's runs share
    one, made once, with the program's files; a test with ``.files`` of its own gets a fresh box."""
    package = make_package(
        tmp_path / "pkg", {"name": "b", "problem_format_version": "2025-09", "uuid": "x"}, THREE_TESTS
    )
    (package / "data" / "secret" / "02.files").mkdir()
    (package / "data" / "secret" / "02.files" / "given.txt").write_text("a file of test 02\n")
    seen: list[tuple[str, ...]] = []

    class Looking(FakeRunner):
        def run(self, spec, *, on_start=None, on_end=None):  # type: ignore[no-untyped-def]
            if not spec.trusted and spec.limits != COMPILE_LIMITS:
                seen.append(tuple(sorted(p.name for p in spec.box.iterdir())))
            return super().run(spec, on_start=on_start, on_end=on_end)

    runner = Looking([ran(b"1\n"), ran(b"2\n"), ran(b"3\n")], [accept()] * 3)
    assert judge(tmp_path, package, runner).verdict is Verdict.AC
    runs = program_runs(runner)
    assert [run.box_writable for run in runs] == [False] * 3
    assert runs[0].box == runs[2].box != runs[1].box
    assert seen == [("sub.py",), ("given.txt", "sub.py"), ("sub.py",)]
    assert not runs[1].box.exists()  # a fresh box is removed after its run


def test_the_validators_files_go_to_the_scratch_and_the_programs_stay_on_disk(tmp_path: Path) -> None:
    """With a scratch folder (a tmpfs: RunnerConfig.scratch_dir), each test's folder (the feedback directory,
    the validator's log) is made there; the program's stdout, stderr and fresh boxes stay in the submission's
    work folder on disk, where a page it writes is not charged to its memory limit (docs/sandbox.md). Both are
    removed after the test; the verdicts are the same."""
    from dataclasses import replace as replaced

    from conftest import fake_environment

    from judge.judging.submission import JudgeOptions, judge_submission, prepare
    from judge.package.problem import load_problem

    scratch, work = tmp_path / "scratch", tmp_path / "work"
    scratch.mkdir()
    work.mkdir()
    package = pass_fail(tmp_path, allow_file_writing=True)
    source = tmp_path / "sub.py"
    source.write_text("print(1)\n")
    seen: list[tuple[str, Path]] = []

    class Watching(FakeRunner):
        def run(self, spec, *, on_start=None, on_end=None):  # type: ignore[no-untyped-def]
            if spec.limits != COMPILE_LIMITS:
                for what in ("box", "stdout", "stderr"):
                    path = getattr(spec, what)
                    if path is not None:
                        seen.append((("validator " if spec.trusted else "program ") + what, path))
                        assert path.parent.is_dir()
            return super().run(spec, on_start=on_start, on_end=on_end)

    runner = Watching([ran(b"1\n"), ran(b"2\n"), ran(b"4\n")], [accept(), accept(), reject("no")])
    env = replaced(fake_environment(runner), scratch=scratch)
    prepared = prepare(load_problem(package), env, tmp_path / "prep")
    result = judge_submission(prepared, source, env, options=JudgeOptions(workdir=work, all_tests=True))
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.AC, Verdict.WA]
    on_disk = [path for what, path in seen if what.startswith("program")]
    on_scratch = [path for what, path in seen if what.startswith("validator")]
    assert all(work in p.parents and scratch not in p.parents for p in on_disk), seen
    assert all(scratch in p.parents for p in on_scratch), seen
    assert {what for what, _ in seen} == {
        "program box",
        "program stdout",
        "program stderr",
        "validator box",
        "validator stdout",
        "validator stderr",
    }
    assert list(scratch.iterdir()) == []
    assert not [p for p in work.iterdir() if p.name.startswith("t0")]  # the tests' folders: removed
