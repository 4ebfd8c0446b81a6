"""Files holding contestants' code are owner-only (issue 43): the folder a submission is judged in
(``/tmp/judge-*``: its source, its build, the tests' data and outputs), while it is judged, with the real
sandbox (bubblewrap, the box server and bwrap per run), which must still read and run what it needs. Before,
the folder was 0711 and a submission's source in ``build/`` 0644: any local user could read it by path
(``/tmp`` lists the folder's name, ``build/`` and the file name are predictable)."""

from __future__ import annotations

import dataclasses
import os
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.judging.results import CaseResult
from judge.judging.submission import Environment, JudgeOptions, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import RunnerConfig, make_runner

SUM = Path(__file__).parent / "fixtures" / "sum"
NOBODY = 65534


@pytest.fixture(scope="module", params=[True, False], ids=["box-server", "bwrap-per-run"])
def env(request: pytest.FixtureRequest) -> Iterator[Environment]:
    runner = make_runner(RunnerConfig(sandbox="bwrap", box_server=request.param))
    if not runner.can_run or runner.info.backend != "bwrap":
        runner.close()
        pytest.skip(f"no bubblewrap sandbox here: {'; '.join(runner.info.warnings)}")
    yield Environment(runner, load_languages(), toolchain())
    runner.close()


def others_read(path: Path) -> bool:
    """Whether another local user (nobody) can read ``path``: tried as that user."""
    done = subprocess.run(["cat", str(path)], user=NOBODY, group=NOBODY, capture_output=True, check=False)
    return done.returncode == 0


@pytest.mark.parametrize("source", ["sum.py", "sum.c"])
def test_a_submission_is_judged_in_an_owner_only_folder(
    env: Environment, tmp_path: Path, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() != 0:
        pytest.skip("the sandbox runs as root")
    seen: list[tuple[int, list[tuple[str, bool]]]] = []
    made: list[Path] = []
    mkdtemp = tempfile.mkdtemp

    def recorded(*args: Any, **kw: Any) -> str:  # the judge's own folder (other judges may share /tmp)
        path = mkdtemp(*args, **kw)
        made.append(Path(path))
        return path

    monkeypatch.setattr(tempfile, "mkdtemp", recorded)

    scratch = tmp_path / "scratch"  # the tests' folders (the judge's scratch: a tmpfs by default)
    scratch.mkdir(mode=0o755)
    env = dataclasses.replace(env, scratch=scratch)
    scratch_modes: list[int] = []

    def look(result: CaseResult) -> None:  # while the submission is judged: its folder is there
        for work in (p for p in made if p.name.startswith("judge-") and (p / "build").is_dir()):
            staged = [f for f in (work / "build").iterdir() if f.is_file() and f.suffix in (".py", ".c")]
            seen.append((stat.S_IMODE(work.stat().st_mode), [(f.name, others_read(f)) for f in staged]))
        scratch_modes.extend(stat.S_IMODE(p.stat().st_mode) for p in scratch.iterdir())

    prepared = prepare(load_problem(SUM), env, tmp_path / "prep")
    result = judge_submission(
        prepared, SUM / "submissions" / "accepted" / source, env, options=JudgeOptions(on_test=look)
    )
    assert result.verdict is Verdict.AC, [(t.name, t.verdict, t.message) for t in result.tests]
    assert seen, "the judging folder was not found while judging"
    for mode, staged in seen:
        assert mode == 0o700, oct(mode)
        assert staged and not any(readable for _, readable in staged), staged
    assert scratch_modes and set(scratch_modes) == {0o700}, scratch_modes
