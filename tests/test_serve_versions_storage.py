"""Package versions and rejudge previews in the storage (issue 33, slice 4 of docs/live-fuzzing.md): schema 9,
the upgrade from 8, and the queries' round trips."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_serve_visibility import STATES, VIEWERS

from judge.serve.model.records import Counterexample, PreviewRecord, PreviewRun, ProblemVersion
from judge.serve.storage import open_storage
from judge.serve.storage.schema import SCHEMA_VERSION
from judge.serve.visibility import Sight, changes_packages, sees_previews

FOUND = Counterexample("sum", 3, 5, b"1 2\n", b"3\n", b"4\n", "WA", "wrong", True, 1000.0)


def test_versions_are_numbered_per_problem_after_the_package_the_server_started_with(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    with storage.write() as w:
        assert w.add_problem_version("sum", "/data/packages/sum/v{version}", "add fuzz-1", 10.0) == 2
        assert w.add_problem_version("sum", "/data/packages/sum/v{version}", "upload", 11.0) == 3
        assert w.add_problem_version("hello", "/p/hello/v{version}", "upload", 12.0) == 2
        w.set_version_state("sum", 2, "current")
    with storage.read() as r:
        assert r.problem_versions("sum") == [
            ProblemVersion("sum", 2, "/data/packages/sum/v2", "add fuzz-1", 10.0, "current"),
            ProblemVersion("sum", 3, "/data/packages/sum/v3", "upload", 11.0, "preview"),
        ]
        assert [(v.problem_id, v.version) for v in r.problem_versions()] == [("hello", 2), ("sum", 2), ("sum", 3)]
    storage.close()


def test_a_preview_and_its_runs_round_trip(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    made = PreviewRecord("sum", 2, 1, "add-test", 7, "preparing", "", 10.0, "secret/fuzz-7")
    with storage.write() as w:
        pid = w.add_preview(made)
        other = w.add_preview(PreviewRecord("sum", 3, 1, "package", None, "preparing", "", 11.0))
        w.set_preview_state(pid, "running")
        w.set_preview_state(other, "refused", "the input validator says no")
        w.add_preview_run(PreviewRun(pid, 4, "AC", "AC", 1.0, 1.0, None, 12.0))
        w.add_preview_run(PreviewRun(pid, 2, "AC", "WA", 1.0, 0.0, "secret/fuzz-7", 12.5))
        w.add_preview_run(PreviewRun(pid, 4, "AC", "TLE", 1.0, 0.0, "secret/fuzz-7", 13.0))  # replaces
    with storage.read() as r:
        assert r.preview(pid) == PreviewRecord(**{**vars(made), "id": pid, "state": "running"})
        assert r.preview(other + 1) is None
        assert [p.id for p in r.previews(("refused",))] == [other]
        assert r.previews(("refused",))[0].message == "the input validator says no"
        assert [p.id for p in r.previews()] == [pid, other]
        assert r.preview_runs(pid) == [
            PreviewRun(pid, 2, "AC", "WA", 1.0, 0.0, "secret/fuzz-7", 12.5),
            PreviewRun(pid, 4, "AC", "TLE", 1.0, 0.0, "secret/fuzz-7", 13.0),
        ]
        assert r.preview_runs(other) == []
    storage.close()


def test_a_counterexample_remembers_the_test_it_became(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    with storage.write() as w:
        cid = w.add_counterexample(FOUND)
        w.set_added_as(cid, "secret/fuzz-1")
    with storage.read() as r:
        found = r.counterexample(cid)
        assert found is not None and found.added_as == "secret/fuzz-1"
    storage.close()


def test_a_schema_8_database_is_upgraded_and_keeps_its_counterexamples(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    storage = open_storage(path)
    with storage.write() as w:
        w.set_meta("contest_id", "kept")
    storage.close()
    conn = sqlite3.connect(path)  # what the schema-8 release wrote
    conn.executescript(
        "DROP TABLE counterexamples; DROP TABLE problem_versions; DROP TABLE previews; DROP TABLE preview_runs;"
        "DROP TABLE prints;"  # changed by schema 11
        "DROP TABLE judgements; DROP TABLE jobs;"  # changed by schema 13 (issue 47)
        "CREATE TABLE counterexamples (id INTEGER PRIMARY KEY AUTOINCREMENT, problem_id TEXT NOT NULL, "
        "submission_id INTEGER NOT NULL, judgement_id INTEGER NOT NULL, input BLOB NOT NULL, answer BLOB NOT NULL, "
        "output BLOB, verdict TEXT NOT NULL, message TEXT NOT NULL, confirmed INTEGER NOT NULL, found_s REAL NOT NULL);"
        "INSERT INTO counterexamples VALUES (1, 'sum', 3, 5, x'0a', x'0a', NULL, 'WA', 'm', 1, 9.0);"
        "DELETE FROM schema_version; INSERT INTO schema_version VALUES (8, 0);"
    )
    conn.close()
    upgraded = open_storage(path)
    assert upgraded.schema_version() == SCHEMA_VERSION >= 9
    with upgraded.write() as w:
        w.add_problem_version("sum", "v{version}", "upload", 1.0)
        w.set_added_as(1, "secret/fuzz-1")
    with upgraded.read() as r:
        assert r.get_meta("contest_id") == "kept"
        assert [(c.id, c.added_as) for c in r.counterexamples()] == [(1, "secret/fuzz-1")]
        assert [v.version for v in r.problem_versions("sum")] == [2]
    upgraded.close()


@pytest.mark.parametrize("state", sorted(STATES))
@pytest.mark.parametrize("role", sorted(VIEWERS))
def test_previews_are_the_jurys_and_changing_packages_the_admins(role: str, state: str) -> None:
    phase, now = STATES[state]
    sight = Sight(VIEWERS[role], phase, now)
    assert sees_previews(sight) is (role in ("judge", "admin"))
    assert changes_packages(sight) is (role == "admin")
