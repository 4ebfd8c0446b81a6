"""The judging rules of multi-pass problems, through a scripted FakeRunner (no root, no sandbox,
sub-second), beyond what tests/test_judging_rules.py covers: a fresh box for every pass, one feedback
directory for all of them, the next pass's input, where the passes stop, and what the test reports.
(tests/test_multipass.py runs the same protocol on a real validator in the sandbox.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fakes import FakeRunner, Reply, accept, make_package, ran, reject
from rules_support import ONE_TEST, LitteringRunner, judge, program_runs, validator, validator_runs

from judge.judging.verdict import Verdict
from judge.runner.spec import LimitHit, RunResult, RunSpec


def multipass(
    tmp_path: Path, passes: int = 3, kind: str = "pass-fail", interactive: bool = False, writable: bool = False
) -> Path:
    types = [kind, "multi-pass", *(["interactive"] if interactive else [])]
    config: dict[str, object] = {"name": "m", "type": types, "limits": {"validation_passes": passes}}
    if writable:  # allow_file_writing: a fresh box per pass (else the one sealed box of every run)
        config["allow_file_writing"] = True
    groups = {"secret": {"max_score": 100}} if kind == "scoring" else None
    return make_package(tmp_path / "pkg", config, ONE_TEST, groups=groups)


class FeedbackSpy(FakeRunner):
    """A ``FakeRunner`` that records the files of the feedback directory as each validator run starts."""

    def __init__(self, programs: list[Reply], validators: list[Reply]) -> None:
        super().__init__(programs, validators)
        self.seen: list[tuple[str, ...]] = []

    def run(
        self,
        spec: RunSpec,
        *,
        on_start: Callable[[], object] | None = None,
        on_end: Callable[[], object] | None = None,
    ) -> RunResult:
        if spec.trusted:
            feedback = Path(spec.argv[-1])
            self.seen.append(tuple(sorted(p.name for p in feedback.iterdir())))
        return super().run(spec, on_start=on_start, on_end=on_end)


def test_every_pass_runs_in_a_fresh_box_where_programs_may_write_it(tmp_path: Path) -> None:
    validators = [accept(nextpass=b"2\n"), accept(nextpass=b"3\n"), accept()]
    runner = LitteringRunner([ran(b"a\n"), ran(b"b\n"), ran(b"c\n")], validators)
    result = judge(tmp_path, multipass(tmp_path, writable=True), runner)
    assert result.verdict is Verdict.AC and result.tests[0].passes == 3
    assert len({box for box, _ in runner.boxes}) == 3
    assert [held for _, held in runner.boxes] == [("sub.py",)] * 3


def test_the_feedback_directory_is_kept_across_passes_but_for_nextpass_in(tmp_path: Path) -> None:
    first = validator(42, {"state.txt": b"round 1\n", "nextpass.in": b"2\n"})
    runner = FeedbackSpy([ran(b"a\n"), ran(b"b\n")], [first, accept()])
    assert judge(tmp_path, multipass(tmp_path), runner).verdict is Verdict.AC
    assert runner.seen == [(), ("state.txt",)]  # nextpass.in was moved out: it is pass 2's input
    feedback_dirs = {c.argv[-1] for c in validator_runs(runner)}
    assert len(feedback_dirs) == 1


def test_the_next_pass_input_is_the_programs_stdin_and_the_validators_input_file(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n"), ran(b"b\n")], [accept(nextpass=b"second\n"), accept()])
    assert judge(tmp_path, multipass(tmp_path), runner).verdict is Verdict.AC
    programs, checks = program_runs(runner), validator_runs(runner)
    assert programs[1].stdin is not None and programs[1].stdin.name == "pass2.in"
    assert Path(checks[1].argv[-3]) == programs[1].stdin  # input_file answer_file feedback_dir/
    assert checks[0].argv[-2] == checks[1].argv[-2]  # the test's answer throughout
    assert runner.stdins == [b"1\n", b"second\n"]


def test_the_passes_stop_at_the_first_rejection(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n")], [reject("wrong at once")])
    result = judge(tmp_path, multipass(tmp_path, passes=5), runner)
    assert result.verdict is Verdict.WA and result.tests[0].passes == 1
    assert len(program_runs(runner)) == 1


def test_the_passes_stop_when_the_validator_asks_for_none(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n"), ran(b"b\n")], [accept(nextpass=b"x\n"), accept()])
    result = judge(tmp_path, multipass(tmp_path, passes=5), runner)
    assert result.verdict is Verdict.AC and result.tests[0].passes == 2


def test_nextpass_in_with_a_rejection_is_the_packages_fault(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"a\n")], [validator(43, {"nextpass.in": b"x\n", "judgemessage.txt": b"no"})])
    result = judge(tmp_path, multipass(tmp_path), runner)
    assert result.verdict is Verdict.JE and not result.verdict.charged
    assert "wrote nextpass.in but did not accept" in result.tests[0].message


def test_without_multi_pass_nextpass_in_is_ignored(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg", {"name": "p"}, ONE_TEST)
    runner = FakeRunner([ran(b"a\n")], [accept(nextpass=b"x\n")])
    result = judge(tmp_path, package, runner)
    assert result.verdict is Verdict.AC and result.tests[0].passes == 1


def test_each_pass_part_of_the_judge_message_is_shown_once(tmp_path: Path) -> None:
    """Validators append to judgemessage.txt; the test's message numbers each pass's part."""
    validators = [
        accept("3 -> 2", nextpass=b"2\n"),
        accept("3 -> 2\n2 -> 1", nextpass=b"1\n"),
        reject("3 -> 2\n2 -> 1\nno"),
    ]
    result = judge(tmp_path, multipass(tmp_path), FakeRunner([ran(b"a\n")] * 3, validators))
    assert result.tests[0].message.splitlines() == ["pass 1: 3 -> 2", "pass 2: 2 -> 1", "pass 3: no"]


def test_the_test_reports_the_most_time_and_memory_of_its_passes(tmp_path: Path) -> None:
    runs = [ran(b"a\n", cpu_time_s=0.3, memory_kib=500), ran(b"b\n", cpu_time_s=0.1, memory_kib=900)]
    result = judge(tmp_path, multipass(tmp_path), FakeRunner(runs, [accept(nextpass=b"x\n"), accept()]))
    assert (result.tests[0].time_s, result.tests[0].memory_kib) == (0.3, 900)


def test_a_program_failing_in_a_later_pass_ends_the_test_with_its_verdict(tmp_path: Path) -> None:
    runs = [ran(b"a\n"), ran(limit=LimitHit.MEMORY)]
    runner = FakeRunner(runs, [accept(nextpass=b"x\n")])
    result = judge(tmp_path, multipass(tmp_path), runner)
    assert result.verdict is Verdict.MLE and result.tests[0].passes == 2
    assert len(validator_runs(runner)) == 1


def test_the_score_is_the_last_passes(tmp_path: Path) -> None:
    validators = [accept(nextpass=b"x\n", score=100), accept(score=25)]
    result = judge(tmp_path, multipass(tmp_path, kind="scoring"), FakeRunner([ran(b"a\n")] * 2, validators))
    assert result.verdict is Verdict.AC and result.score == 25.0


def test_interactive_passes_have_their_own_boxes_and_numbered_transcripts(tmp_path: Path) -> None:
    runner = LitteringRunner([ran(), ran()], [accept(nextpass=b"x\n"), accept()])
    result = judge(tmp_path, multipass(tmp_path, interactive=True, writable=True), runner)
    assert result.verdict is Verdict.AC and result.tests[0].passes == 2
    assert result.tests[0].transcript == "--- pass 1\n> (scripted)\n--- pass 2\n> (scripted)"
    assert len({box for box, _ in runner.boxes}) == 2 and all(h == ("sub.py",) for _, h in runner.boxes)
