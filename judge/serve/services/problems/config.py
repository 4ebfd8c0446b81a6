"""The contest's configuration as visibility.py allows: problems (secret until the start), their
statements (the PDF, services/problems/statements.py), attachments and sample files (one by one, or all in a zip),
accounts (your own; staff: all), and the rest that everyone sees."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from judge.package.constants import STATEMENT_COMMANDS
from judge.package.testgroups import TestCase
from judge.serve.model.contest import AccountSpec, ContestProblem
from judge.serve.model.errors import Refused
from judge.serve.services.people import access
from judge.serve.services.problems.context import ServedProblems
from judge.serve.services.problems.statements import ProblemFiles
from judge.serve.visibility import Sight, sees_account, sees_problems


def problems(server: ServedProblems, sight: Sight) -> list[ContestProblem]:
    return list(server.contest.problems) if sees_problems(sight) else []


def problem(server: ServedProblems, sight: Sight, problem_id: str) -> ContestProblem:
    """One visible problem, or a 404."""
    for p in problems(server, sight):
        if p.id == problem_id:
            return p
    raise Refused(404, f"no problem {problem_id!r}")


def statement_bytes(p: ContestProblem) -> bytes:
    """The problem's statement file as the API serves it: a Markdown statement with the package's 2025-09
    constants substituted (as its pages show it); any other file as it is."""
    assert p.problem.statement is not None
    data = p.problem.statement.read_bytes()
    if p.problem.constants and p.problem.statement.suffix == ".md":
        text = data.decode("utf-8", errors="replace")
        data = p.problem.constants.substitute(text, p.problem.statement.name, ignore=STATEMENT_COMMANDS).encode()
    return data


def problem_files(server: ServedProblems, sight: Sight, problem_id: str) -> tuple[ContestProblem, ProblemFiles]:
    """A visible problem (else 404) and its PDF statement and attachments (services/problems/statements.py)."""
    p = problem(server, sight, problem_id)
    return p, server.statements.files(p.problem)


def attachment_file(server: ServedProblems, sight: Sight, problem_id: str, name: str) -> tuple[str, bytes]:
    """(file name, bytes) of one of the problem's attachments (404: no such file)."""
    _, files = problem_files(server, sight, problem_id)
    for f in files.attachments:
        if f.name == name:
            return f.name, f.read_bytes()
    raise Refused(404, f"no attachment {name!r}")


def samples_zip(server: ServedProblems, sight: Sight, problem_id: str) -> tuple[str, bytes]:
    """(download name, zip) of the problem's samples, ``1.in``, ``1.ans``, ``2.in``, ... as DOMjudge's team
    page gives them (and as the problem page lists them one by one); 404 without samples."""
    p = problem(server, sight, problem_id)
    tests = samples(p)
    if not tests:
        raise Refused(404, f"problem {p.id!r} has no samples")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, t in enumerate(tests, start=1):
            for ext, path in (("in", t.input_path), ("ans", t.answer_path)):
                info = zipfile.ZipInfo(f"{n}.{ext}", date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                zf.writestr(info, path.read_bytes() if path is not None else b"")
    return f"samples-{p.label}.zip", buf.getvalue()


def samples(p: ContestProblem) -> list[TestCase]:
    return list(p.problem.sample.all_tests()) if p.problem.sample is not None else []


def sample_file(server: ServedProblems, sight: Sight, problem_id: str, name: str) -> tuple[str, bytes]:
    """(download name, bytes) of a sample's file: ``<n>.in`` or ``<n>.ans``, numbered from 1."""
    p = problem(server, sight, problem_id)
    stem, _, ext = name.partition(".")
    n = int(stem) if stem.isdigit() and len(stem) < 9 else None
    tests = samples(p)
    if n is None or not 1 <= n <= len(tests) or ext not in ("in", "ans"):
        raise Refused(404, f"no sample file {name!r}")
    t = tests[n - 1]
    path: Path | None = t.input_path if ext == "in" else t.answer_path
    return f"{p.id}-{n}.{ext}", path.read_bytes() if path is not None else b""


def accounts(server: ServedProblems, sight: Sight) -> list[AccountSpec]:
    return [a for a in server.contest.accounts if sees_account(sight, a.id)]


def own_account(server: ServedProblems, sight: Sight) -> AccountSpec:
    access.authenticated(sight.viewer, "see your account")
    mine = next((a for a in server.contest.accounts if a.id == sight.viewer.account_id), None)
    if mine is None:
        raise Refused(404, "your account is no longer in accounts.yaml")
    return mine
