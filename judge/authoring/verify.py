"""`judge verify`: every example submission of a package gets what its author expects of it.

What is expected comes from its folder, DOMjudge's `@EXPECTED_RESULTS@` markers and `submissions.yaml`
(judge/authoring/expectations.py). Also runs the input validators on every test (as Kattis' verifyproblem does).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from judge.authoring import timelimit
from judge.authoring.datachecks import Built, InputCheck, check_validation_data
from judge.authoring.expectations import Expectation, SubmissionsYaml, expectation_for, load_submissions_yaml
from judge.judging.build import RefusedByProblem, SkipLanguage, detect_language, package_program
from judge.judging.inputcheck import input_problem
from judge.judging.jobs import Unreadable, judge_job, make_job
from judge.judging.prepared import Packages
from judge.judging.problemtypes.program import program_args
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment, Prepared
from judge.package.formats import FormatVersion
from judge.package.problem import Problem, TestCase, program_name
from judge.runner.workdirs import HeldDir

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
            if not problem.allows(lang_id):
                raise RefusedByProblem(f"{name}: {lang_id} is not a language of this problem (problem.yaml languages)")
            raise SkipLanguage(f"{name}: submissions.yaml names language {lang_id!r}, which the judge does not have")
        lang = env.languages[lang_id] if lang_id is not None else detect_language(source, env.languages)
        # symbolic links between the package's submissions (DOMjudge's mixed-verdicts/) are fine
        job = make_job(source, problem, lang.id, within=problem.path / "submissions", all_tests=all_tests)
        job = replace(job, entry_point=yaml.entrypoint(name))
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


def input_args(problem: Problem, validator: Path, test: TestCase) -> tuple[str, ...]:
    """An input validator's arguments on ``test``: its ``input_validator_args``, then (2025-09, as the spec
    says) the test's ``args``."""
    args = problem.group(test.group).input_args_for(program_name(validator), test)
    if problem.format_version is FormatVersion.V2025_09:
        args += program_args(problem, test)
    return args


def check_inputs(problem: Problem, env: Environment, workdir: Path) -> list[InputCheck]:
    """Every input validator on every test."""
    return input_checks(problem, env, workdir)[0]


def input_checks(problem: Problem, env: Environment, workdir: Path) -> tuple[list[InputCheck], list[Built]]:
    """Every input validator on every test; and the validators, built."""
    out: list[InputCheck] = []
    built_all: list[Built] = []
    for k, path in enumerate(problem.input_validators):
        built = package_program(problem, path, env, workdir / f"iv{k}")
        if built.program is None:
            out.append(InputCheck("*", path.name, False, built.message))
            continue
        built_all.append(Built(path, built.program))
        for test in problem.tests():
            args = input_args(problem, path, test)
            reason = input_problem(built.program, test.input_path, args, env.runner, workdir, test.files)
            out.append(InputCheck(test.name, path.name, reason is None, reason or ""))
    return out, built_all


Note = Callable[[str], None]


def _judge_all(
    prepared: Prepared,
    env: Environment,
    todo: list[tuple[str, Path]],
    yaml: SubmissionsYaml,
    options: tuple[int, bool, Callable[[VerifyRow], None] | None],
) -> list[VerifyRow]:
    """Every submission of ``todo``, ``jobs`` at a time (options: jobs, all_tests, on_row)."""
    jobs, all_tests, on_row = options

    def one(item: tuple[str, Path]) -> VerifyRow:
        row = verify_one(prepared, item[0], item[1], env, yaml, all_tests=all_tests)
        if on_row is not None:
            on_row(row)
        return row

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, todo))


def _lower_bound(rows: list[VerifyRow], todo: list[tuple[str, Path]], yaml: SubmissionsYaml) -> timelimit.Bound:
    """The slowest lower-bound submission among judged ``rows`` (``use_for_time_limit: false`` left out)."""
    judged = [
        (row.submission, expectation_for(folder, source, row.submission, yaml), row.result)
        for row, (folder, source) in zip(rows, todo, strict=True)
        if yaml.for_time_limit(row.submission)
    ]
    return timelimit.lower_bound(judged)


def _time_limit(
    prepared: Prepared, env: Environment, todo: list[tuple[str, Path]], yaml: SubmissionsYaml, jobs: int
) -> tuple[Prepared, str]:
    """The problem with the spec's time limit (2025-09, none given): the lower-bound submissions judged
    first with a generous one (timelimit.py); and a line about it."""
    limits = prepared.problem.limits
    lower = [
        (folder, source)
        for folder, source in todo
        if timelimit.lower_scopes(expectation_for(folder, source, f"{folder}/{source.name}", yaml))
        and yaml.for_time_limit(f"{folder}/{source.name}")
    ]
    trial = replace(prepared.problem, limits=replace(limits, time_s=timelimit.generous(limits)))
    rows = _judge_all(replace(prepared, problem=trial), env, lower, yaml, (jobs, False, None))
    bound = _lower_bound(rows, lower, yaml)
    time_limit_s = timelimit.spec_time_limit(bound.slowest_s, limits)
    found = replace(prepared.problem, limits=replace(limits, time_s=time_limit_s))
    return replace(prepared, problem=found), timelimit.inferred_note(bound, limits, time_limit_s)


def verify(
    prepared: Prepared,
    env: Environment,
    *,
    jobs: int = 1,
    on_row: Callable[[VerifyRow], None] | None = None,
    all_tests: bool = False,
    on_note: Note | None = None,
) -> tuple[list[VerifyRow], list[InputCheck]]:
    """Raises PackageError for a malformed submissions.yaml. ``on_note``: told about the time limit."""
    yaml = load_submissions_yaml(prepared.problem.path)
    with HeldDir("judge-verify-") as work:  # swept if this judge dies (runner/workdirs.py)
        inputs, validators = input_checks(prepared.problem, env, work)
        inputs += check_validation_data(prepared, validators, env, work / "data")
        todo = discover(prepared.problem)
        note = ""
        limits = prepared.problem.limits
        if not limits.time_limit_given and prepared.problem.format_version is FormatVersion.V2025_09:
            prepared, note = _time_limit(prepared, env, todo, yaml, jobs)
        rows = _judge_all(prepared, env, todo, yaml, (jobs, all_tests, on_row))
        if not note:
            note = timelimit.check_given(_lower_bound(rows, todo, yaml), prepared.problem.limits)
        if on_note is not None:
            on_note(note)
        return rows, inputs
