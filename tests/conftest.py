"""Shared fixtures: the fixture packages, a real runner (skipped where nothing can run), a fake environment."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeRunner

from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.runner import Runner, make_runner

FIXTURES = Path(__file__).parent / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (`-n 2 --dist loadfile`, the README's command) files are handed out in the order
    pytest_collection_modifyitems leaves them, not re-sorted by their number of tests (xdist's default)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files with a slow test first, then the ones with the most tests (xdist's own order): a 4-minute
    file handed out last kept one worker busy for minutes while the other had nothing left to do."""
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    tests_in = Counter(item.path for item in items)
    items.sort(key=lambda item: (item.path not in slow, -tests_in[item.path]))  # stable: a file's own order kept


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


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """A throwaway PostgreSQL cluster (tests/pg_cluster.py) for the session; skips, saying so, where
    PostgreSQL or psycopg is not installed (.ci/setup installs both)."""
    import importlib.util

    from pg_cluster import Cluster, binaries

    bindir = binaries()
    if bindir is None:
        pytest.skip(
            "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin nor on PATH): its half is skipped"
        )
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed (pip install 'judge[postgres]'): the PostgreSQL half is skipped")
    cluster = Cluster(bindir)
    yield cluster
    cluster.stop()


@pytest.fixture
def dsn(pg_cluster: Any) -> Iterator[str]:
    """A new, empty PostgreSQL database on the session's cluster, dropped after the test."""
    made = pg_cluster.new_database()
    try:
        yield made
    finally:
        pg_cluster.drop(made)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Each engine of `judge serve`'s storage in turn (issue 51): SQLite files, then a fresh PostgreSQL
    database of the session's cluster. serve_fixtures' make_server and serve_site_fixtures' open the
    contests on it while the test runs (a module opts in with ``pytestmark = pytest.mark.usefixtures("engine")``)."""
    import serve_fixtures

    from judge.serve.storage import SQLITE, Engine

    if request.param == "sqlite":
        yield SQLITE
        return
    only = request.node.get_closest_marker("sqlite_only")
    if only is not None:
        pytest.skip(f"SQLite only: {only.args[0] if only.args else 'about its files'}")
    serve_fixtures.ENGINE[0] = made = Engine(request.getfixturevalue("dsn"))  # (dropped after this one's end)
    try:
        yield made
    finally:
        serve_fixtures.ENGINE[0] = SQLITE
