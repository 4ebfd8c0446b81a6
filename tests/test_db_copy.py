"""`judge db copy` (issue 51): a site served on SQLite (people, sessions, submissions judged, a clarification,
an admin's change) copied to PostgreSQL and back, through the real command, loses nothing: every table of
every database is the same row by row, and the site served from PostgreSQL answers as it did."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import T0, FakeClock
from serve_site_fixtures import open_test_site, write_site
from test_serve_site import CONTESTS, _login, api_of

from judge.commands.cli import main
from judge.serve.site.site import SITE_DB
from judge.serve.storage import DB_NAME, Engine
from judge.serve.storage.copy import TABLE_NAMES


def _databases(root: Path) -> list[Path]:
    return [root / SITE_DB, *(root / "contests" / cid / DB_NAME for cid in CONTESTS)]


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(path)
    try:
        out = {}
        for table in TABLE_NAMES:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            rows = conn.execute(f"SELECT {', '.join(sorted(columns))} FROM {table}").fetchall()
            out[table] = sorted(rows, key=repr)
        return out
    finally:
        conn.close()


def _answers(site: Any) -> dict[str, Any]:
    api = api_of(site)
    out = {}
    for user in (None, "team1", "admin"):
        for path in ("/api/contests", *(f"/api/contests/{cid}/{what}" for cid in CONTESTS for what in (
            "submissions", "judgements", "scoreboard", "clarifications", "teams", "accounts"))):  # fmt: skip
            r = api.get(path, user)
            out[f"{user} {path}"] = [r.status_code, r.text]
    return out


def _served(root: Path) -> dict[str, Any]:
    """A golden site: two submissions judged in two contests, a clarification, a team's name changed, a
    login's session; its API's answers."""
    site = open_test_site(root, FakeClock(T0))
    try:
        api = api_of(site)
        assert api.submit_to("practice", "team1").status_code == 201
        assert api.submit_to("club", "team4").status_code == 201
        for c in site.contests():
            c.server.judging.run_pending()
        body = {"text": "one line\nand a ünïcode one", "problem_id": "sum"}
        assert api.request("POST", "/api/contests/practice/clarifications", "team1", json=body).status_code == 201
        _login(api, "team1")  # a session of the pages (site.sqlite's sessions)
        return _answers(site)
    finally:
        site.close()


def test_a_site_goes_to_postgresql_and_back_with_nothing_lost(
    tmp_path: Path, pg_cluster: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_site(tmp_path / "site", CONTESTS, order=["practice", "main"])
    before = _served(root)
    golden = {path: _rows(path) for path in _databases(root)}
    assert golden[root / SITE_DB]["sessions"] and golden[root / "contests" / "practice" / DB_NAME]["runs"]
    dsn = pg_cluster.new_database()
    try:
        assert main(["db", "copy", str(root), dsn]) == 0
        err = capsys.readouterr().err
        assert "PostgreSQL schema contest_practice" in err and "rows" in err
        # the destination must be new: a second copy is refused, and changes nothing
        assert main(["db", "copy", str(root), dsn]) == 2
        assert "is not new" in capsys.readouterr().err

        # and back into new SQLite files: every row of every table as it was
        kept = tmp_path / "kept"
        for path in _databases(root):
            target = kept / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, target)
        assert main(["db", "copy", dsn, str(root)]) == 0
        for path, rows in golden.items():
            assert _rows(path) == rows, path
        # into files that exist: refused
        assert main(["db", "copy", dsn, str(root)]) == 2
        assert "exists" in capsys.readouterr().err

        # served from PostgreSQL, the site answers as it did
        on_pg = open_test_site(root, FakeClock(T0), engine=Engine(dsn))
        try:
            assert _answers(on_pg) == before
        finally:
            on_pg.close()
    finally:
        pg_cluster.drop(dsn)


def test_db_copy_needs_one_folder_and_one_dsn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "copy", str(tmp_path), str(tmp_path)]) == 2
    assert "one of them a folder" in capsys.readouterr().err
    assert main(["db", "copy", "postgresql://a@/b", "postgres://a@/c"]) == 2
