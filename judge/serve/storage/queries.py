"""The queries of `judge serve`'s storage, for both engines (storage/__init__.py's Protocols): ``SqlReader`` and
``SqlWriter`` over a ``Conn`` (dialect.py: sqlite3's connection, or storage/postgres.py's), every statement
parameterized, in the common dialect that dialect.py turns into PostgreSQL's. Opening the database and its
transactions are each engine's own: storage/sqlite.py, storage/postgres.py."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from judge.serve.model.contest import Team
from judge.serve.model.records import (
    Audience,
    AwardEdit,
    ClarificationRecord,
    Counted,
    Counterexample,
    EventRecord,
    FuzzJobRecord,
    FuzzState,
    JudgementOutcome,
    JudgementRecord,
    LiveAccount,
    NewClarification,
    NewEvent,
    NewRun,
    NewSubmission,
    PrintRecord,
    QueuedJob,
    ReviewRecord,
    RunRecord,
    Scope,
    SubmissionRecord,
)
from judge.serve.storage import awards as award_rows
from judge.serve.storage import clarifications as clars
from judge.serve.storage import fuzz_jobs, live
from judge.serve.storage import fuzzing as fuzz_rows
from judge.serve.storage.activity import ActivityReads
from judge.serve.storage.dialect import Conn
from judge.serve.storage.explanations import ExplainReads, ExplainWrites
from judge.serve.storage.jobs import JobReads, JobWrites
from judge.serve.storage.lti import LtiReads, LtiWrites
from judge.serve.storage.people import PeopleReads, PeopleWrites
from judge.serve.storage.previews import PreviewReads, PreviewWrites
from judge.serve.storage.rows import (
    JUDGEMENT_COLUMNS,
    JUDGEMENT_COLUMNS_AS_J,
    RUN_SELECT,
    SUBMISSION_COLUMNS,
    Where,
    event_record,
    judgement_record,
    run_record,
    submission_record,
)
from judge.serve.storage.run_details import RunDetailReads, RunDetailWrites
from judge.serve.storage.similarity import SimilarityReads, SimilarityWrites
from judge.serve.storage.versions import VersionReads, VersionWrites


class SqlReader(
    JobReads,
    PeopleReads,
    VersionReads,
    PreviewReads,
    SimilarityReads,
    RunDetailReads,
    ActivityReads,
    ExplainReads,
    LtiReads,
):
    def __init__(self, conn: Conn) -> None:
        self._c = conn

    @property
    def conn(self) -> Conn:
        """The transaction's connection: for storage/copy.py's whole tables only (services use the methods)."""
        return self._c

    def get_meta(self, key: str) -> str | None:
        row = self._c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def submissions(
        self,
        *,
        ids: Collection[int] | None = None,
        team_id: str | None = None,
        problem_id: str | None = None,
        language_id: str | None = None,
    ) -> list[SubmissionRecord]:
        w = Where().among("s.id", ids).equal("s.team_id", team_id).equal("s.problem_id", problem_id)
        w.equal("s.language_id", language_id)
        rows = self._c.execute(f"SELECT {SUBMISSION_COLUMNS} FROM submissions s WHERE {w.sql} ORDER BY s.id", w.args)
        return [submission_record(r) for r in rows]

    def submission_files(self, submission_id: int) -> bytes | None:
        row = self._c.execute("SELECT files FROM submissions WHERE id = ?", (submission_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def judgements(
        self,
        *,
        ids: Collection[int] | None = None,
        submission_ids: Collection[int] | None = None,
        current: bool | None = None,
        verdict: str | None = None,
        held: bool | None = False,
        rejudging_id: int | None = None,
        awaiting: bool | None = None,
    ) -> list[JudgementRecord]:
        w = Where().among("j.id", ids).among("j.submission_id", submission_ids)
        w.equal("j.current", None if current is None else int(current)).equal("j.verdict", verdict)
        w.equal("j.held", None if held is None else int(held)).equal("j.rejudging_id", rejudging_id)
        w.equal("j.awaiting", None if awaiting is None else int(awaiting))
        rows = self._c.execute(f"SELECT {JUDGEMENT_COLUMNS} FROM judgements j WHERE {w.sql} ORDER BY j.id", w.args)
        return [judgement_record(r) for r in rows]

    def runs(
        self,
        *,
        ids: Collection[int] | None = None,
        judgement_ids: Collection[int] | None = None,
        held: bool | None = False,
    ) -> list[RunRecord]:
        w = Where().among("r.id", ids).among("r.judgement_id", judgement_ids)
        w.equal("coalesce(j.held, 0)", None if held is None else int(held))
        return [run_record(r) for r in self._c.execute(f"{RUN_SELECT} WHERE {w.sql} ORDER BY r.id", w.args)]

    def counted(self, window: tuple[float, float] | None) -> list[Counted]:
        where, args = ("s.time_s >= ? AND s.time_s < ?", window) if window is not None else ("1 = 1", ())
        rows = self._c.execute(
            f"SELECT {SUBMISSION_COLUMNS}, {JUDGEMENT_COLUMNS_AS_J} "
            "FROM submissions s LEFT JOIN judgements j "
            "ON j.submission_id = s.id AND j.current = 1 AND j.end_s IS NOT NULL "
            f"WHERE {where} AND NOT EXISTS (SELECT 1 FROM ignored_submissions i WHERE i.submission_id = s.id) "
            "ORDER BY s.time_s, s.id",
            args,
        )
        return [Counted(submission_record(r), None if r["j_id"] is None else judgement_record(r, "j_")) for r in rows]

    def latest_submission_s(self, until_s: float) -> float | None:
        row = self._c.execute("SELECT max(time_s) FROM submissions WHERE time_s <= ?", (until_s,)).fetchone()
        return None if row[0] is None else float(row[0])

    def recent_submissions(self, team_id: str, since_s: float) -> tuple[int, float | None]:
        row = self._c.execute(
            "SELECT count(*), min(time_s) FROM submissions WHERE team_id = ? AND time_s > ?", (team_id, since_s)
        ).fetchone()
        return int(row[0]), row[1]

    def stale_judgements(self, problem_id: str, package_hash: str) -> int:
        row = self._c.execute(
            "SELECT count(*) FROM judgements j JOIN submissions s ON s.id = j.submission_id "
            "WHERE s.problem_id = ? AND j.current = 1 AND j.end_s IS NOT NULL AND j.package_hash != ?",
            (problem_id, package_hash),
        ).fetchone()
        return int(row[0])

    def events(self, after: int, limit: int) -> list[EventRecord]:
        rows = self._c.execute("SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?", (after, limit))
        return [event_record(r) for r in rows]

    def event_audiences(self, after: int, limit: int) -> list[tuple[int, Audience]]:
        rows = self._c.execute(
            "SELECT id, scope, team_id, frozen, team_ids, staff FROM events WHERE id > ? ORDER BY id LIMIT ?",
            (after, limit),
        ).fetchall()
        made: dict[tuple[str, str | None, int, str, int], Audience] = {}  # few distinct audiences: one record each
        out = []
        for r in rows:
            key = (r[1], r[2], r[3], r[4], r[5])
            audience = made.get(key)
            if audience is None:
                audience = made[key] = Audience(Scope(r[1]), r[2], bool(r[3]), tuple(json.loads(r[4])), bool(r[5]))
            out.append((int(r[0]), audience))
        return out

    def latest_event(self) -> int:
        return int(self._c.execute("SELECT max(id) FROM events").fetchone()[0] or 0)

    def latest_events_of(self, kinds: Sequence[str]) -> tuple[int, ...]:
        # one scalar subquery per type: each is the index's last entry (a GROUP BY would read them all)
        newest = ", ".join(["(SELECT max(id) FROM events WHERE type = ?)"] * len(kinds))
        row = self._c.execute(f"SELECT {newest}", tuple(kinds)).fetchone()
        return tuple(int(last or 0) for last in row)

    def last_event(self, kind: str, obj_id: str | None) -> EventRecord | None:
        row = self._c.execute(
            "SELECT * FROM events WHERE type = ? AND obj_id IS ? ORDER BY id DESC LIMIT 1", (kind, obj_id)
        ).fetchone()
        return None if row is None else event_record(row)

    def event_objects(self, kind: str) -> list[str]:
        rows = self._c.execute("SELECT DISTINCT obj_id FROM events WHERE type = ? AND obj_id IS NOT NULL", (kind,))
        return [str(r[0]) for r in rows]

    def clarifications(
        self,
        *,
        ids: Collection[int] | None = None,
        public_ids: Collection[str] | None = None,
        after_id: int | None = None,
    ) -> list[ClarificationRecord]:
        return clars.clarifications(self._c, ids=ids, public_ids=public_ids, after_id=after_id)

    def unanswered_questions(self) -> int:
        return clars.unanswered_questions(self._c)

    def recent_questions(self, team_id: str, since_s: float) -> tuple[int, float | None]:
        return clars.recent_questions(self._c, team_id, since_s)

    def clarifications_read(self, account_id: str) -> int:
        return clars.clarifications_read(self._c, account_id)

    def award_edits(self) -> list[AwardEdit]:
        return award_rows.award_edits(self._c)

    def counterexamples(self, problem_id: str | None = None) -> list[Counterexample]:
        return fuzz_rows.counterexamples(self._c, problem_id)

    def counterexample(self, counterexample_id: int) -> Counterexample | None:
        return fuzz_rows.counterexample(self._c, counterexample_id)

    def counterexample_problems(self, after_id: int) -> dict[int, str]:
        return fuzz_rows.counterexample_problems(self._c, after_id)

    def fuzz_jobs(self, problem_id: str | None = None) -> list[FuzzJobRecord]:
        return fuzz_jobs.fuzz_jobs(self._c, problem_id)

    def fuzz_job(self, job_id: int) -> FuzzJobRecord | None:
        return fuzz_jobs.fuzz_job(self._c, job_id)

    def open_fuzz_jobs(
        self, limit: int, exclude: Collection[int] = (), held: Collection[str] = ()
    ) -> list[FuzzJobRecord]:
        return fuzz_jobs.open_fuzz_jobs(self._c, limit, exclude, held)

    def live_teams(self) -> list[Team]:
        return live.live_teams(self._c)

    def live_accounts(self) -> list[LiveAccount]:
        return live.live_accounts(self._c)

    def live_objects(self, kind: str) -> list[dict[str, Any]]:
        return live.live_objects(self._c, kind)

    def job_queue(self) -> list[QueuedJob]:
        return live.job_queue(self._c)

    def balloons_done(self) -> set[int]:
        return live.balloons_done(self._c)

    def reviews(self, judgement_ids: Collection[int]) -> list[ReviewRecord]:
        return live.reviews(self._c, judgement_ids)

    def prints(self, team_id: str | None = None) -> list[PrintRecord]:
        return live.prints(self._c, team_id)

    def recent_prints(self, username: str, since_s: float) -> int:
        return live.recent_prints(self._c, username, since_s)

    def next_print(self, statuses: Collection[str]) -> PrintRecord | None:
        return live.next_print(self._c, statuses)


class SqlWriter(
    SqlReader,
    JobWrites,
    PeopleWrites,
    VersionWrites,
    PreviewWrites,
    SimilarityWrites,
    RunDetailWrites,
    ExplainWrites,
    LtiWrites,
):
    def set_meta(self, key: str, value: str) -> None:
        self._c.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def add_submission(self, new: NewSubmission) -> SubmissionRecord:
        cur = self._c.execute(
            "INSERT INTO submissions (team_id, account_id, problem_id, language_id, entry_point, time_s, files) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (new.team_id, new.account_id, new.problem_id, new.language_id, new.entry_point, new.time_s, new.files_zip),
        )
        return SubmissionRecord(
            int(cur.lastrowid or 0),
            new.team_id,
            new.account_id,
            new.problem_id,
            new.language_id,
            new.entry_point,
            new.time_s,
        )

    def _next_ordinal(self, submission_id: int) -> int:
        row = self._c.execute(
            "SELECT max(ordinal) FROM judgements WHERE submission_id = ? AND ordinal > 0", (submission_id,)
        )
        return int(row.fetchone()[0] or 0) + 1

    def add_judgement(
        self, submission_id: int, current: bool, start_s: float, *, held: bool = False, rejudging_id: int | None = None
    ) -> JudgementRecord:
        ordinal = 0 if held else self._next_ordinal(submission_id)
        cur = self._c.execute(
            "INSERT INTO judgements (submission_id, current, start_s, ordinal, rejudging_id, held) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (submission_id, int(current and not held), start_s, ordinal, rejudging_id, int(held)),
        )
        judgement_id = int(cur.lastrowid or 0)
        if held:  # numbered when its set is applied (release_judgement); until then a number of its own, < 1
            ordinal = -judgement_id
            self._c.execute("UPDATE judgements SET ordinal = ? WHERE id = ?", (ordinal, judgement_id))
        return JudgementRecord(
            judgement_id,
            submission_id,
            current and not held,
            start_s,
            ordinal=ordinal,
            rejudging_id=rejudging_id,
            held=held,
        )

    def release_judgement(self, judgement_id: int) -> None:
        (submission_id,) = self._c.execute(
            "SELECT submission_id FROM judgements WHERE id = ?", (judgement_id,)
        ).fetchone()
        self._c.execute(
            "UPDATE judgements SET held = 0, ordinal = ? WHERE id = ?",
            (self._next_ordinal(submission_id), judgement_id),
        )

    def set_current(self, judgement_id: int, current: bool) -> None:
        self._c.execute("UPDATE judgements SET current = ? WHERE id = ?", (int(current), judgement_id))

    def set_awaiting(self, judgement_id: int, awaiting: bool) -> None:
        self._c.execute("UPDATE judgements SET awaiting = ? WHERE id = ?", (int(awaiting), judgement_id))

    def finish_judgement(self, judgement_id: int, outcome: JudgementOutcome) -> None:
        o = outcome
        self._c.execute(
            "UPDATE judgements SET current = ?, end_s = ?, verdict = ?, judgement_type = ?, score = ?, "
            "max_score = ?, max_run_time = ?, memory_kib = ?, metric = ?, metric_name = ?, compile_message = ?, "
            "package_hash = ?, awaiting = ? WHERE id = ?",
            (
                int(o.current),
                o.end_s,
                o.verdict,
                o.judgement_type,
                o.score,
                o.max_score,
                o.max_run_time,
                o.memory_kib,
                o.metric,
                o.metric_name,
                o.compile_message,
                o.package_hash,
                int(o.awaiting),
                judgement_id,
            ),
        )

    def add_run(self, new: NewRun) -> RunRecord:
        n = new
        cur = self._c.execute(
            "INSERT INTO runs (judgement_id, ordinal, name, verdict, judgement_type, time_s, run_time, "
            "wall_time_s, memory_kib, score, message, transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                n.judgement_id,
                n.ordinal,
                n.name,
                n.verdict,
                n.judgement_type,
                n.time_s,
                n.run_time,
                n.wall_time_s,
                n.memory_kib,
                n.score,
                n.message,
                n.transcript,
            ),
        )
        row = self._c.execute(f"{RUN_SELECT} WHERE r.id = ?", (cur.lastrowid,)).fetchone()
        return run_record(row)

    def add_event(self, new: NewEvent) -> int:
        a = new.audience
        cur = self._c.execute(
            "INSERT INTO events (type, obj_id, data, scope, team_id, frozen, time_s, team_ids, staff) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.type,
                new.obj_id,
                new.data,
                a.scope.value,
                a.team_id,
                int(a.frozen),
                new.time_s,
                json.dumps(list(a.team_ids)),
                int(a.staff),
            ),
        )
        return int(cur.lastrowid or 0)

    def add_clarification(self, new: NewClarification) -> ClarificationRecord:
        return clars.add_clarification(self._c, new)

    def mark_clarifications_read(self, account_id: str, last_id: int) -> None:
        clars.mark_clarifications_read(self._c, account_id, last_id)

    def put_award_edit(self, edit: AwardEdit) -> None:
        award_rows.put_award_edit(self._c, edit)

    def add_counterexample(self, c: Counterexample) -> int:
        return fuzz_rows.add_counterexample(self._c, c)

    def set_added_as(self, counterexample_id: int, test_name: str) -> None:
        fuzz_rows.set_added_as(self._c, counterexample_id, test_name)

    def enqueue_fuzz(self, submission_id: int, judgement_id: int, package_hash: str, now: float) -> int | None:
        return fuzz_jobs.enqueue_fuzz(self._c, submission_id, judgement_id, package_hash, now)

    def start_fuzz(self, job_id: int) -> FuzzJobRecord | None:
        return fuzz_jobs.start_fuzz(self._c, job_id)

    def fuzz_progress(self, job_id: int, examples_done: int, spent_s: float) -> None:
        fuzz_jobs.fuzz_progress(self._c, job_id, examples_done, spent_s)

    def finish_fuzz(self, job: FuzzJobRecord, state: FuzzState, message: str, now: float) -> bool:
        return fuzz_jobs.finish_fuzz(self._c, job, state, message, now)

    def cancel_fuzz(self, submission_id: int, message: str, now: float) -> int:
        return fuzz_jobs.cancel_fuzz(self._c, submission_id, message, now)

    def put_live_team(self, team: Team, now: float) -> None:
        live.put_live_team(self._c, team, now)

    def put_live_account(self, account: LiveAccount) -> None:
        live.put_live_account(self._c, account)

    def put_live_object(self, kind: str, obj: Mapping[str, Any], now: float) -> None:
        live.put_live_object(self._c, kind, obj, now)

    def add_print(self, p: PrintRecord) -> PrintRecord:
        return live.add_print(self._c, p)

    def set_print_status(self, print_id: int, status: str) -> None:
        live.set_print_status(self._c, print_id, status)

    def set_print_delivered(self, print_id: int, delivered_s: float | None) -> bool:
        return live.set_print_delivered(self._c, print_id, delivered_s)

    def put_review(self, review: ReviewRecord) -> None:
        live.put_review(self._c, review)

    def set_balloon_done(self, submission_id: int, done: bool, now: float) -> None:
        live.set_balloon_done(self._c, submission_id, done, now)

    def set_ignored(self, submission_id: int, ignored: bool, now: float) -> None:
        live.set_ignored(self._c, submission_id, ignored, now)
