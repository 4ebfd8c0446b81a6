"""The storage layer on both engines (issue 51): the dialect's translation, one schema for both (PostgreSQL's
tables and columns are SQLite's, checked on a real cluster), the Protocols' behaviour (ids, bytes, text,
transactions, reopening) on each engine, and a contest through the real app answering the same on both."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, feed, make_server, write_contest

from judge.serve.model.records import Audience, NewEvent, NewSubmission, Scope
from judge.serve.storage import SQLITE, Engine, StorageError
from judge.serve.storage.dialect import IDENTITY, postgres_ddl, postgres_sql, statements
from judge.serve.storage.schema import TABLES

C = "/api/contests/test"


def test_the_dialect_turns_the_common_sql_into_postgresqls() -> None:
    assert postgres_sql("SELECT * FROM events WHERE type = ? AND obj_id IS ? LIMIT ?") == (
        "SELECT * FROM events WHERE type = %s AND obj_id IS NOT DISTINCT FROM %s LIMIT %s",
        False,
    )
    assert postgres_sql("INSERT INTO submissions (team_id) VALUES (?)") == (
        "INSERT INTO submissions (team_id) VALUES (%s) RETURNING id",
        True,
    )
    assert postgres_sql("INSERT INTO award_edits (id) VALUES (?)") == (
        "INSERT INTO award_edits (id) VALUES (%s) RETURNING seq",
        True,
    )
    assert postgres_sql("INSERT INTO meta (key, value) VALUES (?, ?)") == (
        "INSERT INTO meta (key, value) VALUES (%s, %s)",
        False,
    )
    assert postgres_sql("INSERT OR IGNORE INTO balloons_done (submission_id) VALUES (?)")[0] == (
        "INSERT INTO balloons_done (submission_id) VALUES (%s) ON CONFLICT DO NOTHING"
    )
    # a literal's ? and % are text, not placeholders
    assert postgres_sql("SELECT '?%' WHERE a LIKE 'x%' AND b = ?")[0] == "SELECT '?%' WHERE a LIKE 'x%' AND b = %s"
    assert postgres_sql("SELECT 5 % 2")[0] == "SELECT 5 %% 2"
    assert postgres_sql("INSERT INTO jobs (a) VALUES (?)", returning=False) == (
        "INSERT INTO jobs (a) VALUES (%s)",
        False,
    )


def test_the_schemas_types_in_postgresql() -> None:
    ddl = postgres_ddl(TABLES)
    assert "id BIGINT PRIMARY KEY," in ddl
    for sqlite_only in ("AUTOINCREMENT", " REAL", " BLOB", "INTEGER"):
        assert sqlite_only not in ddl
    assert "time_s DOUBLE PRECISION NOT NULL" in ddl and "files BYTEA NOT NULL" in ddl
    # every table with an autoincrement id is known: an INSERT into it returns the id (SQLite's lastrowid)
    autoincrement = [s.split()[5] for s in statements(TABLES) if "AUTOINCREMENT" in s]
    assert sorted(IDENTITY) == sorted(autoincrement) and len(IDENTITY) >= 12


def _columns_sqlite(path: Path) -> dict[str, list[tuple[str, str, bool]]]:
    conn = sqlite3.connect(path)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    out = {}
    for t in tables:
        if t == "sqlite_sequence":
            continue
        # a key's columns are NOT NULL in PostgreSQL (SQLite's catalog says so of none but INTEGER keys' rowid)
        out[t] = [(r[1], str(r[2]).upper(), bool(r[3] or r[5])) for r in conn.execute(f"PRAGMA table_info({t})")]
    conn.close()
    return out


SAME_TYPE = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text", "BLOB": "bytea"}


def test_postgresql_has_sqlites_tables_and_columns(tmp_path: Path, pg_cluster: Any) -> None:
    """The schema is one description: on PostgreSQL every table has SQLite's columns, in the same order,
    of the corresponding type, with the same NOT NULLs (a migration written for one engine only fails here)."""
    import psycopg

    from judge.serve.storage.postgres import PgStorage

    dsn = pg_cluster.new_database()
    try:
        Engine().open(tmp_path / "contest.sqlite", "x").close()
        PgStorage(dsn, "contest_x", tmp_path / "contest.sqlite").close()
        lite = _columns_sqlite(tmp_path / "contest.sqlite")
        with psycopg.connect(dsn) as conn:
            rows = conn.execute(
                "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_schema = 'contest_x' ORDER BY table_name, ordinal_position"
            ).fetchall()
        pg: dict[str, list[tuple[str, str, bool]]] = {}
        for table, column, kind, nullable in rows:
            pg.setdefault(table, []).append((column, kind, nullable == "NO"))
        assert sorted(pg) == sorted(lite)
        for table, columns in lite.items():
            assert pg[table] == [(name, SAME_TYPE[kind], notnull) for name, kind, notnull in columns], table
    finally:
        pg_cluster.drop(dsn)


def _submission(time_s: float, files: bytes) -> NewSubmission:
    return NewSubmission("team1", "team1", "sum", "python3", None, time_s, files)


def test_the_protocol_on_each_engine(tmp_path: Path, engine: Engine) -> None:
    every_byte = bytes(range(256)) * 3
    storage = engine.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        with storage.write() as w:
            first = w.add_submission(_submission(1.5, every_byte))
            second = w.add_submission(_submission(1234567890.123456, b""))
            job = w.enqueue(first.id, "submit", 2.0)
            token = w.add_event(NewEvent("submissions", str(first.id), '{"a": 1}', Audience(Scope.PUBLIC), 3.0))
            w.set_meta("text", "naïve ünïcode ✓")
            w.set_ignored(second.id, True, 4.0)
            w.set_ignored(second.id, True, 5.0)  # twice: kept once (INSERT OR IGNORE)
            w.set_balloon_done(first.id, True, 6.0)
        assert (first.id, second.id) == (1, 2) and job == 1 and token == 1
        with storage.read() as r:
            assert r.submission_files(first.id) == every_byte and r.submission_files(second.id) == b""
            subs = r.submissions()
            assert [s.time_s for s in subs] == [1.5, 1234567890.123456]
            assert [s.ignored for s in subs] == [False, True]
            assert r.get_meta("text") == "naïve ünïcode ✓"
            assert r.pending_jobs() == 1 and r.has_open_job(first.id)
            assert [e.id for e in r.events(0, 10)] == [1] and r.latest_event() == 1
            assert r.last_event("submissions", str(first.id)) is not None
            assert r.last_event("submissions", None) is None  # NULL-safe equality: no event without an object
            assert [c.submission.id for c in r.counted(None)] == [first.id]  # the ignored one is not counted
            assert r.balloons_done() == {first.id}
        with pytest.raises(RuntimeError), storage.write() as w:
            w.add_submission(_submission(9.0, b"x"))
            raise RuntimeError("a failure in the middle")
        with storage.read() as r:
            assert len(r.submissions()) == 2
    finally:
        storage.close()
    again = engine.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        with again.write() as w:  # ids go on after the largest, even after the rolled back one
            assert w.add_submission(_submission(10.0, b"y")).id == 3
        assert again.schema_version() > 0
    finally:
        again.close()


def test_a_nul_in_text_is_kept_as_a_replacement_character_on_postgresql(tmp_path: Path, engine: Engine) -> None:
    storage = engine.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        with storage.write() as w:
            w.set_meta("nul", "a\x00b")
        with storage.read() as r:
            assert r.get_meta("nul") == ("a\ufffdb" if engine.postgres else "a\x00b")
    finally:
        storage.close()


def test_a_postgresql_that_cannot_be_reached_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    engine = Engine("postgresql://judge:s3cret@127.0.0.1:1/nowhere?connect_timeout=2")
    with pytest.raises(StorageError) as err:
        engine.open(tmp_path / "contest.sqlite", "contest_t")
    assert "\n" not in str(err.value) and "s3cret" not in str(err.value)
    assert "s3cret" not in engine.describe() and "s3cret" not in repr(engine)
    assert SQLITE.describe() == "SQLite"


def _contest_answers(tmp_path: Path) -> dict[str, Any]:
    clock = FakeClock(T0 + HOUR)
    server = make_server(write_contest(tmp_path / "contest"), clock)
    try:
        api = Api.of(server)
        assert api.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
        clock.advance(60)
        assert api.submit("team2", files={"sum.py": SUM_WA}).status_code == 201
        server.judging.run_pending()
        out = {}
        for user in (None, "team1", "team2", "admin"):
            for path in ("/submissions", "/judgements", "/runs", "/scoreboard", "/problems", "/teams"):
                r = api.get(C + path, user)
                out[f"{user} {path}"] = [r.status_code, r.json()]
            out[f"{user} feed"] = feed(api, user)
        return out
    finally:
        server.close()


def test_a_contest_answers_the_same_on_both_engines(tmp_path: Path, engine: Engine) -> None:
    """The same contest (submissions judged) read through the API, every role and the event feed:
    PostgreSQL's answers are SQLite's (clarifications have random ids: test_serve_clarifications.py runs on
    both engines)."""
    got = _contest_answers(tmp_path / "this")
    if engine.postgres:
        import serve_fixtures

        serve_fixtures.ENGINE[0], kept = SQLITE, serve_fixtures.ENGINE[0]
        try:
            expected = _contest_answers(tmp_path / "sqlite")
        finally:
            serve_fixtures.ENGINE[0] = kept
        assert got == expected
    assert got["admin /judgements"][1] and all(j.get("judgement_type_id") for j in got["admin /judgements"][1])


def _args(database: str | None = None, database_file: str | None = None) -> Any:
    import argparse

    return argparse.Namespace(database=database, database_file=database_file)


def test_the_database_options(tmp_path: Path) -> None:
    """--database and --database-file (commands/database.py): the DSN read owner-only, a password on the
    command line warned about (without showing it), anything but a PostgreSQL DSN refused."""
    pytest.importorskip("psycopg")
    from judge.commands.common import UsageError
    from judge.commands.database import engine_of

    assert engine_of(_args()) is SQLITE
    said: list[str] = []
    engine = engine_of(_args("postgresql://judge:s3cret@db.example.org/regional"), said.append)
    assert engine.dsn == "postgresql://judge:s3cret@db.example.org/regional"
    assert len(said) == 1 and "process list" in said[0] and "s3cret" not in said[0]
    said.clear()
    engine_of(_args("postgresql://judge@db.example.org/regional"), said.append)  # no password: nothing to say
    assert said == []
    with pytest.raises(UsageError, match="PostgreSQL DSN"):
        engine_of(_args("sqlite:///x.db"))
    dsn_file = tmp_path / "dsn"
    dsn_file.write_text("postgresql://judge:s3cret@db.example.org/regional\n")
    dsn_file.chmod(0o644)
    with pytest.raises(UsageError, match="chmod 600") as err:
        engine_of(_args(database_file=str(dsn_file)))
    assert "s3cret" not in str(err.value)
    dsn_file.chmod(0o600)
    assert engine_of(_args(database_file=str(dsn_file)), said.append).dsn == (
        "postgresql://judge:s3cret@db.example.org/regional"
    )
    assert said == []  # from a file: not on the command line
    with pytest.raises(UsageError, match="not both"):
        engine_of(_args("postgresql://a@b/c", str(dsn_file)))
    with pytest.raises(UsageError, match="cannot read"):
        engine_of(_args(database_file=str(tmp_path / "missing")))


def test_one_process_per_postgresql_schema(tmp_path: Path, pg_cluster: Any) -> None:
    """Without --shared one `judge serve` per database: a second storage of a schema in use is refused with one
    line (its advisory lock is held while the first is open), and opens once it is closed (several processes:
    test_serve_shared.py)."""
    dsn = pg_cluster.new_database()
    try:
        engine = Engine(dsn)
        first = engine.open(tmp_path / "contest.sqlite", "contest_t")
        with pytest.raises(StorageError, match="in use by another `judge serve`") as err:
            engine.open(tmp_path / "contest.sqlite", "contest_t")
        assert "\n" not in str(err.value)
        other = engine.open(tmp_path / "other.sqlite", "contest_u")  # another schema: free
        other.close()
        first.close()
        engine.open(tmp_path / "contest.sqlite", "contest_t").close()
        # closed is free at once (a restart straight after a stop): the lock is given back before the
        # connection closes, not when the server's backend gets round to exiting (1 in ~100 was refused)
        for _ in range(100):
            engine.open(tmp_path / "contest.sqlite", "contest_t").close()
    finally:
        pg_cluster.drop(dsn)
