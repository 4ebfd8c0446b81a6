"""A PDF statement typeset for real with Kattis' problemtools (problem2pdf from PyPI, in the venv
tests/test_problemtools.py makes; it needs pandoc and LuaLaTeX, which .ci/setup installs on CI: elsewhere this
skips without them), through `judge serve`'s statements: the fixture contest's packages have Markdown statements
only; sum, as a 2023-07 package, typesets, and the API then serves its PDF; divisor, a legacy package (whose
statements problemtools reads as LaTeX only), does not, and its Markdown is served."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, HOUR, T0, Api, FakeClock, write_contest
from test_problemtools import statement_tools, verifyproblem  # noqa: F401 - the venv's fixture
from test_serve_statements import serve

from judge.runner.typeset import problem2pdf

pytestmark = pytest.mark.slow
C = "/api/contests/test"


def test_problem2pdf_typesets_the_statements_the_api_serves(tmp_path: Path, verifyproblem: Path) -> None:  # noqa: F811
    statement_tools()
    tool = verifyproblem.parent / "problem2pdf"
    root = write_contest(tmp_path / "c")
    pkg = root / "problems" / "sum"
    shutil.copytree(FIXTURES / "sum", pkg)
    (pkg / "problem_statement").rename(pkg / "statement")
    (pkg / "problem.yaml").write_text("problem_format_version: 2023-07\n" + (pkg / "problem.yaml").read_text())
    log: list[str] = []
    s = serve(root, FakeClock(T0 + HOUR), partial(problem2pdf, tool), log)
    try:
        assert s.statements.run_pending() == 2, log
        assert "statements: sum: PDF typeset with problem2pdf" in log, log
        assert any(line.startswith("statements: divisor: no PDF: problem2pdf exited with") for line in log), log
        api = Api.of(s)
        assert api.get(f"{C}/problems/sum", "team1").json()["statement"][0]["mime"] == "application/pdf"
        r = api.get(f"{C}/problems/sum/statement", "team1")
        assert r.headers["content-type"] == "application/pdf" and r.content.startswith(b"%PDF-")
        (tmp_path / "sum.pdf").write_bytes(r.content)  # to look at
        assert api.get(f"{C}/problems/divisor", "team1").json()["statement"][0]["mime"] == "text/markdown"
        assert [p.name.split("-")[0] for p in (root / "statements").glob("*.pdf")] == ["sum"]
    finally:
        s.close()
