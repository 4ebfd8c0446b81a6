"""Results in SQLite: one row per judged submission (``runs``) and one per test (``tests``), plus one per
fuzzed submission (``fuzz``, `judge grade --fuzz N`) and one per rejected submission searched for a
counterexample (``explain``, `judge grade --explain`). WAL mode.

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

from judge.judging.results import CaseResult, GroupScore, SubmissionResult
from judge.judging.verdict import Verdict

SCHEMA_VERSION = 2  # 2: toolchain_hash in the key

# Each table's columns, declared once: the schema, the inserts and the reads are made from these.
KEY_COLUMNS = (
    ("contestant", "TEXT NOT NULL"),
    ("problem", "TEXT NOT NULL"),
    ("source_hash", "TEXT NOT NULL"),
    ("package_hash", "TEXT NOT NULL"),
    ("judge_version", "TEXT NOT NULL"),
    ("toolchain_hash", "TEXT NOT NULL"),
)
RUN_COLUMNS = (
    *KEY_COLUMNS,
    ("source", "TEXT NOT NULL"),
    ("language", "TEXT NOT NULL"),
    ("verdict", "TEXT NOT NULL"),
    ("score", "REAL NOT NULL"),
    ("max_score", "REAL NOT NULL"),
    ("time_s", "REAL NOT NULL"),
    ("memory_kib", "INTEGER NOT NULL"),
    ("metric", "REAL"),
    ("metric_name", "TEXT"),
    ("compile_message", "TEXT NOT NULL"),
    ("groups_json", "TEXT NOT NULL"),
    ("seeds_json", "TEXT NOT NULL"),
    ("sandbox_warnings_json", "TEXT NOT NULL"),
    ("judged_at", "TEXT NOT NULL"),
    ("duration_s", "REAL NOT NULL"),
)
TEST_COLUMNS = (
    ("run_id", "INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE"),
    ("idx", "INTEGER NOT NULL"),
    ("name", "TEXT NOT NULL"),
    ("grp", "TEXT NOT NULL"),
    ("verdict", "TEXT NOT NULL"),
    ("score", "REAL NOT NULL"),
    ("fraction", "REAL NOT NULL"),
    ("time_s", "REAL NOT NULL"),
    ("wall_time_s", "REAL NOT NULL"),
    ("memory_kib", "INTEGER NOT NULL"),
    ("message", "TEXT NOT NULL"),
    ("metric", "REAL"),
    ("transcript", "TEXT NOT NULL"),
    ("passes", "INTEGER NOT NULL"),
    ("skipped", "INTEGER NOT NULL"),
)
FUZZ_KEY_COLUMNS = (
    *KEY_COLUMNS,
    ("fuzz_version", "TEXT NOT NULL"),
    ("examples", "INTEGER NOT NULL"),
    ("seed", "INTEGER NOT NULL"),
)
FUZZ_COLUMNS = (
    *FUZZ_KEY_COLUMNS,
    ("source", "TEXT NOT NULL"),
    ("status", "TEXT NOT NULL"),
    ("outcome_json", "TEXT NOT NULL"),
    ("fuzzed_at", "TEXT NOT NULL"),
    ("duration_s", "REAL NOT NULL"),
)

EXPLAIN_KEY_COLUMNS = (
    *KEY_COLUMNS,
    ("explain_version", "TEXT NOT NULL"),
    ("examples", "INTEGER NOT NULL"),
    ("seconds", "REAL NOT NULL"),
    ("seed", "INTEGER NOT NULL"),
)
EXPLAIN_COLUMNS = (
    *EXPLAIN_KEY_COLUMNS,
    ("source", "TEXT NOT NULL"),
    ("status", "TEXT NOT NULL"),
    ("explanation_json", "TEXT NOT NULL"),
    ("explained_at", "TEXT NOT NULL"),
    ("duration_s", "REAL NOT NULL"),
)


def _names(columns: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    return tuple(name for name, _ in columns)


def _table(name: str, columns: tuple[tuple[str, str], ...], *extra: str) -> str:
    body = ",\n    ".join([*(f"{c} {t}" for c, t in columns), *extra])
    return f"CREATE TABLE IF NOT EXISTS {name} (\n    {body}\n);"


def _unique(columns: tuple[tuple[str, str], ...]) -> str:
    return f"UNIQUE ({', '.join(_names(columns))})"


SCHEMA = "\n".join(
    [
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
        _table("runs", (("id", "INTEGER PRIMARY KEY"), *RUN_COLUMNS), _unique(KEY_COLUMNS)),
        _table("tests", TEST_COLUMNS, "PRIMARY KEY (run_id, idx)"),
        "CREATE INDEX IF NOT EXISTS runs_by_submission ON runs (contestant, problem);",
        _table("fuzz", (("id", "INTEGER PRIMARY KEY"), *FUZZ_COLUMNS), _unique(FUZZ_KEY_COLUMNS)),
        # issue 46: a new table, no existing one changed (a database of the release before gets it when opened)
        _table("explain", (("id", "INTEGER PRIMARY KEY"), *EXPLAIN_COLUMNS), _unique(EXPLAIN_KEY_COLUMNS)),
    ]
)


def _insert(table: str, columns: tuple[tuple[str, str], ...]) -> str:
    names = _names(columns)
    return f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join(':' + n for n in names)})"


def _where(columns: tuple[tuple[str, str], ...]) -> str:
    return " AND ".join(f"{n}=:{n}" for n in _names(columns))


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
class ExplainKey:
    """A counterexample search is reused only for the same submission, package, judge, fuzzer (the explain
    engine is part of it), budget and seed."""

    run: RunKey
    explain_version: str  # the fuzzer's code, Hypothesis' version and the package's fuzz.py (grade/explaining.py)
    examples: int
    seconds: float
    seed: int


@dataclass(frozen=True)
class StoredExplanation:
    id: int
    key: ExplainKey
    source: str  # relative to the contest folder
    status: str  # a judge.fuzz.explanation.ExplainStatus value
    explanation: dict[str, Any]  # Explanation.to_json()
    explained_at: str  # ISO 8601, UTC
    duration_s: float


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


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
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

    def save(self, key: RunKey, source: str, result: SubmissionResult, seeds: dict[str, Any], duration_s: float) -> int:
        """Store one judged submission with all its tests, atomically; replaces a run with the same key."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(f"DELETE FROM runs WHERE {_where(KEY_COLUMNS)}", _key_values(key))
            run = {
                **_key_values(key),
                "source": source,
                "language": result.language,
                "verdict": result.verdict.value,
                "score": result.score,
                "max_score": result.max_score,
                "time_s": result.time_s,
                "memory_kib": result.memory_kib,
                "metric": result.metric,
                "metric_name": result.metric_name,
                "compile_message": result.compile_message,
                "groups_json": json.dumps([[g.name, g.score, g.max_score, g.verdict.value] for g in result.groups]),
                "seeds_json": json.dumps(seeds, sort_keys=True),
                "sandbox_warnings_json": json.dumps(list(result.sandbox_warnings)),
                "judged_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "duration_s": duration_s,
            }
            run_id = int(db.execute(_insert("runs", RUN_COLUMNS), run).lastrowid or 0)
            scores = result.test_scores or tuple(0.0 for _ in result.tests)
            rows = [
                {
                    "run_id": run_id,
                    "idx": i,
                    "name": t.name,
                    "grp": t.group,
                    "verdict": t.verdict.value,
                    "score": s,
                    "fraction": t.fraction,
                    "time_s": t.time_s,
                    "wall_time_s": t.wall_time_s,
                    "memory_kib": t.memory_kib,
                    "message": t.message,
                    "metric": t.metric,
                    "transcript": t.transcript,
                    "passes": t.passes,
                    "skipped": int(t.skipped),
                }
                for i, (t, s) in enumerate(zip(result.tests, scores, strict=True))
            ]
            db.executemany(_insert("tests", TEST_COLUMNS), rows)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return run_id

    def save_fuzz(self, key: FuzzKey, source: str, status: str, outcome: dict[str, Any], duration_s: float) -> int:
        """Store one fuzzing outcome (one row, one statement: atomic); replaces one with the same key."""
        row = {
            **_fuzz_key_values(key),
            "source": source,
            "status": status,
            "outcome_json": json.dumps(outcome, sort_keys=True),
            "fuzzed_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "duration_s": duration_s,
        }
        cur = self._db.execute(_insert("fuzz", FUZZ_COLUMNS).replace("INSERT", "INSERT OR REPLACE", 1), row)
        return int(cur.lastrowid or 0)

    def save_explanation(
        self, key: ExplainKey, source: str, status: str, explanation: dict[str, Any], duration_s: float
    ) -> int:
        """Store one counterexample search (one row, one statement: atomic); replaces one with the same key."""
        row = {
            **_explain_key_values(key),
            "source": source,
            "status": status,
            "explanation_json": json.dumps(explanation, sort_keys=True),
            "explained_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "duration_s": duration_s,
        }
        cur = self._db.execute(_insert("explain", EXPLAIN_COLUMNS).replace("INSERT", "INSERT OR REPLACE", 1), row)
        return int(cur.lastrowid or 0)

    # ------------------------------------------------------------------ reading

    def lookup(self, key: RunKey) -> StoredRun | None:
        row = self._db.execute(f"SELECT * FROM runs WHERE {_where(KEY_COLUMNS)}", _key_values(key)).fetchone()
        return None if row is None else self._stored(row)

    def runs(self) -> Iterator[StoredRun]:
        """Every stored run, oldest first."""
        for row in self._db.execute("SELECT * FROM runs ORDER BY id").fetchall():
            yield self._stored(row)

    def last_durations(self) -> dict[tuple[str, str], float]:
        """How long the latest stored run of each (contestant, problem) took: the scheduler's estimate."""
        rows = self._db.execute("SELECT contestant, problem, duration_s FROM runs ORDER BY id").fetchall()
        return {(c, p): float(d) for c, p, d in rows}

    def lookup_fuzz(self, key: FuzzKey) -> StoredFuzz | None:
        query = f"SELECT * FROM fuzz WHERE {_where(FUZZ_KEY_COLUMNS)}"
        row = self._db.execute(query, _fuzz_key_values(key)).fetchone()
        if row is None:
            return None
        fkey = FuzzKey(_run_key(row), row["fuzz_version"], int(row["examples"]), int(row["seed"]))
        outcome = json.loads(row["outcome_json"])
        return StoredFuzz(row["id"], fkey, row["source"], row["status"], outcome, row["fuzzed_at"], row["duration_s"])

    def lookup_explanation(self, key: ExplainKey) -> StoredExplanation | None:
        query = f"SELECT * FROM explain WHERE {_where(EXPLAIN_KEY_COLUMNS)}"
        row = self._db.execute(query, _explain_key_values(key)).fetchone()
        if row is None:
            return None
        ekey = ExplainKey(
            _run_key(row), row["explain_version"], int(row["examples"]), float(row["seconds"]), int(row["seed"])
        )
        doc = json.loads(row["explanation_json"])
        when, duration = row["explained_at"], row["duration_s"]
        return StoredExplanation(row["id"], ekey, row["source"], row["status"], doc, when, duration)

    def explain_count(self) -> int:
        """Rows in the ``explain`` table."""
        return int(self._db.execute("SELECT COUNT(*) FROM explain").fetchone()[0])

    def fuzz_count(self) -> int:
        """Rows in the ``fuzz`` table."""
        return int(self._db.execute("SELECT COUNT(*) FROM fuzz").fetchone()[0])

    def counts(self) -> tuple[int, int]:
        """(runs, tests) rows in the database."""
        runs = self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        tests = self._db.execute("SELECT COUNT(*) FROM tests").fetchone()[0]
        return int(runs), int(tests)

    def _stored(self, row: sqlite3.Row) -> StoredRun:
        test_rows = self._db.execute("SELECT * FROM tests WHERE run_id=? ORDER BY idx", (row["id"],)).fetchall()
        tests = tuple(
            CaseResult(
                name=t["name"],
                group=t["grp"],
                verdict=Verdict(t["verdict"]),
                fraction=t["fraction"],
                time_s=t["time_s"],
                wall_time_s=t["wall_time_s"],
                memory_kib=t["memory_kib"],
                message=t["message"],
                metric=t["metric"],
                transcript=t["transcript"],
                passes=t["passes"],
                skipped=bool(t["skipped"]),
            )
            for t in test_rows
        )
        result = SubmissionResult(
            problem=row["problem"],
            source=row["source"],
            language=row["language"],
            verdict=Verdict(row["verdict"]),
            score=row["score"],
            max_score=row["max_score"],
            time_s=row["time_s"],
            memory_kib=row["memory_kib"],
            compile_message=row["compile_message"],
            tests=tests,
            test_scores=tuple(float(t["score"]) for t in test_rows),
            groups=tuple(GroupScore(n, s, m, Verdict(v)) for n, s, m, v in json.loads(row["groups_json"])),
            metric=row["metric"],
            metric_name=row["metric_name"],
            sandbox_warnings=tuple(json.loads(row["sandbox_warnings_json"])),
        )
        seeds = json.loads(row["seeds_json"])
        return StoredRun(row["id"], _run_key(row), row["source"], result, seeds, row["judged_at"], row["duration_s"])


def _key_values(key: RunKey) -> dict[str, str]:
    return {name: getattr(key, name) for name in _names(KEY_COLUMNS)}


def _fuzz_key_values(key: FuzzKey) -> dict[str, object]:
    return {**_key_values(key.run), "fuzz_version": key.fuzz_version, "examples": key.examples, "seed": key.seed}


def _explain_key_values(key: ExplainKey) -> dict[str, object]:
    return {
        **_key_values(key.run),
        "explain_version": key.explain_version,
        "examples": key.examples,
        "seconds": key.seconds,
        "seed": key.seed,
    }


def _run_key(row: sqlite3.Row) -> RunKey:
    return RunKey(**{name: row[name] for name in _names(KEY_COLUMNS)})
