"""Counterexample searches for rejected submissions in the storage (issue 46; schema 15, the upgrade from 14):
queued once per submission and package with the policy in force, claimed oldest first (not held problems',
not ignored submissions'), resumed with their progress, ended once with their result and whether the team
was shown it, cancelled open or ended, or (the policy off) only while open."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.options import ExplainBudget
from judge.judging.verdict import Verdict
from judge.serve.model.counterexamples import CounterexamplePolicy, CounterexampleView
from judge.serve.model.explanations import ExplainState, policy_from_json, policy_json, result_json
from judge.serve.model.records import NewSubmission
from judge.serve.storage import Engine, Storage, open_storage
from judge.serve.storage.schema import SCHEMA_VERSION

T = 1000.0
TEAM = CounterexamplePolicy(CounterexampleView.TEAM, ExplainBudget(50, 10.0), 3)


def submissions(storage: Storage, *problems: str) -> list[int]:
    with storage.write() as w:
        ids = []
        for k, problem in enumerate(problems):
            s = w.add_submission(NewSubmission(f"team{k + 1}", None, problem, "python3", None, T + k, b"zip"))
            w.add_judgement(s.id, True, T + k)
            ids.append(s.id)
        return ids


def test_the_policy_is_kept_as_it_was() -> None:
    assert policy_from_json(policy_json(TEAM)) == TEAM
    assert policy_from_json(policy_json(CounterexamplePolicy())) == CounterexamplePolicy()


def test_a_search_is_queued_once_claimed_oldest_first_and_ended_once(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "db.sqlite")
    a, b, c = submissions(storage, "sum", "divisor", "sum")
    policy = policy_json(TEAM)
    with storage.write() as w:
        first = w.enqueue_explanation(a, 1, "h1", "WA", policy, T)
        assert first is not None
        assert w.enqueue_explanation(a, 1, "h1", "RTE", policy, T + 1) is None  # one per package
        second, third = (
            w.enqueue_explanation(b, 2, "h1", "WA", policy, T),
            w.enqueue_explanation(c, 3, "h1", "WA", policy, T),
        )
    with storage.read() as r:
        assert [e.id for e in r.open_explanations(10)] == [first, second, third]
        assert [e.id for e in r.open_explanations(1, exclude=[first])] == [second]
        assert [e.id for e in r.open_explanations(10, held=["sum"])] == [second]
        assert [e.id for e in r.explanations()] == [third, second, first]
        assert [e.id for e in r.explanations(problem_id="sum")] == [third, first]
        assert [e.id for e in r.explanations(submission_ids=[b])] == [second] and r.explanations(
            submission_ids=[]
        ) == []
        search = r.explanation(first)
    assert search is not None and (search.state, search.policy, search.verdict, search.team_id) == (
        ExplainState.QUEUED, TEAM, "WA", "team1"
    )  # fmt: skip
    with storage.write() as w:
        running = w.start_explanation(first)
        assert running is not None and running.state is ExplainState.RUNNING and running.attempts == 1
        w.explanation_progress(first, 20, 2.5, 1)  # it gave its slot back: queued again with its progress
        again = w.start_explanation(first)
        assert again is not None and (again.examples_done, again.spent_s, again.withheld, again.attempts) == (
            20,
            2.5,
            1,
            2,
        )
        result = Explanation(ExplainStatus.FOUND, "sum", Verdict.WA, TEAM.budget, 1, input=b"\xff1\n", answer=b"2\n")
        done = replace(again, examples_done=30, spent_s=4.0, team_shown=True)
        assert w.finish_explanation(done, result_json(result), T + 9)
        assert not w.finish_explanation(done, result_json(result), T + 10)  # ended already
        assert w.start_explanation(first) is None
        assert w.team_shown_explanations("team1") == 1 and w.team_shown_explanations("team2") == 0
        w.set_ignored(b, True, T + 12)
    with storage.read() as r:
        ended = r.explanation(first)
        assert ended is not None and ended.state is ExplainState.DONE and ended.result == result
        assert (ended.examples_done, ended.spent_s, ended.team_shown, ended.finished_s) == (30, 4.0, True, T + 9)
        assert [e.id for e in r.open_explanations(10)] == [third]  # b's is ignored
    with storage.write() as w:
        j4, j5, j6 = (w.add_judgement(a, False, T).id for _ in range(3))
        assert w.enqueue_explanation(a, j4, "h1", "WA", policy, T + 13) is None  # rejudged, still rejected
        assert w.cancel_explanations(a, "judgement 2: AC, not searched", T + 14) == 1  # an ended one too
        newer = w.enqueue_explanation(a, j5, "h1", "WA", policy, T + 15)  # rejected again: searched again
        assert newer is not None
        later = w.enqueue_explanation(a, j6, "h2", "WA", policy, T + 16)  # a new package: the open one makes way
        assert w.team_shown_explanations("team1") == 1  # a cancelled one the team was shown still counts
    with storage.read() as r:
        cancelled = r.explanation(first)
        assert cancelled is not None and cancelled.state is ExplainState.CANCELLED and cancelled.result == result
        assert cancelled.message == "judgement 2: AC, not searched" and cancelled.finished_s == T + 9
        replaced = r.explanation(newer)
        assert replaced is not None and replaced.state is ExplainState.CANCELLED
        assert [e.id for e in r.explanations(submission_ids=[a])] == [later, newer, first]
    storage.close()


def test_a_schema_14_database_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    open_storage(path).close()
    conn = sqlite3.connect(path)  # what the schema-14 release wrote: no explanations, no leases (schema 17)
    conn.executescript(
        "DROP TABLE explanations; ALTER TABLE jobs DROP COLUMN lease_owner; ALTER TABLE jobs DROP COLUMN "
        "lease_until_s; DELETE FROM schema_version; INSERT INTO schema_version VALUES (14, 0);"
    )
    conn.close()
    upgraded = open_storage(path)
    assert SCHEMA_VERSION >= 15 and upgraded.schema_version() == SCHEMA_VERSION
    (a,) = submissions(upgraded, "sum")
    with upgraded.write() as w:
        assert w.enqueue_explanation(a, 1, "h", "WA", policy_json(TEAM), T) is not None
    upgraded.close()


def test_searches_the_policy_no_longer_allows_are_cancelled_if_still_open(tmp_path: Path, engine: Engine) -> None:
    storage = engine.open(tmp_path / "contest.sqlite", "contest_t")
    try:
        a, b, c = submissions(storage, "sum", "sum", "divisor")
        with storage.write() as w:
            queued, ended, other = (w.enqueue_explanation(s, s, "h", "WA", policy_json(TEAM), T) for s in (a, b, c))
            assert queued is not None and ended is not None and other is not None
            running = w.start_explanation(ended)
            assert running is not None
            result = Explanation(ExplainStatus.NOT_FOUND, "sum", Verdict.WA, TEAM.budget, 1)
            assert w.finish_explanation(running, result_json(result), T + 1)
            assert w.cancel_open_explanations([], "the policy is off", T + 2) == 0
            assert w.cancel_open_explanations([queued, ended], "the policy is off", T + 2) == 1  # not an ended one
        with storage.read() as r:
            states = {e.id: (e.state, e.message, e.finished_s) for e in r.explanations()}
            assert [e.id for e in r.explanations(open_only=True)] == [other]
        assert states == {
            queued: (ExplainState.CANCELLED, "the policy is off", T + 2),
            ended: (ExplainState.DONE, "", T + 1),
            other: (ExplainState.QUEUED, "", None),
        }
    finally:
        storage.close()
