"""Live fuzzing's jobs in the storage (issue 33, docs/live-fuzzing.md; schema 9, the upgrade from 8): queued
once per submission and package, claimed oldest first (not held problems', not ignored submissions'),
resumed with their progress, ended once; a counterexample names its job and its submission's team."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from judge.serve.model.records import Counterexample, FuzzState, NewSubmission
from judge.serve.storage import Storage, open_storage
from judge.serve.storage.schema import SCHEMA_VERSION

T = 1000.0


def submissions(storage: Storage, *problems: str) -> list[int]:
    with storage.write() as w:
        ids = []
        for k, problem in enumerate(problems):
            s = w.add_submission(NewSubmission(f"team{k + 1}", None, problem, "python3", None, T + k, b"zip"))
            w.add_judgement(s.id, True, T + k)
            ids.append(s.id)
        return ids


def test_a_job_is_queued_once_claimed_oldest_first_and_ended_once(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    a, b, c = submissions(storage, "sum", "divisor", "sum")
    with storage.write() as w:
        first = w.enqueue_fuzz(a, 1, "h1", T)
        assert first is not None
        assert w.enqueue_fuzz(a, 1, "h1", T + 1) is None  # already queued for that package
        second, third = w.enqueue_fuzz(b, 2, "h1", T + 2), w.enqueue_fuzz(c, 3, "h1", T + 3)
    with storage.read() as r:
        assert [j.id for j in r.open_fuzz_jobs(10)] == [first, second, third]
        assert [j.id for j in r.open_fuzz_jobs(1, exclude=[first])] == [second]
        assert [j.id for j in r.open_fuzz_jobs(10, held=["sum"])] == [second]
        assert [j.id for j in r.fuzz_jobs()] == [third, second, first]
        assert [j.id for j in r.fuzz_jobs("sum")] == [third, first]
        job = r.fuzz_job(first)
    assert job is not None and (job.state, job.attempts, job.problem_id, job.team_id) == (
        FuzzState.QUEUED, 0, "sum", "team1"
    )  # fmt: skip
    with storage.write() as w:
        running = w.start_fuzz(first)
        assert running is not None and running.state is FuzzState.RUNNING and running.attempts == 1
        w.fuzz_progress(first, 40, 2.5)  # it yielded its slot: queued again with its progress
        again = w.start_fuzz(first)
        assert again is not None and (again.examples_done, again.spent_s, again.attempts) == (40, 2.5, 2)
        assert w.finish_fuzz(replace(again, examples_done=100, spent_s=4.0), FuzzState.SURVIVED, "", T + 9)
        assert not w.finish_fuzz(again, FuzzState.ERROR, "late", T + 10)  # ended already: kept as it was
        assert w.start_fuzz(first) is None
        assert w.enqueue_fuzz(a, a, "h1", T + 11) is None  # a rejudge that stays AC: not fuzzed again
        assert w.enqueue_fuzz(a, a, "h2", T + 11) is not None  # a new package version: fuzzed again
        w.set_ignored(b, True, T + 12)
    with storage.read() as r:
        done = r.fuzz_job(first)
        assert done is not None and (done.state, done.examples_done, done.spent_s, done.finished_s) == (
            FuzzState.SURVIVED, 100, 4.0, T + 9
        )  # fmt: skip
        assert second not in [j.id for j in r.open_fuzz_jobs(10)]  # an ignored submission is not fuzzed
    storage.close()


def test_a_rejudge_that_is_no_longer_ac_cancels_the_open_job(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    (a,) = submissions(storage, "sum")
    with storage.write() as w:
        job = w.enqueue_fuzz(a, 1, "h", T)
        assert job is not None
        assert w.cancel_fuzz(a, "rejudged: WA", T + 1) == 1
        assert w.cancel_fuzz(a, "again", T + 2) == 0
        assert w.start_fuzz(job) is None
        assert w.enqueue_fuzz(a, a, "h", T + 3) is not None  # AC once more: a cancelled job does not count
    with storage.read() as r:
        cancelled = r.fuzz_job(job)
        assert cancelled is not None and (cancelled.state, cancelled.message) == (FuzzState.CANCELLED, "rejudged: WA")
    storage.close()


def test_a_counterexample_names_its_job_and_its_team(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    (a,) = submissions(storage, "sum")
    with storage.write() as w:
        job = w.enqueue_fuzz(a, 1, "h", T)
        cex = Counterexample(
            "sum", a, 1, b"1 2\n", b"3\n", b"4\n", "WA", "wrong", True, T, fuzz_job_id=job, truncated=True
        )
        cid = w.add_counterexample(cex)
    with storage.read() as r:
        assert r.counterexample(cid) == Counterexample(**{**vars(cex), "id": cid, "team_id": "team1"})
    storage.close()


def test_a_schema_8_database_is_upgraded_and_keeps_its_counterexamples(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    storage = open_storage(path)
    storage.close()
    conn = sqlite3.connect(path)  # what the schema-8 release wrote: no fuzz_jobs, counterexamples without job
    conn.executescript(
        """
        DROP TABLE fuzz_jobs; DROP TABLE counterexamples; DROP TABLE prints;
        DROP TABLE judgements; DROP TABLE jobs; DROP TABLE previews;  -- changed by schema 14 (issue 47)
        CREATE TABLE counterexamples (
            id INTEGER PRIMARY KEY AUTOINCREMENT, problem_id TEXT NOT NULL, submission_id INTEGER NOT NULL,
            judgement_id INTEGER NOT NULL, input BLOB NOT NULL, answer BLOB NOT NULL, output BLOB,
            verdict TEXT NOT NULL, message TEXT NOT NULL, confirmed INTEGER NOT NULL, found_s REAL NOT NULL);
        INSERT INTO counterexamples (problem_id, submission_id, judgement_id, input, answer, output, verdict,
            message, confirmed, found_s) VALUES ('sum', 7, 8, X'31', X'32', NULL, 'RTE', 'exit 1', 1, 5.0);
        DELETE FROM schema_version; INSERT INTO schema_version VALUES (8, 0);
        """
    )
    conn.close()
    upgraded = open_storage(path)
    assert SCHEMA_VERSION >= 9 and upgraded.schema_version() == SCHEMA_VERSION
    with upgraded.read() as r:
        assert r.counterexamples() == [Counterexample("sum", 7, 8, b"1", b"2", None, "RTE", "exit 1", True, 5.0, id=1)]
        assert r.fuzz_jobs() == []
    (a,) = submissions(upgraded, "sum")
    with upgraded.write() as w:
        assert w.enqueue_fuzz(a, 1, "h", T) is not None
    upgraded.close()
