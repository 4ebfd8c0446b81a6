"""Rows of the contest database as the typed records of model/records.py, and the parameterized ``WHERE``
builder: what storage/sqlite.py's queries share."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from typing import Any

from judge.serve.model.records import Audience, EventRecord, JudgementRecord, RunRecord, Scope, SubmissionRecord

SUBMISSION_COLUMNS = (
    "s.id, s.team_id, s.account_id, s.problem_id, s.language_id, s.entry_point, s.time_s, "
    "EXISTS (SELECT 1 FROM ignored_submissions i WHERE i.submission_id = s.id) AS ignored"
)
JUDGEMENT_FIELDS = (
    "id submission_id current start_s end_s verdict judgement_type score max_score max_run_time memory_kib metric "
    "metric_name compile_message package_hash ordinal rejudging_id held awaiting"
).split()
# a run, with its judgement's submission and ordinal
RUN_SELECT = (
    "SELECT r.*, coalesce(j.submission_id, 0) AS j_submission_id, coalesce(j.ordinal, 1) AS j_ordinal "
    "FROM runs r LEFT JOIN judgements j ON j.id = r.judgement_id"
)
JUDGEMENT_COLUMNS = ", ".join(f"j.{f}" for f in JUDGEMENT_FIELDS)
JUDGEMENT_COLUMNS_AS_J = ", ".join(f"j.{f} AS j_{f}" for f in JUDGEMENT_FIELDS)  # beside a submission's


def submission_record(r: sqlite3.Row, prefix: str = "") -> SubmissionRecord:
    return SubmissionRecord(
        id=int(r[prefix + "id"]),
        team_id=r[prefix + "team_id"],
        account_id=r[prefix + "account_id"],
        problem_id=r[prefix + "problem_id"],
        language_id=r[prefix + "language_id"],
        entry_point=r[prefix + "entry_point"],
        time_s=float(r[prefix + "time_s"]),
        ignored=bool(r[prefix + "ignored"]) if prefix + "ignored" in r.keys() else False,
    )


def judgement_record(r: sqlite3.Row, prefix: str = "") -> JudgementRecord:
    return JudgementRecord(
        id=int(r[prefix + "id"]),
        submission_id=int(r[prefix + "submission_id"]),
        current=bool(r[prefix + "current"]),
        start_s=float(r[prefix + "start_s"]),
        end_s=r[prefix + "end_s"],
        verdict=r[prefix + "verdict"],
        judgement_type=r[prefix + "judgement_type"],
        score=r[prefix + "score"],
        max_score=r[prefix + "max_score"],
        max_run_time=r[prefix + "max_run_time"],
        memory_kib=r[prefix + "memory_kib"],
        metric=r[prefix + "metric"],
        metric_name=r[prefix + "metric_name"],
        compile_message=r[prefix + "compile_message"],
        package_hash=r[prefix + "package_hash"],
        ordinal=int(r[prefix + "ordinal"]),
        rejudging_id=r[prefix + "rejudging_id"],
        held=bool(r[prefix + "held"]),
        awaiting=bool(r[prefix + "awaiting"]),
    )


def run_record(r: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=int(r["id"]),
        judgement_id=int(r["judgement_id"]),
        ordinal=int(r["ordinal"]),
        name=r["name"],
        verdict=r["verdict"],
        judgement_type=r["judgement_type"],
        time_s=float(r["time_s"]),
        run_time=float(r["run_time"]),
        wall_time_s=float(r["wall_time_s"]),
        memory_kib=int(r["memory_kib"]),
        score=float(r["score"]),
        message=r["message"],
        transcript=r["transcript"],
        submission_id=int(r["j_submission_id"]),
        judgement_ordinal=int(r["j_ordinal"]),
    )


def event_record(r: sqlite3.Row) -> EventRecord:
    teams = tuple(json.loads(r["team_ids"]))
    audience = Audience(Scope(r["scope"]), r["team_id"], bool(r["frozen"]), teams, bool(r["staff"]))
    return EventRecord(int(r["id"]), r["type"], r["obj_id"], r["data"], audience, float(r["time_s"]))


class Where:
    """``column IN (...)`` / ``column = ?`` conditions, parameterized."""

    def __init__(self) -> None:
        self.parts: list[str] = ["1"]
        self.args: list[Any] = []

    def equal(self, column: str, value: object | None) -> Where:
        if value is not None:
            self.parts.append(f"{column} = ?")
            self.args.append(value)
        return self

    def among(self, column: str, values: Collection[Any] | None) -> Where:
        if values is not None:
            values = list(values)
            self.parts.append(f"{column} IN ({', '.join('?' * len(values))})" if values else "0")
            self.args.extend(values)
        return self

    @property
    def sql(self) -> str:
        return " AND ".join(self.parts)
