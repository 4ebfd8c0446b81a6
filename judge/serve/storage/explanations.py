"""Counterexamples for rejected submissions in the SQLite storage (issue 46; storage/sqlite.py's reader and
writer inherit these): a search per rejected judgement to explain, with the policy it was queued under, its
progress across the runs it was given, its result (the engine's Explanation as JSON), whether the team was
shown it (the per-team limit). Every statement parameterized."""

from __future__ import annotations

from collections.abc import Collection

from judge.serve.model.explanations import (
    OPEN_EXPLAIN,
    ExplainRecord,
    ExplainState,
    policy_from_json,
    result_from_json,
)
from judge.serve.storage.dialect import Conn, Row

SELECT = (
    "SELECT e.id, e.submission_id, e.judgement_id, e.package_hash, e.verdict, e.policy, e.state, e.examples_done, "
    "e.spent_s, e.withheld, e.attempts, e.result, e.team_shown, e.message, e.queued_s, e.finished_s, "
    "s.problem_id, s.team_id FROM explanations e JOIN submissions s ON s.id = e.submission_id"
)
OPEN = tuple(s.value for s in OPEN_EXPLAIN)
IS_OPEN = f"state IN ({', '.join('?' * len(OPEN))})"  # with OPEN as its arguments


def _record(r: Row) -> ExplainRecord:
    return ExplainRecord(
        id=int(r["id"]),
        submission_id=int(r["submission_id"]),
        judgement_id=int(r["judgement_id"]),
        package_hash=r["package_hash"],
        verdict=r["verdict"],
        policy=policy_from_json(r["policy"]),
        state=ExplainState(r["state"]),
        examples_done=int(r["examples_done"]),
        spent_s=float(r["spent_s"]),
        withheld=int(r["withheld"]),
        attempts=int(r["attempts"]),
        result=result_from_json(r["result"]),
        team_shown=bool(r["team_shown"]),
        message=r["message"],
        queued_s=float(r["queued_s"]),
        finished_s=r["finished_s"],
        problem_id=r["problem_id"],
        team_id=r["team_id"],
    )


def _in(column: str, values: Collection[object]) -> str:
    return f"{column} IN ({', '.join('?' * len(values))})"


class ExplainReads:
    """The Reader's queries of this module."""

    _c: Conn

    def explanations(
        self, *, submission_ids: Collection[int] | None = None, problem_id: str | None = None, open_only: bool = False
    ) -> list[ExplainRecord]:
        """The searches (of those submissions, or that problem, or all; ``open_only``: queued or running), newest
        first."""
        where, args = ["1 = 1"], list[object]()
        if open_only:
            where.append(f"e.{IS_OPEN}")
            args.extend(OPEN)
        if submission_ids is not None:
            if not submission_ids:
                return []
            where.append(_in("e.submission_id", submission_ids))
            args.extend(submission_ids)
        if problem_id is not None:
            where.append("s.problem_id = ?")
            args.append(problem_id)
        rows = self._c.execute(f"{SELECT} WHERE {' AND '.join(where)} ORDER BY e.id DESC", args)
        return [_record(r) for r in rows]

    def explanation(self, explain_id: int) -> ExplainRecord | None:
        row = self._c.execute(f"{SELECT} WHERE e.id = ?", (explain_id,)).fetchone()
        return None if row is None else _record(row)

    def open_explanations(
        self, limit: int, exclude: Collection[int] = (), held: Collection[str] = ()
    ) -> list[ExplainRecord]:
        """Queued or running searches (a running one not in ``exclude`` was left so by a stopped server),
        oldest first, none of the ``held`` problems', none of an ignored submission."""
        where, args = f"e.{IS_OPEN}", list[object](OPEN)
        if exclude:
            where += f" AND NOT {_in('e.id', exclude)}"
            args.extend(exclude)
        if held:
            where += f" AND NOT {_in('s.problem_id', held)}"
            args.extend(held)
        rows = self._c.execute(
            f"{SELECT} WHERE {where} "
            "AND NOT EXISTS (SELECT 1 FROM ignored_submissions i WHERE i.submission_id = e.submission_id) "
            "ORDER BY e.id LIMIT ?",
            (*args, limit),
        )
        return [_record(r) for r in rows]

    def team_shown_explanations(self, team_id: str) -> int:
        """How many counterexamples the team was shown (the per-team limit counts them, cancelled ones too)."""
        row = self._c.execute(
            "SELECT count(*) FROM explanations e JOIN submissions s ON s.id = e.submission_id "
            "WHERE s.team_id = ? AND e.team_shown = 1",
            (team_id,),
        ).fetchone()
        return int(row[0])


