"""Live fuzzing's first slice (issue 33, docs/live-fuzzing.md): the counterexamples' storage (schema 8, the
upgrade from 7) and who may see them (visibility.sees_fuzzing: the jury only, at every phase)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_serve_visibility import STATES, VIEWERS

from judge.serve.model.records import Counterexample
from judge.serve.storage import open_storage
from judge.serve.storage.schema import SCHEMA_VERSION
from judge.serve.visibility import Sight, sees_fuzzing

WRONG = Counterexample(
    problem_id="sum",
    submission_id=3,
    judgement_id=5,
    input=b"2\n1 \xff\n",  # bytes as they are, not text
    answer=b"3\n",
    output=None,  # it crashed before writing anything
    verdict="RTE",
    message="exit code 1",
    confirmed=True,
    found_s=1000.5,
)


def test_a_counterexample_is_stored_as_it_was_given_and_listed_newest_first(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    other = Counterexample("hello", 4, 6, b"x\n", b"y\n", b"z\n", "WA", "wrong answer: expected y", False, 1001.0)
    with storage.write() as w:
        first = w.add_counterexample(WRONG)
        second = w.add_counterexample(other)
    with storage.read() as r:
        assert r.counterexamples() == [
            Counterexample(**{**vars(other), "id": second}),
            Counterexample(**{**vars(WRONG), "id": first}),
        ]
        assert r.counterexamples("sum") == [Counterexample(**{**vars(WRONG), "id": first})]
        assert r.counterexamples("nosuch") == []
        assert r.counterexample(second) == Counterexample(**{**vars(other), "id": second})
        assert r.counterexample(second + 1) is None
    storage.close()


def test_a_schema_7_database_is_upgraded_and_keeps_what_it_held(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    storage = open_storage(path)
    with storage.write() as w:
        w.set_meta("contest_id", "kept")
    storage.close()
    conn = sqlite3.connect(path)  # what the schema-7 release wrote: no counterexamples table, version 7
    conn.executescript(
        "DROP TABLE counterexamples; DROP TABLE prints;"  # prints: changed by schema 11
        "DROP TABLE judgements; DROP TABLE jobs; DROP TABLE previews;"  # changed by schema 14 (issue 47)
        "DELETE FROM schema_version; INSERT INTO schema_version VALUES (7, 0);"
    )
    conn.close()
    upgraded = open_storage(path)
    assert SCHEMA_VERSION >= 8 and upgraded.schema_version() == SCHEMA_VERSION
    with upgraded.write() as w:
        cid = w.add_counterexample(WRONG)
    with upgraded.read() as r:
        assert r.get_meta("contest_id") == "kept"
        assert [c.id for c in r.counterexamples()] == [cid]
    upgraded.close()


@pytest.mark.parametrize("state", sorted(STATES))
@pytest.mark.parametrize("role", sorted(VIEWERS))
def test_only_the_jury_sees_fuzzing_at_every_phase(role: str, state: str) -> None:
    phase, now = STATES[state]
    assert sees_fuzzing(Sight(VIEWERS[role], phase, now)) is (role in ("judge", "admin"))
