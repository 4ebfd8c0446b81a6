"""The sandbox self-test: a trivial program and a trivial output validator, through every start path.

``judge doctor`` prints it; ``judge run``, ``verify``, ``grade`` and ``fuzz`` run it first and stop (exit 3)
when it fails, instead of charging a board full of JE to the sandbox. A container whose PID namespace or
/proc the runner does not cope with is caught here, not on the first secret test.

Each check is what judging does, in miniature: the program writes an answer in the sandbox (every way
the runner may start untrusted runs: box server, bwrap per run, or the rlimits launcher), then a Python
output validator (a trusted run, as every package's validator is) reads it, writes a judge message
and accepts; a wrong answer must be rejected.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from judge.judging.build import Program
from judge.judging.feedback import ValidatorCall, decide, validator_spec
from judge.judging.verdict import Verdict
from judge.languages.table import Toolchain
from judge.runner import Runner
from judge.runner.spec import Limits, RunSpec

PROGRAM_LIMITS = Limits(time_s=5, wall_time_s=10)
ANSWER = "42\n"
# Inside namespaces the launcher is pid 1 and the program pid 2; on the rlimits path pids are the host's.
PROGRAM_ISOLATED = ("/bin/sh", "-c", "[ $$ = 2 ] && echo 42 && exit 7")
PROGRAM_PLAIN = ("/bin/sh", "-c", "echo 42 && exit 7")
VALIDATOR = """\
import sys
from pathlib import Path
team = sys.stdin.read()
answer = Path(sys.argv[2]).read_text()
Path(sys.argv[3], "judgemessage.txt").write_text("self-test validator ran")
sys.exit(42 if team == answer else 43)
"""


@dataclass(frozen=True)
class Check:
    name: str
    error: str | None  # None: it worked

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class SelfTest:
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def failure(self) -> str:
        """One line naming what failed (empty when all is well)."""
        if not self.checks:
            return "no way to run programs here"
        return "; ".join(f"{c.name}: {c.error}" for c in self.checks if not c.ok)


def self_test(runner: Runner, tools: Toolchain) -> SelfTest:
    paths = runner.start_paths()
    if not paths:
        reason = "; ".join(runner.info.warnings) or "no way to run programs here"
        return SelfTest((Check("sandbox", reason),))
    checks: list[Check] = []
    with tempfile.TemporaryDirectory(prefix="judge-selftest-") as tmp:
        root = Path(tmp)
        root.chmod(0o711)
        validator = _validator(root, tools)
        answer: Path | None = None  # a program's output, for the validator to read
        for n, (name, path_runner) in enumerate(paths):
            out = root / f"program-{n}.out"
            error = _program(path_runner, root / f"box-{n}", out)
            checks.append(Check(f"program ({name})", error))
            if error is None and answer is None:
                answer = out
        if answer is None:  # test the validator all the same, on an answer written here
            answer = root / "fallback.out"
            answer.write_text(ANSWER)
        checks.append(Check("output validator", _validate(runner, validator, root, answer)))
    return SelfTest(tuple(checks))


def _program(runner: Runner, box: Path, out: Path) -> str | None:
    box.mkdir()
    argv = PROGRAM_ISOLATED if runner.info.isolated else PROGRAM_PLAIN
    res = runner.run(RunSpec(argv=argv, box=box, limits=PROGRAM_LIMITS, stdout=out))
    if res.sandbox_error is not None:
        return res.sandbox_error
    if res.exit_code != 7 or out.read_text() != ANSWER:
        return f"a trivial program did not run as expected (exit status {res.exit_code}, signal {res.signal})"
    return None


def _validator(root: Path, tools: Toolchain) -> Program:
    folder = root / "validator"
    folder.mkdir()
    (folder / "validate.py").write_text(VALIDATOR)
    # The judge's own interpreter runs it, whatever the language table says: no language is chosen here.
    argv = (tools.python, str(folder / "validate.py"))
    return Program(language="", files=folder, argv=argv, trusted=True, processes=64)


def _validate(runner: Runner, validator: Program, root: Path, team_output: Path) -> str | None:
    (root / "in").write_text("")
    (root / "ans").write_text(ANSWER)
    wrong = root / "wrong.out"
    wrong.write_text("41\n")
    for k, (output, expected) in enumerate(((team_output, Verdict.AC), (wrong, Verdict.WA))):
        run_dir = root / f"validate-{k}"
        feedback_dir = run_dir / "feedback"
        feedback_dir.mkdir(parents=True)
        log = run_dir / "validator.log"
        call = ValidatorCall(
            input_path=root / "in",
            answer_path=root / "ans",
            feedback_dir=feedback_dir,
            args=(),
            team_output=output,
            log=log,
            wall_time_s=30.0,
        )
        spec: RunSpec = validator_spec(validator, call)
        judgement = decide(runner.run(spec), feedback_dir, log)
        if judgement.verdict is not expected:
            return f"a trivial validator gave {judgement.verdict.value}, not {expected.value}: {judgement.message}"
        if expected is Verdict.AC and judgement.feedback.judge_message != "self-test validator ran":
            return "a trivial validator's feedback directory was not read back"
    return None
