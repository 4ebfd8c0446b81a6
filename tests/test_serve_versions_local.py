"""This machine's side of package versions (issue 33): ``versions.local_tools`` checks a new test's input with
the package's real input validator (in the sandbox) and answers it with fuzz.py's ``answer``; and
``judging.prepared.Packages`` keeps every version it is given, each named by its hash. On the fixture
tests/fixtures_fuzz/add (pairs of numbers up to 10^6; the validator exits 43 otherwise)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.judging.prepared import PackageMismatch, Packages
from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import Runner
from judge.serve.services.judging.versions import NewTestRefused, local_tools

ADD = Path(__file__).parent / "fixtures_fuzz" / "add"


@pytest.fixture(scope="module")
def env(sandbox_runner: Runner) -> Iterator[Environment]:
    yield Environment(sandbox_runner, load_languages(), toolchain())


def test_a_new_test_is_checked_by_the_input_validator_and_answered_by_the_reference(env: Environment) -> None:
    problem = load_problem(ADD)
    with Packages({problem.id: problem}, env) as packages:
        tools = local_tools(packages, env)
        assert tools.make_answer(problem, b"1000000 7\n") == b"1000007\n"
        with pytest.raises(NewTestRefused, match="input validator refuses the input: validate.py"):
            tools.make_answer(problem, b"1000001 7\n")  # out of range: the validator says no
        with pytest.raises(NewTestRefused, match="no fuzz.py"):
            tools.make_answer(load_problem(Path(__file__).parent / "fixtures" / "sum"), b"1 2\n")


def test_packages_keep_every_version_by_its_hash(env: Environment, tmp_path: Path) -> None:
    first = load_problem(ADD)
    copy = tmp_path / "v2" / "add"
    shutil.copytree(ADD, copy)
    (copy / "data" / "secret" / "fuzz-1.in").write_bytes(b"5 5\n")
    (copy / "data" / "secret" / "fuzz-1.ans").write_bytes(b"10\n")
    second = load_problem(copy)
    assert second.content_hash != first.content_hash
    with Packages({first.id: first}, env) as packages:
        with pytest.raises(PackageMismatch):
            packages.prepared("add", second.content_hash)  # not given yet
        local_tools(packages, env).register(second)
        assert packages.problem("add") is second  # the newest given
        assert packages.prepared("add", second.content_hash).problem is second
        assert packages.prepared("add", first.content_hash).problem is first  # a job made before still runs
        with pytest.raises(PackageMismatch):
            packages.prepared("add", "0" * 16)
