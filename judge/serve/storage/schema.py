"""The contest database's schema and its migrations.

``SCHEMA_VERSION`` is the schema this release writes; ``MIGRATIONS[v]`` brings a database of version ``v``
to ``v + 1`` (nothing stored is lost). The version is kept in the table ``schema_version`` (one row per
upgrade, with when it was applied); releases before version 3 kept it in ``meta`` under ``schema``, which
the upgrade to 3 moves.
"""

from __future__ import annotations

SCHEMA_VERSION = 4

TABLES = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_s REAL NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    type TEXT NOT NULL,
    team_id TEXT,
    name TEXT
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id TEXT NOT NULL,
    account_id TEXT,
    problem_id TEXT NOT NULL,
    language_id TEXT NOT NULL,
    entry_point TEXT,
    time_s REAL NOT NULL,
    files BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_team ON submissions(team_id, time_s);
CREATE INDEX IF NOT EXISTS submissions_problem ON submissions(problem_id);
CREATE TABLE IF NOT EXISTS judgements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    current INTEGER NOT NULL,
    start_s REAL NOT NULL,
    end_s REAL,
    verdict TEXT,
    judgement_type TEXT,
    score REAL,
    max_score REAL,
    max_run_time REAL,
    memory_kib INTEGER,
    metric REAL,
    metric_name TEXT,
    compile_message TEXT,
    package_hash TEXT
);
CREATE INDEX IF NOT EXISTS judgements_submission ON judgements(submission_id);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    judgement_id INTEGER NOT NULL REFERENCES judgements(id),
    ordinal INTEGER NOT NULL,
    name TEXT NOT NULL,
    verdict TEXT NOT NULL,
    judgement_type TEXT NOT NULL,
    time_s REAL NOT NULL,
    run_time REAL NOT NULL,
    wall_time_s REAL NOT NULL,
    memory_kib INTEGER NOT NULL,
    score REAL NOT NULL,
    message TEXT NOT NULL,
    transcript TEXT NOT NULL DEFAULT '',
    UNIQUE (judgement_id, ordinal)
);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    judgement_id INTEGER UNIQUE REFERENCES judgements(id),
    reason TEXT NOT NULL,
    created_s REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_todo ON jobs(done, id);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    obj_id TEXT,
    data TEXT NOT NULL,
    scope TEXT NOT NULL,
    team_id TEXT,
    frozen INTEGER NOT NULL DEFAULT 0,
    time_s REAL NOT NULL,
    team_ids TEXT NOT NULL DEFAULT '[]',
    staff INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS events_object ON events(type, obj_id, id);
CREATE TABLE IF NOT EXISTS clarifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id TEXT NOT NULL UNIQUE,
    from_team_id TEXT,
    to_team_ids TEXT,
    to_group_ids TEXT,
    recipients TEXT,
    reply_to INTEGER REFERENCES clarifications(id),
    problem_id TEXT,
    text TEXT NOT NULL,
    time_s REAL NOT NULL,
    account_id TEXT
);
CREATE INDEX IF NOT EXISTS clarifications_team ON clarifications(from_team_id, time_s);
CREATE TABLE IF NOT EXISTS clarifications_read (account_id TEXT PRIMARY KEY, last_id INTEGER NOT NULL);
"""

# version -> the statements that bring it to version + 1, in order
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE runs ADD COLUMN transcript TEXT NOT NULL DEFAULT ''",),  # interactive traffic
    2: (  # the version gets a table of its own
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_s REAL NOT NULL)",
        "DELETE FROM meta WHERE key = 'schema'",
    ),
    3: (  # clarifications (their tables are created with the rest): events for chosen teams, and versions
        # of an object for some teams only (team_ids, staff); every existing event keeps its meaning
        "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, obj_id TEXT, "
        "data TEXT NOT NULL, scope TEXT NOT NULL, team_id TEXT, frozen INTEGER NOT NULL DEFAULT 0, "
        "time_s REAL NOT NULL)",
        "ALTER TABLE events ADD COLUMN team_ids TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE events ADD COLUMN staff INTEGER NOT NULL DEFAULT 1",
    ),
}