class ExplainWrites(ExplainReads):
    """The Writer's changes of this module."""

    def enqueue_explanation(
        self, submission_id: int, judgement_id: int, package_hash: str, verdict: str, policy: str, now: float
    ) -> int | None:
        """A queued search, unless the submission has one for that package already (open or ended, but not
        cancelled): a rejudge that stays rejected is not searched again. An open one of another package is
        cancelled (the new one replaces it). ``policy``: model/explanations.policy_json's."""
        row = self._c.execute(
            "SELECT 1 FROM explanations WHERE submission_id = ? AND package_hash = ? AND state != ?",
            (submission_id, package_hash, ExplainState.CANCELLED.value),
        ).fetchone()
        if row is not None:
            return None
        self._c.execute(
            f"UPDATE explanations SET state = ?, message = ?, finished_s = ? WHERE submission_id = ? AND {IS_OPEN}",
            (ExplainState.CANCELLED.value, "another version of the package", now, submission_id, *OPEN),
        )
        cur = self._c.execute(
            "INSERT INTO explanations (submission_id, judgement_id, package_hash, verdict, policy, state, queued_s) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (submission_id, judgement_id, package_hash, verdict, policy, ExplainState.QUEUED.value, now),
        )
        return int(cur.lastrowid or 0)

    def start_explanation(self, explain_id: int) -> ExplainRecord | None:
        """An open search becomes running, one attempt more; None when it is no longer open."""
        cur = self._c.execute(
            f"UPDATE explanations SET state = ?, attempts = attempts + 1 WHERE id = ? AND {IS_OPEN}",
            (ExplainState.RUNNING.value, explain_id, *OPEN),
        )
        return self.explanation(explain_id) if cur.rowcount else None

    def explanation_progress(self, explain_id: int, examples_done: int, spent_s: float, withheld: int) -> None:
        """A run gave its slot back before the budget was spent: queued again with what it has done."""
        self._c.execute(
            "UPDATE explanations SET state = ?, examples_done = ?, spent_s = ?, withheld = ? "
            f"WHERE id = ? AND {IS_OPEN}",
            (ExplainState.QUEUED.value, examples_done, spent_s, withheld, explain_id, *OPEN),
        )

    def finish_explanation(self, done: ExplainRecord, result: str, now: float) -> bool:
        """The search ends with ``done``'s examples, seconds, withheld count and ``team_shown``, and ``result``
        (the Explanation's JSON); False when it was no longer open (cancelled meanwhile)."""
        cur = self._c.execute(
            "UPDATE explanations SET state = ?, result = ?, team_shown = ?, examples_done = ?, spent_s = ?, "
            f"withheld = ?, finished_s = ? WHERE id = ? AND {IS_OPEN}",
            (
                ExplainState.DONE.value, result, int(done.team_shown), done.examples_done, done.spent_s,
                done.withheld, now, done.id, *OPEN,
            ),
        )  # fmt: skip
        return bool(cur.rowcount)

    def cancel_explanations(self, submission_id: int, message: str, now: float) -> int:
        """The submission's searches, open or ended, are cancelled (a rejudge that is no longer rejected);
        how many were not cancelled already."""
        cur = self._c.execute(
            "UPDATE explanations SET state = ?, message = ?, finished_s = coalesce(finished_s, ?) "
            "WHERE submission_id = ? AND state != ?",
            (ExplainState.CANCELLED.value, message, now, submission_id, ExplainState.CANCELLED.value),
        )
        return int(cur.rowcount)

    def cancel_open_explanations(self, explain_ids: Collection[int], message: str, now: float) -> int:
        """Those searches, if still open, are cancelled (the policy in force no longer searches them); how many."""
        if not explain_ids:
            return 0
        cur = self._c.execute(
            f"UPDATE explanations SET state = ?, message = ?, finished_s = ? WHERE {_in('id', explain_ids)} "
            f"AND {IS_OPEN}",
            (ExplainState.CANCELLED.value, message, now, *explain_ids, *OPEN),
        )
        return int(cur.rowcount)
