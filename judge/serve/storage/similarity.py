"""Similar submissions' reports and the jury's reviews of their pairs (issue 49; storage/sqlite.py's reader
and writer inherit these): every statement parameterized."""

from __future__ import annotations

import sqlite3

from judge.serve.model.similarity import PairReview, SimilarityRecord, SimilarityState

COLUMNS = "problem_id, state, requested_s, requested_by, computed_s, submissions, latest_submission_id, report, message"


def _record(r: sqlite3.Row) -> SimilarityRecord:
    return SimilarityRecord(
        r["problem_id"], SimilarityState(r["state"]), float(r["requested_s"]), r["requested_by"], r["computed_s"],
        int(r["submissions"]), int(r["latest_submission_id"]), r["report"], r["message"],
    )  # fmt: skip


class SimilarityReads:
    """The Reader's queries of this module."""

    _c: sqlite3.Connection

    def similarity_reports(self, *, with_report: bool = True) -> list[SimilarityRecord]:
        """Every problem's record, by problem id (``with_report`` False: without the report's JSON)."""
        columns = COLUMNS if with_report else COLUMNS.replace("report,", "NULL AS report,")
        return [_record(r) for r in self._c.execute(f"SELECT {columns} FROM similarity_reports ORDER BY problem_id")]

    def similarity_report(self, problem_id: str) -> SimilarityRecord | None:
        row = self._c.execute(
            f"SELECT {COLUMNS} FROM similarity_reports WHERE problem_id = ?", (problem_id,)
        ).fetchone()
        return None if row is None else _record(row)

    def latest_submission_ids(self) -> dict[str, int]:
        """Each problem's newest submission id (what an automatic report after the end must have covered)."""
        rows = self._c.execute("SELECT problem_id, max(id) AS latest FROM submissions GROUP BY problem_id")
        return {r["problem_id"]: int(r["latest"]) for r in rows}

    def similarity_reviews(self, problem_id: str) -> list[PairReview]:
        rows = self._c.execute(
            "SELECT problem_id, pair_key, username, note, time_s FROM similarity_reviews WHERE problem_id = ? "
            "ORDER BY time_s",
            (problem_id,),
        )
        return [PairReview(r["problem_id"], r["pair_key"], r["username"], r["note"], float(r["time_s"])) for r in rows]


class SimilarityWrites(SimilarityReads):
    """The Writer's changes of this module."""

    def request_similarity(self, problem_id: str, by: str, now: float) -> bool:
        """Queue the problem's report (again); False when it is queued or running already."""
        found = self.similarity_report(problem_id)
        if found is not None and found.state in (SimilarityState.QUEUED, SimilarityState.RUNNING):
            return False
        self._c.execute(
            "INSERT INTO similarity_reports (problem_id, state, requested_s, requested_by) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(problem_id) DO UPDATE SET state = excluded.state, requested_s = excluded.requested_s, "
            "requested_by = excluded.requested_by, message = ''",
            (problem_id, SimilarityState.QUEUED.value, now, by),
        )
        return True

    def set_similarity_state(self, problem_id: str, state: SimilarityState, message: str = "") -> None:
        self._c.execute(
            "UPDATE similarity_reports SET state = ?, message = ? WHERE problem_id = ?",
            (state.value, message, problem_id),
        )

    def store_similarity(self, problem_id: str, report: str, submissions: int, latest_id: int, now: float) -> None:
        self._c.execute(
            "UPDATE similarity_reports SET state = ?, report = ?, submissions = ?, latest_submission_id = ?, "
            "computed_s = ?, message = '' WHERE problem_id = ?",
            (SimilarityState.READY.value, report, submissions, latest_id, now, problem_id),
        )

    def put_pair_review(self, review: PairReview) -> None:
        self._c.execute(
            "INSERT INTO similarity_reviews (problem_id, pair_key, username, note, time_s) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(problem_id, pair_key) DO UPDATE SET username = excluded.username, note = excluded.note, "
            "time_s = excluded.time_s",
            (review.problem_id, review.pair_key, review.username, review.note, review.time_s),
        )
