"""The repository's top level is fixed (DEVELOPERS.md, "Layout"): a bench's output, a scratch file or a
stray folder there fails this test (issue 43: `before50.txt`, bench/serve.py's output, had been committed;
its figures belong in docs/benchmarks.md)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = {
    # DEVELOPERS.md's fixed layout
    "pyproject.toml",
    "judge",
    "reference",
    "problems",
    "submissions",
    "tests",
    "bench",
    "docs",
    ".ci",
    # the README, the container, the spec checker's stand-in (docs/serve.md), git's and docker's ignore lists
    "README.md",
    "Dockerfile",
    "tools",
    ".gitignore",
    ".dockerignore",
}


def tracked_top_level() -> set[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60, stdin=subprocess.DEVNULL
    )
    return {name.split("/", 1)[0] for name in done.stdout.decode().split("\0") if name}


def test_the_top_level_holds_the_fixed_layout_only() -> None:
    extra = tracked_top_level() - LAYOUT
    assert not extra, f"not part of the layout (a bench's figures go into docs/benchmarks.md): {sorted(extra)}"


def test_bench_output_at_the_top_level_is_ignored() -> None:
    """What a bench's output redirected at the top level would be called is ignored by git."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = ["before50.txt", "serve.log", "bench.out", "bench-serve-x/serve.log"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", *names], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert sorted(done.stdout.split()) == sorted(names), done.stdout + done.stderr
