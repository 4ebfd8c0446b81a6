"""`judge verify`: every submission in a package's submissions/<folder>/ gets the verdict its folder names.

Also runs the input validators on every test (as Kattis' verifyproblem does).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from judge.build import SkipLanguage, detect_language, trusted_program
from judge.inputcheck import input_problem
from judge.jobs import Unreadable, judge_job, make_job
from judge.judging import Environment, Prepared
from judge.packages import Packages
from judge.problem import Problem, program_name
from judge.results import SubmissionResult
from judge.verdict import FOLDER_VERDICTS, Verdict


@dataclass(frozen=True)
class Expectation:
    folder: str

    def describe(self) -> str:
        if self.folder == "partially_accepted":
            return "AC<max|WA>0"
        if self.folder == "rejected":
            return "not AC"
        if self.folder == "run_time_error":
            return "RTE|MLE"
        return FOLDER_VERDICTS[self.folder].value

    def met_by(self, r: SubmissionResult) -> bool:
        if self.folder == "accepted":
            return r.verdict is Verdict.AC and r.score >= r.max_score - 1e-6
        if self.folder == "partially_accepted":
            return (r.verdict is Verdict.AC and r.score < r.max_score - 1e-6) or (
                r.verdict is Verdict.WA and r.score > 1e-9
            )
        if self.folder == "rejected":
            return r.verdict not in (Verdict.AC, Verdict.JE)
        if self.folder == "run_time_error" and r.verdict is Verdict.MLE:
            return True  # Kattis has no MLE: its packages file memory hogs under run_time_error/
        return r.verdict is FOLDER_VERDICTS[self.folder]


KNOWN_FOLDERS = (*FOLDER_VERDICTS, "partially_accepted", "rejected")


@dataclass(frozen=True)
class VerifyRow:
    folder: str
    submission: str
    expected: str
    result: SubmissionResult | None
    ok: bool
    skipped: str | None = None  # reason

    def to_json(self) -> dict[str, object]:
        return {
            "folder": self.folder,
            "submission": self.submission,
            "expected": self.expected,
            "ok": self.ok,
            "skipped": self.skipped,
            "result": None if self.result is None else self.result.to_json(),
        }


def discover(problem: Problem) -> list[tuple[str, Path]]:
    base = problem.path / "submissions"
    if not base.is_dir():
        return []
    out: list[tuple[str, Path]] = []
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith(".") or entry.name in ("README.md", "submissions.yaml"):
                continue
            out.append((folder.name, entry))
    return out


def verify_one(prepared: Prepared, folder: str, source: Path, env: Environment) -> VerifyRow:
    name = f"{folder}/{source.name}"
    if folder not in KNOWN_FOLDERS:
        return VerifyRow(folder, name, "?", None, True, f"folder {folder!r} names no verdict")
    exp = Expectation(folder)
    try:
        lang = detect_language(source, env.languages)
        job = make_job(source, prepared.problem, lang.id, within=source.parent)
        with Packages.of(prepared, env) as packages:
            result = judge_job(job, packages, env)
    except SkipLanguage as exc:
        return VerifyRow(folder, name, exp.describe(), None, True, str(exc))
    except Unreadable as exc:
        return VerifyRow(folder, name, exp.describe(), None, True, f"cannot read it: {exc}")
    return VerifyRow(folder, name, exp.describe(), result, exp.met_by(result))


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
) -> tuple[list[VerifyRow], list[InputCheck]]:
    work = Path(tempfile.mkdtemp(prefix="judge-verify-"))
    try:
        inputs = check_inputs(prepared.problem, env, work)
        todo = discover(prepared.problem)

        def one(item: tuple[str, Path]) -> VerifyRow:
            row = verify_one(prepared, item[0], item[1], env)
            if on_row is not None:
                on_row(row)
            return row

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            rows = list(pool.map(one, todo))
        return rows, inputs
    finally:
        shutil.rmtree(work, ignore_errors=True)
