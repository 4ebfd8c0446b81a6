"""Running a package's input validators (Kattis: `validator [args] < X.in`, exit 42 = valid).

Shared by `judge verify` (every test) and `judge fuzz` (every generated input).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from judge.judging.build import Program
from judge.judging.feedback import missing_module_hint
from judge.runner import Runner
from judge.runner.spec import Limits, RunSpec

INPUT_VALIDATOR_LIMITS = Limits(time_s=60, wall_time_s=60, memory_kib=4 * 1024 * 1024, processes=64)
VALID = 42
MESSAGE_CHARS = 300


def input_problem(
    program: Program, stdin: Path, args: tuple[str, ...], runner: Runner, workdir: Path, files: Path | None = None
) -> str | None:
    """None when the validator accepts ``stdin`` (exit 42), else what it said (or its exit status).
    ``files``: the test's 2025-09 ``.files`` folder, copied into the validator's working directory."""
    log = workdir / "check.log"
    box = workdir
    if files is not None:
        box = workdir / "files"
        shutil.rmtree(box, ignore_errors=True)
        shutil.copytree(files, box)
    result = runner.run(
        RunSpec(
            argv=(*program.argv, *args),
            box=box,
            limits=INPUT_VALIDATOR_LIMITS,
            stdin=stdin,
            stdout=log,
            stderr=log,
            env=dict(program.env),
            trusted=True,
            warm=program.warm,
        )
    )
    if result.exit_code == VALID:
        return None
    said = log.read_text(errors="replace").strip() if log.is_file() else ""
    if len(said) > MESSAGE_CHARS:  # the end says most (a traceback's last line is the exception)
        said = "..." + said[-MESSAGE_CHARS:]
    return (said + missing_module_hint(said)) if said else f"exit status {result.exit_code}"


@dataclass(frozen=True)
class InputValidator:
    """One of the package's input validators, built once."""

    name: str
    program: Program
    args: tuple[str, ...]  # data/secret's input_validator_args

    def check(self, test_input: bytes, runner: Runner, workdir: Path) -> str | None:
        """None when the input is valid, else why not (prefixed with the validator's name)."""
        stdin = workdir / "check.in"
        stdin.write_bytes(test_input)
        reason = input_problem(self.program, stdin, self.args, runner, workdir)
        return None if reason is None else f"{self.name}: {reason}"
