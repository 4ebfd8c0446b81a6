"""What a test's passes leave for the jury (issue 47), through a scripted FakeRunner: each pass's output and
stderr (their first ``keep_bytes``, with the sizes written), how the program ended, the validator's
judgemessage.txt and teammessage.txt, a multi-pass test's later inputs; nothing unless asked."""

from __future__ import annotations

from pathlib import Path

from fakes import FakeRunner, make_package, ran, reject
from rules_support import ONE_TEST, judge, validator

from judge.judging.verdict import Verdict


def package(tmp_path: Path, **config: object) -> Path:
    return make_package(tmp_path / "pkg", {"name": "d", **config}, ONE_TEST)


def test_nothing_is_kept_unless_asked(tmp_path: Path) -> None:
    result = judge(tmp_path, package(tmp_path), FakeRunner([ran(b"2\n")], [reject("wrong")]))
    assert result.tests[0].details == ()


def test_a_rejected_pass_keeps_its_output_and_both_messages(tmp_path: Path) -> None:
    feedback = {"judgemessage.txt": b"expected 1, got 2", "teammessage.txt": b"look at line 1"}
    runner = FakeRunner([ran(b"2\n", stderr=b"debug: x=2\n")], [validator(43, feedback)])
    (detail,) = judge(tmp_path, package(tmp_path), runner, keep_bytes=1024).tests[0].details
    assert (detail.n, detail.verdict, detail.output, detail.output_bytes) == (1, Verdict.WA, b"2\n", 2)
    assert (detail.stderr, detail.stderr_bytes) == (b"debug: x=2\n", 11)
    assert (detail.judge_message, detail.team_message) == ("expected 1, got 2", "look at line 1")
    assert (detail.exit_code, detail.signal, detail.input) == (0, None, None)


def test_output_and_stderr_are_cut_at_keep_bytes_and_their_sizes_said(tmp_path: Path) -> None:
    runner = FakeRunner([ran(b"x" * 5000, stderr=b"e" * 300)], [reject()])
    (detail,) = judge(tmp_path, package(tmp_path), runner, keep_bytes=100).tests[0].details
    assert (detail.output, detail.output_bytes) == (b"x" * 100, 5000)
    assert (detail.stderr, detail.stderr_bytes) == (b"e" * 100, 300)


def test_a_crash_keeps_its_signal_and_stderr(tmp_path: Path) -> None:
    runner = FakeRunner([ran(signal=11, stderr=b"Segmentation fault\n")], [])
    (detail,) = judge(tmp_path, package(tmp_path), runner, keep_bytes=1024).tests[0].details
    assert (detail.verdict, detail.exit_code, detail.signal) == (Verdict.RTE, None, 11)
    assert detail.stderr == b"Segmentation fault\n" and detail.judge_message == ""


def test_a_multi_pass_test_keeps_each_pass_with_its_own_input_and_message(tmp_path: Path) -> None:
    pkg = package(tmp_path, type=["pass-fail", "multi-pass"], limits={"validation_passes": 3})
    first = validator(42, {"judgemessage.txt": b"round 1 fine\n", "nextpass.in": b"2\n"})
    second = validator(43, {"judgemessage.txt": b"round 1 fine\nround 2 wrong\n"})
    runner = FakeRunner([ran(b"a\n"), ran(b"b\n")], [first, second])
    passes = judge(tmp_path, pkg, runner, keep_bytes=1024).tests[0].details
    assert [(p.n, p.output, p.input, p.judge_message) for p in passes] == [
        (1, b"a\n", None, "round 1 fine"),
        (2, b"b\n", b"2\n", "round 2 wrong"),
    ]
    assert [p.verdict for p in passes] == [Verdict.AC, Verdict.WA]


def test_an_interactive_pass_has_no_output_of_its_own(tmp_path: Path) -> None:
    pkg = package(tmp_path, type=["pass-fail", "interactive"])
    runner = FakeRunner([ran(b"ignored", stderr=b"to stderr\n")], [reject("you lose")])
    (detail,) = judge(tmp_path, pkg, runner, keep_bytes=1024).tests[0].details
    assert detail.output == b"" and detail.output_bytes == 0
    assert detail.stderr == b"to stderr\n" and detail.judge_message == "you lose"
