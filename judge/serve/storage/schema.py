"""The contest database's schema and its migrations.

``SCHEMA_VERSION`` is the schema this release writes; ``MIGRATIONS[v]`` brings a database of version ``v``
to ``v + 1`` (nothing stored is lost). The version is kept in the table ``schema_version`` (one row per
upgrade, with when it was applied); releases before version 3 kept it in ``meta`` under ``schema``, which
the upgrade to 3 moves.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 18

# The API's id of the judgement ``j`` (model/apijson.judgement_id, in SQL, for the upgrade to 4)
JUDGEMENT_ID = "(CASE j.ordinal WHEN 1 THEN CAST(j.submission_id AS TEXT) ELSE j.submission_id || '-' || j.ordinal END)"

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
CREATE INDEX IF NOT EXISTS submissions_time ON submissions(time_s);
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
    package_hash TEXT,
    ordinal INTEGER NOT NULL DEFAULT 1,
    rejudging_id INTEGER,
    held INTEGER NOT NULL DEFAULT 0,
    awaiting INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS judgements_submission ON judgements(submission_id);
CREATE UNIQUE INDEX IF NOT EXISTS judgements_ordinal ON judgements(submission_id, ordinal);
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
    done INTEGER NOT NULL DEFAULT 0,
    rejudging_id INTEGER,
    lease_owner TEXT,
    lease_until_s REAL
);
CREATE INDEX IF NOT EXISTS jobs_todo ON jobs(done, id);
CREATE INDEX IF NOT EXISTS jobs_submission ON jobs(submission_id, done, id);
CREATE INDEX IF NOT EXISTS jobs_rejudging ON jobs(rejudging_id, done);
CREATE INDEX IF NOT EXISTS judgements_rejudging ON judgements(rejudging_id);
CREATE TABLE IF NOT EXISTS run_details (
    judgement_id INTEGER NOT NULL REFERENCES judgements(id),
    ordinal INTEGER NOT NULL,
    pass INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    output BLOB,
    output_bytes INTEGER NOT NULL,
    stderr BLOB,
    stderr_bytes INTEGER NOT NULL,
    input BLOB,
    input_bytes INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER,
    signal INTEGER,
    time_s REAL NOT NULL,
    wall_time_s REAL NOT NULL,
    memory_kib INTEGER NOT NULL,
    judge_message TEXT NOT NULL,
    team_message TEXT NOT NULL,
    PRIMARY KEY (judgement_id, ordinal, pass)
);
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
CREATE INDEX IF NOT EXISTS events_type ON events(type, id);
CREATE TABLE IF NOT EXISTS sessions (
    selector TEXT PRIMARY KEY,
    verifier_sha256 TEXT NOT NULL,
    account_id TEXT NOT NULL,
    created_s REAL NOT NULL,
    expires_s REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_account ON sessions(account_id);
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
CREATE TABLE IF NOT EXISTS award_edits (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    citation TEXT NOT NULL,
    team_ids TEXT,
    removed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS counterexamples (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    problem_id TEXT NOT NULL,
    submission_id INTEGER NOT NULL,
    judgement_id INTEGER NOT NULL,
    input BLOB NOT NULL,
    answer BLOB NOT NULL,
    output BLOB,
    verdict TEXT NOT NULL,
    message TEXT NOT NULL,
    confirmed INTEGER NOT NULL,
    found_s REAL NOT NULL,
    fuzz_job_id INTEGER,
    truncated INTEGER NOT NULL DEFAULT 0,
    added_as TEXT
);
CREATE INDEX IF NOT EXISTS counterexamples_problem ON counterexamples(problem_id, id);
CREATE TABLE IF NOT EXISTS problem_versions (
    problem_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    path TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_s REAL NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (problem_id, version)
);
CREATE TABLE IF NOT EXISTS previews (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    problem_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    base_version INTEGER NOT NULL,
    kind TEXT NOT NULL,
    counterexample_id INTEGER,
    test_name TEXT,
    state TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    created_s REAL NOT NULL,
    scope TEXT NOT NULL DEFAULT '',
    auto_apply INTEGER NOT NULL DEFAULT 0,
    created_by TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS preview_runs (
    preview_id INTEGER NOT NULL REFERENCES previews(id),
    submission_id INTEGER NOT NULL,
    verdict_before TEXT NOT NULL,
    verdict_after TEXT NOT NULL,
    score_before REAL NOT NULL,
    score_after REAL NOT NULL,
    failing_test TEXT,
    time_s REAL NOT NULL,
    PRIMARY KEY (preview_id, submission_id)
);
CREATE TABLE IF NOT EXISTS fuzz_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    judgement_id INTEGER NOT NULL REFERENCES judgements(id),
    package_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    examples_done INTEGER NOT NULL DEFAULT 0,
    spent_s REAL NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    message TEXT NOT NULL DEFAULT '',
    queued_s REAL NOT NULL,
    finished_s REAL
);
CREATE INDEX IF NOT EXISTS fuzz_jobs_state ON fuzz_jobs(state, id);
CREATE INDEX IF NOT EXISTS fuzz_jobs_submission ON fuzz_jobs(submission_id, state);
CREATE TABLE IF NOT EXISTS live_teams (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    label TEXT NOT NULL,
    display_name TEXT,
    organization_id TEXT,
    group_ids TEXT NOT NULL DEFAULT '[]',
    icpc_id TEXT,
    hidden INTEGER NOT NULL DEFAULT 0,
    time_s REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS live_objects (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    data TEXT NOT NULL,
    time_s REAL NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE TABLE IF NOT EXISTS live_accounts (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL,
    type TEXT NOT NULL,
    team_id TEXT,
    name TEXT,
    password_hash TEXT,
    disabled INTEGER NOT NULL DEFAULT 0,
    time_s REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ignored_submissions (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    time_s REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS balloons_done (submission_id INTEGER PRIMARY KEY, time_s REAL NOT NULL);
CREATE TABLE IF NOT EXISTS judgement_reviews (
    judgement_id INTEGER PRIMARY KEY REFERENCES judgements(id),
    verified INTEGER NOT NULL,
    comment TEXT NOT NULL,
    username TEXT NOT NULL,
    time_s REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS prints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id TEXT,
    username TEXT NOT NULL,
    filename TEXT NOT NULL,
    text TEXT NOT NULL,
    time_s REAL NOT NULL,
    status TEXT NOT NULL,
    delivered_s REAL
);
CREATE TABLE IF NOT EXISTS similarity_reports (
    problem_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    requested_s REAL NOT NULL,
    requested_by TEXT NOT NULL,
    computed_s REAL,
    submissions INTEGER NOT NULL DEFAULT 0,
    latest_submission_id INTEGER NOT NULL DEFAULT 0,
    report TEXT,
    message TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS similarity_reviews (
    problem_id TEXT NOT NULL,
    pair_key TEXT NOT NULL,
    username TEXT NOT NULL,
    note TEXT NOT NULL,
    time_s REAL NOT NULL,
    PRIMARY KEY (problem_id, pair_key)
);
CREATE TABLE IF NOT EXISTS login_failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key_sha256 TEXT NOT NULL,
    time_s REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS login_failures_key ON login_failures(key_sha256, time_s);
CREATE INDEX IF NOT EXISTS login_failures_time ON login_failures(time_s);
CREATE TABLE IF NOT EXISTS site_contests (
    id TEXT PRIMARY KEY,
    hidden INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    judging_priority INTEGER,
    time_s REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS explanations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    judgement_id INTEGER NOT NULL REFERENCES judgements(id),
    package_hash TEXT NOT NULL,
    verdict TEXT NOT NULL,
    policy TEXT NOT NULL,
    state TEXT NOT NULL,
    examples_done INTEGER NOT NULL DEFAULT 0,
    spent_s REAL NOT NULL DEFAULT 0,
    withheld INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    team_shown INTEGER NOT NULL DEFAULT 0,
    message TEXT NOT NULL DEFAULT '',
    queued_s REAL NOT NULL,
    finished_s REAL
);
CREATE INDEX IF NOT EXISTS explanations_state ON explanations(state, id);
CREATE INDEX IF NOT EXISTS explanations_submission ON explanations(submission_id, id);
CREATE TABLE IF NOT EXISTS audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time_s REAL NOT NULL,
    account_id TEXT,
    username TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lti_nonces (
    issuer TEXT NOT NULL,
    nonce TEXT NOT NULL,
    expires_s REAL NOT NULL,
    PRIMARY KEY (issuer, nonce)
);
CREATE TABLE IF NOT EXISTS lti_users (
    issuer TEXT NOT NULL,
    sub TEXT NOT NULL,
    account_id TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    time_s REAL NOT NULL,
    PRIMARY KEY (issuer, sub)
);
CREATE TABLE IF NOT EXISTS lti_links (
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    contest_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    context_id TEXT NOT NULL DEFAULT '',
    lineitems_url TEXT NOT NULL DEFAULT '',
    lineitem_url TEXT NOT NULL DEFAULT '',
    memberships_url TEXT NOT NULL DEFAULT '',
    time_s REAL NOT NULL,
    PRIMARY KEY (issuer, client_id, contest_id)
);
CREATE TABLE IF NOT EXISTS lti_platforms (
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    entry TEXT NOT NULL,
    time_s REAL NOT NULL,
    PRIMARY KEY (issuer, client_id)
);
CREATE TABLE IF NOT EXISTS lti_scores (
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    contest_id TEXT NOT NULL,
    sub TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    message TEXT NOT NULL DEFAULT '',
    time_s REAL NOT NULL,
    PRIMARY KEY (issuer, client_id, contest_id, sub)
);
"""


