"""Results in SQLite: one row per judged submission (``runs``) and one per test (``tests``), plus one per
fuzzed submission (``fuzz``, `judge grade --fuzz N`). WAL mode.

A run is identified by its ``RunKey``: contestant, problem, the submission's content hash, the hash of what
can change a verdict in and outside the problem package, the judge version and the language's toolchain.
Each run is written with its tests in one transaction, so a
``judge grade`` killed at any moment leaves whole runs or nothing, never half a run, and never two rows for
one key (a UNIQUE constraint). Only the thread that opened the store uses it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judge.results import CaseResult, GroupScore, SubmissionResult
from judge.verdict import Verdict

SCHEMA_VERSION = 2  # 2: toolchain_hash in the key

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    contestant TEXT NOT NULL,
    problem TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    package_hash TEXT NOT NULL,
    judge_version TEXT NOT NULL,
    toolchain_hash TEXT NOT NULL,
    source TEXT NOT NULL,
    language TEXT NOT NULL,
    verdict TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    time_s REAL NOT NULL,
    memory_kib INTEGER NOT NULL,
    metric REAL,
    metric_name TEXT,
    compile_message TEXT NOT NULL,
    groups_json TEXT NOT NULL,
    seeds_json TEXT NOT NULL,
    sandbox_warnings_json TEXT NOT NULL,
    judged_at TEXT NOT NULL,
    duration_s REAL NOT NULL,
    UNIQUE (contestant, problem, source_hash, package_hash, judge_version, toolchain_hash)
);
CREATE TABLE IF NOT EXISTS tests (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    name TEXT NOT NULL,
    grp TEXT NOT NULL,
    verdict TEXT NOT NULL,
    score REAL NOT NULL,
    fraction REAL NOT NULL,
    time_s REAL NOT NULL,
    wall_time_s REAL NOT NULL,
    memory_kib INTEGER NOT NULL,
    message TEXT NOT NULL,
    metric REAL,
    transcript TEXT NOT NULL,
    passes INTEGER NOT NULL,
    skipped INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
);
CREATE INDEX IF NOT EXISTS runs_by_submission ON runs (contestant, problem);
CREATE TABLE IF NOT EXISTS fuzz (
    id INTEGER PRIMARY KEY,
    contestant TEXT NOT NULL,
    problem TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    package_hash TEXT NOT NULL,
    judge_version TEXT NOT NULL,
    toolchain_hash TEXT NOT NULL,
    fuzz_version TEXT NOT NULL,
    examples INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    outcome_json TEXT NOT NULL,
    fuzzed_at TEXT NOT NULL,
    duration_s REAL NOT NULL,
    UNIQUE (contestant, problem, source_hash, package_hash, judge_version, toolchain_hash, fuzz_version, examples, seed)
);
"""


class StoreError(Exception):
    """The database cannot be opened or is not ours. One line, for the organizer."""


class OldSchema(StoreError):
    """The database was written by an older judge (its results are keyed differently: none would be reused)."""


@dataclass(frozen=True)
class RunKey:
    contestant: str
    problem: str
    source_hash: str
    package_hash: str  # what in and outside the package can change a verdict (packagedeps.verdict_hash)
    judge_version: str  # the judging code, its interpreter and the kind of sandbox (schedule.judge_version)
    toolchain_hash: str = ""  # the language's definition and toolchain version (fingerprint.Fingerprints)


@dataclass(frozen=True)
class FuzzKey:
    """A fuzzing outcome is reused only for the same submission, package, judge, fuzzer, N and seed."""

    run: RunKey
    fuzz_version: str  # the fuzzer's code and Hypothesis' version (see grade.fuzzing.fuzz_version)
    examples: int
    seed: int


@dataclass(frozen=True)
class StoredFuzz:
    id: int
    key: FuzzKey
    source: str  # relative to the contest folder
    status: str  # a judge.fuzz.FuzzStatus value
    outcome: dict[str, Any]  # FuzzOutcome.to_json()
    fuzzed_at: str  # ISO 8601, UTC
    duration_s: float


