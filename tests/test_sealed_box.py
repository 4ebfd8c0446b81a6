"""The one sealed box of a submission's runs (judging/problemtypes/program.py, ``run_box``), in the real sandbox:
a program that may not write its box cannot leave anything in it for its next run, whatever it tries."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import make_package

from judge.judging.environment import Environment
from judge.judging.submission import JudgeOptions, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import RunnerConfig, make_runner

TRIES = """
import os, sys
seen = sorted(os.listdir("."))
tried = []
for what, attempt in [
    ("new file", lambda: open("left.txt", "w").write("state")),
    ("own source", lambda: open(sys.argv[0], "a").write("# changed")),
    ("chmod", lambda: os.chmod(".", 0o777)),
    ("remove", lambda: os.remove(sys.argv[0])),
    ("rename", lambda: os.rename(sys.argv[0], "moved.py")),
    ("folder", lambda: os.mkdir("sub")),
]:
    try:
        attempt()
        tried.append(what)
    except OSError:
        pass
print(" ".join(seen), "|", " ".join(tried) or "nothing")
"""


@pytest.mark.parametrize("kind", ["sandbox", "rlimits"])
def test_no_run_can_change_the_sealed_box_the_runs_share(tmp_path: Path, kind: str) -> None:
    runner = make_runner(RunnerConfig(sandbox="bwrap" if kind == "sandbox" else "rlimits"))
    if not runner.can_run:
        runner.close()
        pytest.skip(f"no {kind} runner here: {runner.info.warnings}")
    answer = b"tries.py | nothing\n"
    tests = {f"secret/{i:02d}": (b"", answer) for i in (1, 2, 3)}
    package = make_package(tmp_path / "pkg", {"name": "s"}, tests, validator=False)
    source = tmp_path / "tries.py"
    source.write_text(TRIES)
    try:
        env = Environment(runner, load_languages(), toolchain())
        work = tmp_path / "work"
        work.mkdir()
        prepared = prepare(load_problem(package), env, tmp_path / "prep")
        result = judge_submission(prepared, source, env, options=JudgeOptions(workdir=work, all_tests=True))
    finally:
        runner.close()
    if "is not reachable for the sandbox uid" in result.compile_message:
        pytest.skip(f"the rlimits backend cannot run Python here: {result.compile_message}")
    assert [t.verdict for t in result.tests] == [Verdict.AC] * 3, [t.message for t in result.tests]
    assert (work / "box" / "tries.py").read_text() == TRIES  # the box all three ran in, as it was made