@dataclass(frozen=True)
class Step:
    """A statement of a migration that runs only when ``tables`` exist (a table an old database lacks is
    created by TABLES, already in its new shape)."""

    sql: str
    tables: tuple[str, ...]


# version -> the statements that bring it to version + 1, in order
MIGRATIONS: dict[int, tuple[str | Step, ...]] = {
    1: ("ALTER TABLE runs ADD COLUMN transcript TEXT NOT NULL DEFAULT ''",),  # interactive traffic
    2: (  # the version gets a table of its own
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_s REAL NOT NULL)",
        "DELETE FROM meta WHERE key = 'schema'",
    ),
    3: (  # issue 27: page sessions are stored (the table above), and no cookie-signing key is kept any more;
        "DELETE FROM meta WHERE key = 'session_secret'",
        # a judgement is numbered within its submission, and the API's ids of judgements and runs derive from
        # that (records.py): the event log's copies of them are renamed the same way
        Step("ALTER TABLE judgements ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 1", ("judgements",)),
        Step(
            "UPDATE judgements SET ordinal = (SELECT count(*) FROM judgements k "
            "WHERE k.submission_id = judgements.submission_id AND k.id <= judgements.id)",
            ("judgements",),
        ),
        Step(
            f"UPDATE events SET obj_id = coalesce((SELECT {JUDGEMENT_ID} FROM judgements j "
            "WHERE j.id = CAST(events.obj_id AS INTEGER)), obj_id), "
            "data = CASE WHEN data = 'null' THEN data ELSE coalesce((SELECT json_set(events.data, '$.id', "
            f"{JUDGEMENT_ID}) FROM judgements j WHERE j.id = CAST(events.obj_id AS INTEGER)), data) END "
            "WHERE type = 'judgements'",
            ("events", "judgements"),
        ),
        Step(
            f"UPDATE events SET obj_id = coalesce((SELECT {JUDGEMENT_ID} || '-' || r.ordinal FROM runs r "
            "JOIN judgements j ON j.id = r.judgement_id WHERE r.id = CAST(events.obj_id AS INTEGER)), obj_id), "
            "data = CASE WHEN data = 'null' THEN data ELSE coalesce((SELECT json_set(events.data, "
            f"'$.id', {JUDGEMENT_ID} || '-' || r.ordinal, '$.judgement_id', {JUDGEMENT_ID}) FROM runs r "
            "JOIN judgements j ON j.id = r.judgement_id WHERE r.id = CAST(events.obj_id AS INTEGER)), data) END "
            "WHERE type = 'runs'",
            ("events", "judgements", "runs"),
        ),
    ),
    # the contest's scoreboard type is remembered (site/server.py): releases before 5 ran score contests
    4: ("INSERT OR IGNORE INTO meta (key, value) VALUES ('scoreboard_type', 'score')",),
    5: (  # issue 29, clarifications (their tables are created with the rest): events for chosen teams, and
        # versions of an object for some teams only (team_ids, staff); every existing event keeps its meaning
        Step("ALTER TABLE events ADD COLUMN team_ids TEXT NOT NULL DEFAULT '[]'", ("events",)),
        Step("ALTER TABLE events ADD COLUMN staff INTEGER NOT NULL DEFAULT 1", ("events",)),
    ),
    # issue 31, end of contest: the admins' award edits (award_edits, created with the rest); the finalize
    # and end of updates are kept in meta (finalized_at, end_of_updates_at): nothing to change
    6: (),
    # issue 33, live fuzzing (docs/live-fuzzing.md): the jury's counterexamples (created with the rest)
    7: (),
    # issue 33, package versions and rejudge previews (problem_versions, previews, preview_runs: created with
    # the rest); a counterexample remembers the test case it became
    8: (Step("ALTER TABLE counterexamples ADD COLUMN added_as TEXT", ("counterexamples",)),),
    # issue 33, live fuzzing's jobs (fuzz_jobs, created with the rest); a counterexample names its job, and
    # says whether its bytes were cut to the size stored
    9: (
        Step("ALTER TABLE counterexamples ADD COLUMN fuzz_job_id INTEGER", ("counterexamples",)),
        Step("ALTER TABLE counterexamples ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0", ("counterexamples",)),
    ),
    # issue 43: a print-out is marked delivered by the jury (NULL: not yet)
    10: (Step("ALTER TABLE prints ADD COLUMN delivered_s REAL", ("prints",)),),
    # issue 49, similar submissions: each problem's report and the jury's reviews of its pairs
    # (similarity_reports, similarity_reviews: created with the rest); no existing table changes
    11: (),
    # issue 44, a site of contests: the site database (the same schema) holds the contests' registry
    # (site_contests, created with the rest: hidden, archived, a judging priority an admin set); a contest's
    # own database leaves it empty, as a site database leaves the contest tables; no existing table changes
    12: (),
    # issue 47, the jury's workbench: what each run printed and why it failed (run_details, created with the
    # rest; what it holds is counted in meta's ``run_details_bytes``); rejudgings as sets reviewed before they
    # count: the previews table holds every set (a rejudge's scope, whether it applies itself, who started
    # it), a job and a judgement name the set they belong to, and a set's judgement is held (non-current,
    # in no document) until the set is applied
    13: (
        Step("ALTER TABLE judgements ADD COLUMN rejudging_id INTEGER", ("judgements",)),
        Step("ALTER TABLE judgements ADD COLUMN held INTEGER NOT NULL DEFAULT 0", ("judgements",)),
        # a judgement finished while the contest required verification, not verified yet: the jury's only
        Step("ALTER TABLE judgements ADD COLUMN awaiting INTEGER NOT NULL DEFAULT 0", ("judgements",)),
        Step("ALTER TABLE jobs ADD COLUMN rejudging_id INTEGER", ("jobs",)),
        Step("ALTER TABLE previews ADD COLUMN scope TEXT NOT NULL DEFAULT ''", ("previews",)),
        Step("ALTER TABLE previews ADD COLUMN auto_apply INTEGER NOT NULL DEFAULT 0", ("previews",)),
        Step("ALTER TABLE previews ADD COLUMN created_by TEXT NOT NULL DEFAULT ''", ("previews",)),
    ),
    # issue 46, counterexamples for rejected submissions (docs/explain.md): the searches, each with the policy
    # it was queued under and its result (explanations, created with the rest); no existing table changes
    14: (),
    # issue 48, LTI 1.3 (docs/course.md "The course in your LMS"): in the site database, the nonces used, the LMS
    # users and their accounts, the assignments' links, the scores sent and the platforms an admin added on the
    # page (lti_nonces, lti_users, lti_links, lti_scores, lti_platforms: created with the rest); no existing table
    # changes
    15: (),
    # issue 51, several `judge serve` processes on one PostgreSQL database (docs/design.md): a job's claim is a
    # lease (its process's token, its expiry) that a killed process's jobs outlive only until it runs out
    16: (
        Step("ALTER TABLE jobs ADD COLUMN lease_owner TEXT", ("jobs",)),
        Step("ALTER TABLE jobs ADD COLUMN lease_until_s REAL", ("jobs",)),
    ),
    # issue 51: the failed logins of every process on the database (login_failures, created with the rest: the
    # SHA-256 of a username's or an address's key, when; pruned once out of the lockouts' windows), so that
    # the lockouts count them all; no existing table changes
    17: (),
}