@dataclass(frozen=True)
class StoredRun:
    id: int
    key: RunKey
    source: str  # relative to the contest folder: "<contestant>/<file>"
    result: SubmissionResult
    seeds: dict[str, Any]  # what randomness the run depended on (see schedule.seeds_of)
    judged_at: str  # ISO 8601, UTC
    duration_s: float  # wall time the judging took (for scheduling the next run)


_RUN_COLUMNS = (
    "id, contestant, problem, source_hash, package_hash, judge_version, toolchain_hash, source, language, verdict, "
    "score, max_score, time_s, memory_kib, metric, metric_name, compile_message, groups_json, seeds_json, "
    "sandbox_warnings_json, judged_at, duration_s"
)
_FUZZ_COLUMNS = (
    "id, contestant, problem, source_hash, package_hash, judge_version, toolchain_hash, fuzz_version, examples, seed, "
    "source, status, outcome_json, fuzzed_at, duration_s"
)
_KEY_WHERE = (
    "contestant=? AND problem=? AND source_hash=? AND package_hash=? AND judge_version=? AND toolchain_hash=?"
)
_TEST_COLUMNS = (
    "name, grp, verdict, score, fraction, time_s, wall_time_s, memory_kib, message, metric, transcript, "
    "passes, skipped"
)


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self._db.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
                )
            elif row[0] != str(SCHEMA_VERSION):
                self._db.close()
                raise OldSchema(f"{path}: written by an older judge (schema {row[0]}, now {SCHEMA_VERSION})")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: not a usable SQLite database ({exc})") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def save(
        self, key: RunKey, source: str, result: SubmissionResult, seeds: dict[str, Any], duration_s: float
    ) -> int:
        """Store one judged submission with all its tests, atomically; replaces a run with the same key."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                f"DELETE FROM runs WHERE {_KEY_WHERE}",
                _key_tuple(key),
            )
            cur = db.execute(
                f"INSERT INTO runs ({_RUN_COLUMNS.removeprefix('id, ')}) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    *_key_tuple(key),
                    source,
                    result.language,
                    result.verdict.value,
                    result.score,
                    result.max_score,
                    result.time_s,
                    result.memory_kib,
                    result.metric,
                    result.metric_name,
                    result.compile_message,
                    json.dumps([[g.name, g.score, g.max_score, g.verdict.value] for g in result.groups]),
                    json.dumps(seeds, sort_keys=True),
                    json.dumps(list(result.sandbox_warnings)),
                    datetime.now(UTC).isoformat(timespec="seconds"),
                    duration_s,
                ),
            )
            run_id = int(cur.lastrowid or 0)
            scores = result.test_scores or tuple(0.0 for _ in result.tests)
            db.executemany(
                f"INSERT INTO tests (run_id, idx, {_TEST_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        run_id,
                        i,
                        t.name,
                        t.group,
                        t.verdict.value,
                        s,
                        t.fraction,
                        t.time_s,
                        t.wall_time_s,
                        t.memory_kib,
                        t.message,
                        t.metric,
                        t.transcript,
                        t.passes,
                        int(t.skipped),
                    )
                    for i, (t, s) in enumerate(zip(result.tests, scores, strict=True))
                ],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return run_id

    def save_fuzz(
        self, key: FuzzKey, source: str, status: str, outcome: dict[str, Any], duration_s: float
    ) -> int:
        """Store one fuzzing outcome (one row, one statement: atomic); replaces one with the same key."""
        cur = self._db.execute(
            f"INSERT OR REPLACE INTO fuzz ({_FUZZ_COLUMNS.removeprefix('id, ')}) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                *_fuzz_key_tuple(key),
                source,
                status,
                json.dumps(outcome, sort_keys=True),
                datetime.now(UTC).isoformat(timespec="seconds"),
                duration_s,
            ),
        )
        return int(cur.lastrowid or 0)

    # ------------------------------------------------------------------ reading

    def lookup(self, key: RunKey) -> StoredRun | None:
        row = self._db.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE {_KEY_WHERE}",
            _key_tuple(key),
        ).fetchone()
        return None if row is None else self._stored(row)

    def runs(self) -> Iterator[StoredRun]:
        """Every stored run, oldest first."""
        rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id").fetchall()
        for row in rows:
            yield self._stored(row)

    def last_durations(self) -> dict[tuple[str, str], float]:
        """How long the latest stored run of each (contestant, problem) took: the scheduler's estimate."""
        rows = self._db.execute("SELECT contestant, problem, duration_s FROM runs ORDER BY id").fetchall()
        return {(c, p): float(d) for c, p, d in rows}

    def lookup_fuzz(self, key: FuzzKey) -> StoredFuzz | None:
        row = self._db.execute(
            f"SELECT {_FUZZ_COLUMNS} FROM fuzz WHERE {_KEY_WHERE} AND fuzz_version=? AND examples=? AND seed=?",
            _fuzz_key_tuple(key),
        ).fetchone()
        if row is None:
            return None
        run_id, c, p, src, pkg, version, tools, fuzz_version, examples, seed, source, status, doc, at, dur = row
        fkey = FuzzKey(RunKey(c, p, src, pkg, version, tools), fuzz_version, int(examples), int(seed))
        return StoredFuzz(run_id, fkey, source, status, json.loads(doc), at, float(dur))

    def fuzz_count(self) -> int:
        """Rows in the ``fuzz`` table."""
        return int(self._db.execute("SELECT COUNT(*) FROM fuzz").fetchone()[0])

    def counts(self) -> tuple[int, int]:
        """(runs, tests) rows in the database."""
        runs = self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        tests = self._db.execute("SELECT COUNT(*) FROM tests").fetchone()[0]
        return int(runs), int(tests)

    def _stored(self, row: tuple[Any, ...]) -> StoredRun:
        (
            run_id,
            contestant,
            problem,
            src_hash,
            pkg_hash,
            version,
            tools_hash,
            source,
            language,
            verdict,
            score,
            max_score,
            time_s,
            memory_kib,
            metric,
            metric_name,
            compile_message,
            groups_json,
            seeds_json,
            warnings_json,
            judged_at,
            duration_s,
        ) = row
        test_rows = self._db.execute(
            f"SELECT {_TEST_COLUMNS} FROM tests WHERE run_id=? ORDER BY idx", (run_id,)
        ).fetchall()
        tests = tuple(
            CaseResult(
                name=name,
                group=grp,
                verdict=Verdict(v),
                fraction=fraction,
                time_s=t_s,
                wall_time_s=wall,
                memory_kib=mem,
                message=message,
                metric=t_metric,
                transcript=transcript,
                passes=passes,
                skipped=bool(skipped),
            )
            for (
                name,
                grp,
                v,
                _s,
                fraction,
                t_s,
                wall,
                mem,
                message,
                t_metric,
                transcript,
                passes,
                skipped,
            ) in test_rows
        )
        result = SubmissionResult(
            problem=problem,
            source=source,
            language=language,
            verdict=Verdict(verdict),
            score=score,
            max_score=max_score,
            time_s=time_s,
            memory_kib=memory_kib,
            compile_message=compile_message,
            tests=tests,
            test_scores=tuple(float(r[3]) for r in test_rows),
            groups=tuple(GroupScore(n, s, m, Verdict(v)) for n, s, m, v in json.loads(groups_json)),
            metric=metric,
            metric_name=metric_name,
            sandbox_warnings=tuple(json.loads(warnings_json)),
        )
        key = RunKey(contestant, problem, src_hash, pkg_hash, version, tools_hash)
        return StoredRun(run_id, key, source, result, json.loads(seeds_json), judged_at, duration_s)


def _key_tuple(key: RunKey) -> tuple[str, str, str, str, str, str]:
    return (key.contestant, key.problem, key.source_hash, key.package_hash, key.judge_version, key.toolchain_hash)


def _fuzz_key_tuple(key: FuzzKey) -> tuple[str, str, str, str, str, str, str, int, int]:
    return (*_key_tuple(key.run), key.fuzz_version, key.examples, key.seed)
