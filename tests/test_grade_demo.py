"""The demo contest in submissions/: its layout, and its hostile contestant judged next to a strong one.

The hostile programs (reading the answers, a fork bomb, infinite output) run only through the judge with
the bubblewrap sandbox (`--sandbox bwrap`); the test is skipped when that sandbox is not available.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judge.commands.cli import main
from judge.grade.discovery import discover, load_problems
from judge.languages.table import load_languages
from judge.runner import make_runner

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "submissions"
PROBLEMS = ROOT / "problems"
SEEDS, STRONG, HOSTILE = "alder", "birch", "fir"
INTENDED_ISSUES = {("unknown-language", "elm/rummy.exs")}
TESTS_PER_GROUP = 2


def _package_copy(problem: str, data: bytes) -> str | None:
    """The submissions/<folder> of the package's file identical to ``data`` (None: the demo's own program)."""
    for f in sorted((PROBLEMS / problem / "submissions").glob("*/*")):
        if f.is_file() and f.read_bytes() == data:
            return f.parent.name
    return None


def test_demo_contest_layout() -> None:
    problems, bad = load_problems(PROBLEMS)
    assert bad == [], bad
    contest = discover(DEMO, problems, load_languages())
    assert len(contest.contestants) >= 6
    assert {(i.kind, i.path) for i in contest.issues} == INTENDED_ISSUES
    covered = {e.problem for e in contest.entries}
    assert covered == set(problems), f"no demo submission for {sorted(set(problems) - covered)}"
    by = {(e.contestant, e.problem): e for e in contest.entries}
    for pid in problems:
        assert (STRONG, pid) in by, f"the strong contestant has no {pid}"
        strong = by[(STRONG, pid)].path
        assert _package_copy(pid, strong.read_bytes()) == "accepted"
    seeds = [e for e in contest.entries if e.contestant == SEEDS]
    assert len(seeds) >= 4
    for e in seeds:  # the seeds' own programs, as the packages keep them
        data = e.path.read_bytes()
        names = [f.name for f in (PROBLEMS / e.problem / "submissions").glob("*/*") if f.read_bytes() == data]
        assert any(n.startswith("seed") for n in names), (e.rel, names)
    hostile = {e.problem: e.path.read_text() for e in contest.entries if e.contestant == HOSTILE}
    assert any("fork()" in text for text in hostile.values())
    assert any(".ans" in text for text in hostile.values())
    assert any("fwrite" in text for text in hostile.values())  # infinite output
    assert any("bytearray" in text for text in hostile.values())  # memory bomb
    solved_by = {c: {e.problem for e in contest.entries if e.contestant == c} for c in contest.contestants}
    assert any(len(ps) <= len(problems) - 2 for ps in solved_by.values())  # someone misses problems


def _trimmed(dest: Path) -> Path:
    """The packages with the first few tests of every group (enough to see every verdict, much faster)."""
    for pkg in sorted(p for p in PROBLEMS.iterdir() if (p / "problem.yaml").is_file()):
        copy = dest / pkg.name
        shutil.copytree(pkg, copy, ignore=shutil.ignore_patterns("submissions", "__pycache__"))
        for group in [g for g in (copy / "data").rglob("*") if g.is_dir()] + [copy / "data"]:
            for extra in sorted(group.glob("*.in"))[TESTS_PER_GROUP:]:
                extra.unlink()
                extra.with_suffix(".ans").unlink(missing_ok=True)
    return dest


@pytest.mark.slow
@pytest.mark.hostile
def test_hostile_contestant_gets_verdicts_and_the_strong_one_stays_correct(tmp_path: Path) -> None:
    if not make_runner("bwrap").info.isolated:
        pytest.skip("the bubblewrap sandbox is not available: hostile programs are not run")
    contest = tmp_path / "contest"
    for who in (HOSTILE, STRONG):
        shutil.copytree(DEMO / who, contest / who)
    problems = _trimmed(tmp_path / "problems")
    out = tmp_path / "board"
    argv = ["--sandbox", "bwrap", "grade", str(contest), "--problems", str(problems), "--out", str(out)]
    assert main([*argv, "--jobs", "2", "--json"]) == 0
    results = json.loads((out / "results.json").read_text())["results"]
    for pid, r in results[STRONG].items():
        assert (r["verdict"], r["score"]) == ("AC", r["max_score"]), pid
    verdicts = {pid: r["verdict"] for pid, r in results[HOSTILE].items()}
    assert len(verdicts) >= 3
    assert all(v not in ("AC", "JE") for v in verdicts.values()), verdicts
    assert verdicts.get("rummy") in (None, "OLE")  # infinite output
    assert verdicts.get("go") in (None, "WA")  # found no answers to read
    assert verdicts.get("coins") in (None, "MLE")  # memory bomb
