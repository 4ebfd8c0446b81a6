"""The judge's scratch (docs/sandbox.md, "The judge's scratch"): where the tests' folders go, set at the edge
(RunnerConfig.from_environ), and that a contestant's program never writes there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judge.runner.config import RunnerConfig, tmpfs_scratch


def test_the_default_scratch_is_dev_shm_when_it_is_a_tmpfs() -> None:
    found = tmpfs_scratch()
    with open("/proc/self/mounts") as f:
        shm_is_tmpfs = any(line.split()[1:3] == ["/dev/shm", "tmpfs"] for line in f)
    assert found == (Path("/dev/shm") if shm_is_tmpfs and os.access("/dev/shm", os.W_OK) else None)
    assert RunnerConfig.from_environ({}).scratch_dir == found


def test_a_folder_that_is_not_a_tmpfs_is_not_taken_by_itself(tmp_path: Path) -> None:
    assert tmpfs_scratch(tmp_path) is None


def test_the_scratch_is_set_or_switched_off_by_the_environment(tmp_path: Path) -> None:
    given = tmp_path / "made" / "here"
    assert RunnerConfig.from_environ({"JUDGE_SCRATCH_DIR": str(given)}).scratch_dir == given
    assert given.is_dir()
    assert RunnerConfig.from_environ({"JUDGE_NO_SCRATCH": "1"}).scratch_dir is None
    assert RunnerConfig().scratch_dir is None  # a runner built in code: none unless it says so


def test_a_scratch_that_cannot_be_made_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ValueError, match="JUDGE_SCRATCH_DIR"):
        RunnerConfig.from_environ({"JUDGE_SCRATCH_DIR": str(tmp_path / "file" / "below")})


OUTPUT_NEAR_THE_LIMIT = """
import sys
held = bytearray(40 * 1024 * 1024)  # most of the 64 MiB limit
for i in range(0, len(held), 4096):
    held[i] = 1
chunk = b"x" * (1024 * 1024)
for _ in range(30):  # 30 MiB of output: on a tmpfs, every page of it would count against the limit too
    sys.stdout.buffer.write(chunk)
"""


@pytest.mark.parametrize("scratch", [False, True])
def test_a_programs_output_is_never_charged_to_its_memory_limit(tmp_path: Path, scratch: bool) -> None:
    """A program that holds 40 MiB of its 64 MiB and prints 30 MiB: accepted with the scratch on a tmpfs or not
    (its stdout stays on disk; on /dev/shm it would be a memory limit exceeded)."""
    from fakes import make_package

    from judge.judging.environment import Environment
    from judge.judging.submission import JudgeOptions, judge_submission, prepare
    from judge.judging.verdict import Verdict
    from judge.languages.table import load_languages, toolchain
    from judge.package.problem import load_problem
    from judge.runner import make_runner

    shm = tmpfs_scratch()
    if scratch and shm is None:
        pytest.skip("no tmpfs at /dev/shm")
    runner = make_runner(RunnerConfig(sandbox="auto"))
    if not runner.can_run or runner.info.cgroup is None:
        runner.close()
        pytest.skip("needs the sandbox and a memory cgroup")
    answer = b"x" * (30 * 1024 * 1024)
    config = {"name": "o", "limits": {"memory": 64, "output": 64}}
    package = make_package(tmp_path / "pkg", config, {"secret/01": (b"", answer)}, validator=False)
    source = tmp_path / "big.py"
    source.write_text(OUTPUT_NEAR_THE_LIMIT)
    try:
        env = Environment(runner, load_languages(), toolchain(), scratch=shm if scratch else None)
        work = tmp_path / "work"
        work.mkdir()
        prepared = prepare(load_problem(package), env, tmp_path / "prep")
        result = judge_submission(prepared, source, env, options=JudgeOptions(workdir=work))
    finally:
        runner.close()
    assert result.verdict is Verdict.AC, result.tests[0].message if result.tests else result.compile_message
