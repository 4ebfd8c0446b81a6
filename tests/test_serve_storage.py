"""The storage layer: a contest directory written by an earlier release opens, is upgraded in place, and
answers exactly as before (tests/fixtures/serve_v2); the schema's migrations; what a fresh database holds."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import FIXTURES, Api, FakeClock, feed, make_server
from serve_v2_ids import renamed

from judge.serve.storage import StorageError, open_storage
from judge.serve.storage.schema import SCHEMA_VERSION

V2 = FIXTURES / "serve_v2"
C = "/api/contests/test"
PATHS = ("", "/state", "/problems", "/teams", "/accounts", "/submissions", "/judgements", "/runs", "/scoreboard")
PATHS += ("/judgement-types", "/languages", "/groups", "/organizations")


@pytest.fixture
def old_contest(tmp_path: Path) -> Path:
    root = tmp_path / "contest"
    shutil.copytree(V2, root, ignore=shutil.ignore_patterns("answers*.json", "README.md"))
    return root


def answers(api: Api) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for user in (None, "team1", "team2", "judge", "admin"):
        who = user or "public"
        for path in PATHS:
            r = api.get(C + path, user)
            out[f"{who} GET {path or '/'}"] = [r.status_code, r.json()]
        out[f"{who} feed"] = feed(api, user)
    return out


def since_then(key: str, answer: Any) -> Any:
    """The schema-2 release's answer with what the API has added since, on purpose: DOMjudge's ``shortname``
    on the REST contest object, the contest's id when contest.yaml gives none (issue 43)."""
    if key.endswith(" GET /"):
        status, contest = answer
        return [status, {**contest, "shortname": contest["id"]}]
    return answer


def test_a_contest_of_the_schema_2_release_opens_upgraded_and_answers_as_it_did(old_contest: Path) -> None:
    golden = json.loads((V2 / "answers.json").read_text())
    with sqlite3.connect(old_contest / "contest.sqlite") as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("2",)
    server = make_server(old_contest, FakeClock(golden["now"]))
    try:
        assert server.storage.schema_version() == SCHEMA_VERSION
        got = answers(Api.of(server))
        assert got.keys() == golden["answers"].keys()
        for key, want in golden["answers"].items():
            assert got[key] == since_then(key, want), key
        # the queued submission is still queued, and is judged like any other
        assert server.judging.pending() == 1 and server.judging.run_pending() == 1
    finally:
        server.close()
    with sqlite3.connect(old_contest / "contest.sqlite") as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() is None
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (SCHEMA_VERSION,)


def test_a_new_database_has_the_current_schema_and_refuses_a_foreign_one(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "new.sqlite")
    assert storage.schema_version() == SCHEMA_VERSION
    with storage.write() as w:
        w.set_meta("contest_id", "x")
    storage.close()
    reopened = open_storage(tmp_path / "new.sqlite")
    with reopened.read() as r:
        assert r.get_meta("contest_id") == "x"
    reopened.close()
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE something (x)")
    with pytest.raises(StorageError, match="not a contest database"):
        open_storage(foreign)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StorageError, match="cannot open"):
        open_storage(garbage)


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    with pytest.raises(RuntimeError), storage.write() as w:
        w.set_meta("half", "done")
        raise RuntimeError("a failure in the middle")
    with storage.read() as r:
        assert r.get_meta("half") is None
    storage.close()


def test_the_golden_answers_are_the_schema_2_releases_with_the_new_ids_only() -> None:
    """answers.json is what the schema-2 release answered (answers.schema2.json) with the judgements', runs'
    and tokens' ids of issue 27 and nothing else changed (tests/serve_v2_ids.py wrote it)."""
    old = json.loads((V2 / "answers.schema2.json").read_text())
    assert renamed(old, V2 / "contest.sqlite") == json.loads((V2 / "answers.json").read_text())
