"""The judge version covers the judge's files that can change a verdict and nothing else (docs/grading.md,
"What the judge version covers"): on a copy of the judge package, editing the web server, the command line or
a template leaves it unchanged, editing the runner or the judging rules changes it; and `judge grade` re-judges
accordingly. A scripted FakeRunner: no root, no sandbox."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, fake_environment
from fakes import FakeRunner

from judge.grade.discovery import discover, load_problems
from judge.grade.options import GradeOptions
from judge.grade.schedule import Grading, Summary, grade
from judge.grade.storage import Store
from judge.judging.identity import JUDGE_ROOT, NOT_VERDICT_FILES, judge_version, verdict_files
from judge.judging.jobs import JudgeJob
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.package.problem import Problem

FIXTURES = Path(__file__).parent / "fixtures"

NO_VERDICT = [
    "serve/http/app.py",
    "serve/http/pages/web.py",
    "commands/cli.py",
    "commands/grade.py",
    "commands/defaults.py",
    "serve/http/templates/layout.html",
    "scoreboard/templates/base.html",
    "scoreboard/render.py",
    "grade/schedule.py",
    "cluster/service.py",
    "authoring/verify.py",
    "fuzz/engine.py",
    "judging/judges.py",
    "judging/identity.py",
    "languages/languages.toml",  # a language's definition is in its toolchain hash instead
]
VERDICT = [
    "runner/api.py",
    "runner/helper.c",
    "runner/warm.py",  # issue 50: warm validators; a judge with them judges its stored results again, once
    "runner/warmserver.py",  # (run as a script by the warm server, never imported by the judge)
    "judging/problemtypes/interactive.py",
    "judging/scoring.py",
    "judging/checker.py",
    "package/problem.py",
    "languages/table.py",
]


def copy_judge(dest: Path) -> Path:
    """A copy of the judge package (its code, templates and data files)."""
    return Path(shutil.copytree(JUDGE_ROOT, dest / "judge", ignore=shutil.ignore_patterns("__pycache__")))


def edit(root: Path, name: str) -> None:
    """Append a comment to ``root/name``, in the file's own comment syntax."""
    path = root / name
    assert path.is_file(), name
    comment = {".html": "\n{# edited #}\n", ".c": "\n/* edited */\n"}.get(path.suffix, "\n# edited\n")
    path.write_text(path.read_text() + comment)


@pytest.fixture
def env() -> Environment:
    return fake_environment(FakeRunner())


def test_editing_what_cannot_change_a_verdict_keeps_the_version(tmp_path: Path, env: Environment) -> None:
    root = copy_judge(tmp_path)
    before = judge_version(env, root)
    assert before == judge_version(env)  # the copy is the package itself
    for name in NO_VERDICT:
        edit(root, name)
        assert judge_version(env, root) == before, name


@pytest.mark.parametrize("name", VERDICT)
def test_editing_what_can_change_a_verdict_changes_the_version(tmp_path: Path, env: Environment, name: str) -> None:
    root = copy_judge(tmp_path)
    before = judge_version(env, root)
    edit(root, name)
    assert judge_version(env, root) != before


def test_a_new_runner_module_is_in_the_version(tmp_path: Path, env: Environment) -> None:
    root = copy_judge(tmp_path)
    before = judge_version(env, root)
    (root / "runner" / "newpart.py").write_text("LIMIT = 1\n")
    assert judge_version(env, root) != before


def test_every_exception_names_a_file_the_list_matches() -> None:
    """An exception that matches nothing (a file renamed or moved) would silently stop excluding it."""
    covered = {p.relative_to(JUDGE_ROOT).as_posix() for p in verdict_files()}
    for name in NOT_VERDICT_FILES:
        assert (JUDGE_ROOT / name).is_file(), name
        assert name not in covered


def test_every_module_judging_imports_is_in_the_version() -> None:
    """What judging a job (and fuzzing's trials, which reuse the judge version) imports, in a fresh
    interpreter, is in the list, but for the keys themselves and the package's __init__ (the version number,
    part of the judge version's text)."""
    code = (
        "import json, sys, judge.judging.jobs, judge.judging.inputcheck, judge.runner.api;"  # api: make_runner's
        "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()"
        " if n.split('.')[0] == 'judge' and getattr(m, '__file__', None))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    imported = {Path(f).resolve().relative_to(JUDGE_ROOT.resolve()).as_posix() for f in json.loads(out)}
    covered = {p.relative_to(JUDGE_ROOT).as_posix() for p in verdict_files()}
    keys = {"judging/identity.py", "languages/fingerprint.py", "package/deps.py", "__init__.py"}
    assert {"judging/problemtypes/multipass.py", "runner/api.py", "package/problem.py"} <= imported
    assert imported - covered <= keys


# -- what `judge grade` re-judges ------------------------------------------------------------------


class CopiedJudges:
    """`grade`'s judges (judge.judging.judges.Judges) keyed with the judge version of a copy of the judge
    package; they count what they are asked to judge and accept it."""

    def __init__(self, root: Path, env: Environment) -> None:
        self.judge_version = judge_version(env, root)
        self.warnings: tuple[str, ...] = ()
        self.judged: list[str] = []

    def fingerprint(self, language: str) -> str:
        return "same toolchain"

    def slots(self) -> int:
        return 1

    def judge(self, job: JudgeJob, toolchain: str) -> SubmissionResult:
        self.judged.append(job.label)
        return SubmissionResult(job.problem, job.label, job.language, Verdict.AC, 100.0, 100.0, 0.0, 0)

    def close(self) -> None:
        pass


def grade_with(root: Path, tmp_path: Path, problems: dict[str, Problem], env: Environment) -> Summary:
    judges = CopiedJudges(root, env)
    with Store(tmp_path / "db.sqlite") as store:
        grading = Grading(discover(tmp_path / "contest", problems, env.languages), problems, env)
        return grade(grading, store, GradeOptions(), judges=judges)


def test_grade_re_judges_after_a_runner_edit_only(tmp_path: Path, env: Environment) -> None:
    (tmp_path / "contest" / "ann").mkdir(parents=True)
    shutil.copy(FIXTURES / "sum" / "submissions" / "accepted" / "sum.py", tmp_path / "contest" / "ann" / "sum.py")
    problems_dir = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", problems_dir / "sum", ignore=shutil.ignore_patterns("submissions"))
    problems, issues = load_problems(problems_dir)
    assert not issues
    root = copy_judge(tmp_path)
    assert grade_with(root, tmp_path, problems, env).judged == 1
    edit(root, "serve/http/app.py")
    edit(root, "commands/cli.py")
    edit(root, "serve/http/templates/layout.html")
    again = grade_with(root, tmp_path, problems, env)
    assert again.judged == 0 and again.reused == 1
    edit(root, "runner/api.py")
    assert grade_with(root, tmp_path, problems, env).judged == 1
