"""Shared fixtures: the fixture packages, a real runner (skipped where nothing can run), a fake environment."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeRunner

from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.runner import Runner, make_runner

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """tests/fixtures: small real packages, one of each kind."""
    return FIXTURES


@pytest.fixture(scope="module")
def sandbox_runner() -> Iterator[Runner]:
    """The runner `judge` would use here (auto); skips the test where no sandbox can run programs."""
    runner = make_runner("auto")
    if not runner.can_run:
        pytest.skip(f"no sandbox here: {'; '.join(runner.info.warnings)}")
    yield runner
    runner.close()


def fake_environment(runner: FakeRunner) -> Environment:
    """An environment whose runner is scripted (tests/fakes.py): no processes, no root."""
    return Environment(runner, load_languages(), toolchain())


def put(root: Path, contestant: str, name: str, source: Path | str) -> None:
    """A contest's submission ``root/contestant/name``: a copy of ``source`` (a file) or that text."""
    dst = root / contestant / name
    dst.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(source, Path):
        shutil.copy(source, dst)
    else:
        dst.write_text(source)


@pytest.fixture
def servers() -> Iterator[list[Any]]:
    """The `judge serve` processes a test started (each with a ``proc``): killed at its end if still running."""
    started: list[Any] = []
    yield started
    for s in started:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
