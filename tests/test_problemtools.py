"""Kattis' own verifier accepts the exports of the shipped packages (`judge export`, then `verifyproblem`).

problemtools comes from PyPI (the pinned version below) into a venv made once per test run. coins, go and
klondike must verify with 0 errors; memory and rummy must load, and every submission of theirs that needs
none of our extensions (judge.package.export.needs_extension) must get its folder's verdict under problemtools too.
All five statements must typeset: problemtools' statement part runs problem2pdf (pandoc, LuaLaTeX, ghostscript)
and problem2html (pandoc, tidy) on them, in a test of its own; .ci/setup installs those when CI is set. Without
them that test skips here, unless CI is set (then their absence is a failure: CI must not skip it silently).
problemtools runs Python with pypy3 (Debian's: Python 3.9), which .ci/setup installs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pytest

from judge.languages.table import load_languages
from judge.package.export import export_package

# slow; its session fixtures run verifyproblem on every package (about 4 min on an idle 2-core machine, twice
# that with the cores shared): more than pytest's 600 s per test would allow on a busy machine
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

PROBLEMTOOLS = "problemtools==1.20260907"
ROOT = Path(__file__).resolve().parent.parent
PARTS = ["config", "validators", "graders", "data", "submissions"]  # "statement": its own test, where LaTeX is
STATEMENT_TOOLS = ("pandoc", "lualatex", "gs", "tidy")  # what problem2pdf and problem2html run
CLEAN = ("coins", "go", "klondike")  # 0 errors
LOADS = ("memory", "rummy")  # load; the submissions that need no extension get their verdicts
TOOLS = ("pypy3", "gcc", "g++", "fpc")


@pytest.fixture(scope="session")
def verifyproblem(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """problemtools installed from PyPI in a venv, once per run."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"problemtools needs {', '.join(missing)} (bash .ci/setup as root installs them)")
    home = tmp_path_factory.mktemp("problemtools")
    venv.create(home, with_pip=True)
    pip = subprocess.run(
        [str(home / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", PROBLEMTOOLS],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, f"pip install {PROBLEMTOOLS} failed:\n{pip.stdout[-2000:]}\n{pip.stderr[-2000:]}"
    return home / "bin" / "verifyproblem"


def statement_tools() -> None:
    """Skip where problemtools cannot typeset statements here, unless CI is set (see the module's doc)."""
    missing = [t for t in STATEMENT_TOOLS if shutil.which(t) is None]
    if missing and os.environ.get("CI"):
        pytest.fail(f"CI is set but {', '.join(missing)} is missing: .ci/setup installs them")
    if missing:
        pytest.skip(f"typesetting statements needs {', '.join(missing)} (.ci/setup installs them when CI is set)")


class Verified(NamedTuple):
    package: Path  # the export
    plain: list[str]  # its submissions that need none of our extensions
    ours: dict[str, str]  # the others, with the reason
    output: str  # what verifyproblem printed


def run_verifyproblem(tool: Path, package: Path, parts: list[str], submissions: list[str] | None) -> str:
    """verifyproblem's output; ``submissions`` (paths under submissions/) limits the ones judged."""
    argv = [str(tool), str(package), "-p", *parts]
    if submissions is not None:
        argv += ["-s", "^(" + "|".join(re.escape(s) for s in submissions) + ")$"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = f"{tool.parent}{os.pathsep}{env.get('PATH', '')}"  # nothing outside the export on sys.path
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, cwd=package.parent)
    return done.stdout + done.stderr


def kattis_submissions(package: Path) -> tuple[list[str], dict[str, str]]:
    """The export's submissions that need none of our extensions, and the others with the reason."""
    from judge.package.export import needs_extension
    from judge.package.problem import load_problem

    problem = load_problem(package)
    languages = load_languages()
    plain: list[str] = []
    ours: dict[str, str] = {}
    for folder in sorted(p for p in (package / "submissions").iterdir() if p.is_dir()):
        for sub in sorted(folder.iterdir()):
            if sub.name.startswith(".") or sub.name in ("README.md", "submissions.yaml"):
                continue
            why = needs_extension(problem, sub, languages)
            if why is None:
                plain.append(f"{folder.name}/{sub.name}")
            else:
                ours[f"{folder.name}/{sub.name}"] = why
    return plain, ours


@pytest.fixture(scope="session")
def verified(verifyproblem: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Verified]:
    """Every shipped package exported and verified, two verifyproblem runs at a time (2 cores)."""
    base = tmp_path_factory.mktemp("exports")

    def one(problem_id: str) -> Verified:
        package = base / problem_id
        export_package(ROOT / "problems" / problem_id, package)
        plain, ours = kattis_submissions(package)
        parts = PARTS if plain else [p for p in PARTS if p != "submissions"]
        out = run_verifyproblem(verifyproblem, package, parts, None if problem_id in CLEAN else plain)
        return Verified(package, plain, ours, out)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(CLEAN + LOADS, pool.map(one, CLEAN + LOADS), strict=True))


@pytest.mark.parametrize("problem_id", CLEAN + LOADS)
def test_problemtools_verifies_the_export(problem_id: str, verified: dict[str, Verified]) -> None:
    package, plain, ours, out = verified[problem_id]
    sys.stdout.write(out)  # shown by pytest when the test fails
    if problem_id in CLEAN:
        assert not ours, f"{problem_id}: every submission should judge without our extensions: {ours}"
    assert f"Loading problem {problem_id}" in out and "Failed to load problem" not in out, out[-3000:]
    summary = re.search(rf"^{problem_id} tested: (\d+) errors?, (\d+) warnings?", out, re.M)
    assert summary is not None, out[-3000:]
    for sub in plain:
        assert re.search(rf"^\s+{re.escape(sub)} \(.*\) OK( with extra time)?:", out, re.M), f"{sub}:\n{out[-3000:]}"
    errors = [line for line in out.splitlines() if line.startswith("ERROR")]
    if problem_id in CLEAN:
        assert summary.group(1) == "0", "\n".join(errors)
    else:
        unexpected = [e for e in errors if not any(re.search(a, e) for a in allowed_errors(package))]
        assert not unexpected, "\n".join(unexpected)


def allowed_errors(package: Path) -> list[str]:
    """The errors problemtools reports for what only our judge reads (docs/package-format.md)."""
    from judge.package.problem import AnswerMode, load_problem

    allowed = ["does not match any known submissions directory"]  # our folders (protocol_violation/)
    if load_problem(package).answer_mode is AnswerMode.EXIT_CODE:
        # the validator reads the exit status that our judge writes as the team output, and refuses (JE)
        # anything else: problemtools' junk outputs are not exit statuses
        allowed.append(r"as output on test case .* gave JE")
    return allowed


@pytest.fixture(scope="session")
def typeset(verifyproblem: Path, verified: dict[str, Verified]) -> dict[str, str]:
    """verifyproblem's statement part (problem2pdf and problem2html) on every export, two at a time."""
    statement_tools()
    with ThreadPoolExecutor(max_workers=2) as pool:
        outs = pool.map(
            lambda pid: run_verifyproblem(verifyproblem, verified[pid].package, ["statement"], None), CLEAN + LOADS
        )
        return dict(zip(CLEAN + LOADS, outs, strict=True))


@pytest.mark.parametrize("problem_id", CLEAN + LOADS)
def test_problemtools_typesets_the_statement(problem_id: str, typeset: dict[str, str]) -> None:
    out = typeset[problem_id]
    sys.stdout.write(out)
    summary = re.search(rf"^{problem_id} tested: (\d+) errors?, (\d+) warnings?", out, re.M)
    assert summary is not None, out[-3000:]
    assert summary.group(1) == "0", "\n".join(line for line in out.splitlines() if line.startswith("ERROR"))
