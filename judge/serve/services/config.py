"""The contest's configuration as visibility.py allows: problems (secret until the start), their
statements and sample files, accounts (your own; staff: all), and the rest that everyone sees."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from judge.package.constants import STATEMENT_COMMANDS
from judge.package.testgroups import TestCase
from judge.serve.model.contest import AccountSpec, ContestProblem
from judge.serve.model.errors import Refused
from judge.serve.services import access
from judge.serve.visibility import Sight, sees_account, sees_problems

if TYPE_CHECKING:
    from judge.serve.services.server import Server


def problems(server: Server, sight: Sight) -> list[ContestProblem]:
    return list(server.contest.problems) if sees_problems(sight) else []


def problem(server: Server, sight: Sight, problem_id: str) -> ContestProblem:
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


def samples(p: ContestProblem) -> list[TestCase]:
    return list(p.problem.sample.all_tests()) if p.problem.sample is not None else []


def sample_file(server: Server, sight: Sight, problem_id: str, name: str) -> tuple[str, bytes]:
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


def accounts(server: Server, sight: Sight) -> list[AccountSpec]:
    return [a for a in server.contest.accounts if sees_account(sight, a.id)]


def own_account(server: Server, sight: Sight) -> AccountSpec:
    access.authenticated(sight.viewer, "see your account")
    mine = next((a for a in server.contest.accounts if a.id == sight.viewer.account_id), None)
    if mine is None:
        raise Refused(404, "your account is no longer in accounts.yaml")
    return mine
