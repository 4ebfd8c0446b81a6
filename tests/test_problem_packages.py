"""Acceptance of the shipped problems: `judge verify problems/<id>` passes, through the real entry point.

Every submission in a package's submissions/<folder>/ gets the verdict its folder names, and the input
validators accept every test. Nothing may be skipped: CI installs every toolchain.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from reports import comparable

ROOT = Path(__file__).parent.parent
PROBLEMS = sorted(p.name for p in (ROOT / "problems").iterdir() if (p / "problem.yaml").is_file())


def test_the_five_problems_ship() -> None:
    assert {"memory", "rummy", "go", "klondike", "coins"} <= set(PROBLEMS)


def verify(problem: Path, warm: str) -> dict[str, Any]:
    """`judge verify PROBLEM --json` with the package's Python validators warm (on) or not (off)."""
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "--warm-validators", warm, "verify", str(problem), "--json"],
        capture_output=True,
        text=True,
        timeout=1200,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


@pytest.mark.slow
@pytest.mark.parametrize("problem", PROBLEMS)
def test_verify_passes(problem: str) -> None:
    """... with warm validators (the default) and without: the same verdicts, scores and messages (issue 50)."""
    report = verify(ROOT / "problems" / problem, "on")
    assert comparable(verify(ROOT / "problems" / problem, "off")) == comparable(report)
    wrong = [
        (s["submission"], s["expected"], s["result"] and s["result"]["verdict"], s["result"] and s["result"]["score"])
        for s in report["submissions"]
        if not s["ok"]
    ]
    skipped = [(s["submission"], s["skipped"]) for s in report["submissions"] if s["skipped"]]
    assert not wrong, wrong
    assert not skipped, skipped
    assert not report["input_validation"]["failed"], report["input_validation"]["failed"][:5]
    assert report["ok"]
    folders = {s["folder"] for s in report["submissions"]}
    assert "accepted" in folders and "wrong_answer" in folders


PANDOC_COLUMNS = 72  # pandoc's --columns default


@pytest.mark.parametrize("problem", PROBLEMS)
def test_statement_tables_typeset_under_problemtools(problem: str) -> None:
    """A pipe table with a source line wider than pandoc's 72 columns becomes relative-width
    ``p{(\\columnwidth ...) * \\real{...}}`` columns, which problemtools' LaTeX class cannot typeset
    (problem2pdf fails; tests/test_problemtools.py runs it where LaTeX is installed, as on CI). This is the
    quick check that runs everywhere: every table line of the shipped statements fits in 72 columns."""
    for statement in sorted((ROOT / "problems" / problem / "statement").glob("*.md")):
        wide = [
            (n, len(line))
            for n, line in enumerate(statement.read_text(encoding="utf-8").splitlines(), 1)
            if line.lstrip().startswith("|") and len(line) > PANDOC_COLUMNS
        ]
        assert not wide, f"{statement.relative_to(ROOT)}: table lines wider than {PANDOC_COLUMNS} columns: {wide}"
