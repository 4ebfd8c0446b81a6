"""`judge verify`: every example submission of a package gets what its author expects of it.

What is expected comes from its folder, DOMjudge's `@EXPECTED_RESULTS@` markers and `submissions.yaml`
(judge/authoring/expectations.py). Also runs the input validators on every test (as Kattis' verifyproblem does).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from judge.authoring.expectations import Expectation, SubmissionsYaml, expectation_for, load_submissions_yaml
from judge.judging.build import SkipLanguage, detect_language, trusted_program
from judge.judging.inputcheck import input_problem
from judge.judging.jobs import Unreadable, judge_job, make_job
from judge.judging.prepared import Packages
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment, Prepared
from judge.package.problem import Problem, program_name

IGNORED_FILES = ("README", "README.md", "README.txt", "submissions.yaml", "submissions.json")


@dataclass(frozen=True)
class VerifyRow:
    folder: str
    submission: str  # <folder>/<name>
    expected: str
    result: SubmissionResult | None
    ok: bool
    skipped: str | None = None  # why it was not judged (an unknown language or a missing toolchain)
    checked: bool = True  # False: nothing is expected of it (judged and shown, but not a check)
    failures: tuple[str, ...] = ()  # why it does not meet the expectation
    notes: tuple[str, ...] = ()  # about the expectation itself (ignored markers, why nothing is checked)

    def to_json(self) -> dict[str, object]:
        return {
            "folder": self.folder,
            "submission": self.submission,
            "expected": self.expected,
            "ok": self.ok,
            "checked": self.checked,
            "skipped": self.skipped,
            "failures": list(self.failures),
            "notes": list(self.notes),
            "result": None if self.result is None else self.result.to_json(),
        }


def discover(problem: Problem) -> list[tuple[str, Path]]:
    """Every ``submissions/<folder>/<file or folder>``, in name order."""
    base = problem.path / "submissions"
    if not base.is_dir():
        return []
    out: list[tuple[str, Path]] = []
    for folder in sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith(".") or entry.name in IGNORED_FILES:
                continue
            out.append((folder.name, entry))
    return out


def verify_one(
    prepared: Prepared,
    folder: str,
    source: Path,
    env: Environment,
    submissions_yaml: SubmissionsYaml | None = None,
    *,
    all_tests: bool = False,
) -> VerifyRow:
    name = f"{folder}/{source.name}"
    problem = prepared.problem
    yaml = submissions_yaml if submissions_yaml is not None else load_submissions_yaml(problem.path)
    exp: Expectation = expectation_for(folder, source, name, yaml)
    notes = exp.notes + ((exp.manual,) if exp.manual else ())
    try:
        lang_id = yaml.language(name)  # submissions.yaml may say (2025-09), else the file extensions do
        if lang_id is not None and lang_id not in env.languages:
            raise SkipLanguage(f"{name}: submissions.yaml names language {lang_id!r}, which the judge does not have")
        lang = env.languages[lang_id] if lang_id is not None else detect_language(source, env.languages)
        # symbolic links between the package's submissions (DOMjudge's mixed-verdicts/) are fine
        job = make_job(source, problem, lang.id, within=problem.path / "submissions", all_tests=all_tests)
        with Packages.of(prepared, env) as packages:
            result = judge_job(job, packages, env)
    except SkipLanguage as exc:
        return VerifyRow(folder, name, exp.describe(), None, True, str(exc), exp.checked, (), notes)
    except Unreadable as exc:
        return VerifyRow(folder, name, exp.describe(), None, True, f"cannot read it: {exc}", exp.checked, (), notes)
    if not exp.checked:
        return VerifyRow(folder, name, exp.describe(), result, True, None, False, (), notes)
    failures = tuple(exp.failures(result, [t.name for t in problem.tests()]))
    return VerifyRow(folder, name, exp.describe(), result, not failures, None, True, failures, notes)


@dataclass(frozen=True)
class InputCheck:
    test: str
    validator: str
    ok: bool
    message: str


def check_inputs(problem: Problem, env: Environment, workdir: Path) -> list[InputCheck]:
    out: list[InputCheck] = []
    for k, path in enumerate(problem.input_validators):
        built = trusted_program(path, env.languages, env.tools, env.runner, workdir / f"iv{k}")
        if built.program is None:
            out.append(InputCheck("*", path.name, False, built.message))
            continue
        for test in problem.tests():
            args = problem.group(test.group).input_args_for(program_name(path), test)
            reason = input_problem(built.program, test.input_path, args, env.runner, workdir)
            out.append(InputCheck(test.name, path.name, reason is None, reason or ""))
    return out


def verify(
    prepared: Prepared,
    env: Environment,
    *,
    jobs: int = 1,
    on_row: Callable[[VerifyRow], None] | None = None,
    all_tests: bool = False,
) -> tuple[list[VerifyRow], list[InputCheck]]:
    """Raises PackageError for a malformed submissions.yaml."""
    yaml = load_submissions_yaml(prepared.problem.path)
    work = Path(tempfile.mkdtemp(prefix="judge-verify-"))
    try:
        inputs = check_inputs(prepared.problem, env, work)
        todo = discover(prepared.problem)

        def one(item: tuple[str, Path]) -> VerifyRow:
            row = verify_one(prepared, item[0], item[1], env, yaml, all_tests=all_tests)
            if on_row is not None:
                on_row(row)
            return row

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            rows = list(pool.map(one, todo))
        return rows, inputs
    finally:
        shutil.rmtree(work, ignore_errors=True)
