"""The contest's database: the only code of `judge serve` that holds SQL.

Services see it through three Protocols: ``Storage`` (open transactions), ``Reader`` (queries, in one
consistent snapshot) and ``Writer`` (a reader that also changes things, in one transaction that commits
when its block ends and rolls back if it raises). Every method takes and returns typed records
(judge/serve/model/records.py), never rows or dicts; visibility is not decided here (judge/serve/
visibility.py is), only what was asked for is fetched.

``open_storage(path)`` opens (or creates, or upgrades: storage/schema.py) the SQLite database; ``Engine``
opens either engine's (SQLite's file, or PostgreSQL's schema: storage/postgres.py, issue 51). Both run the
same queries (storage/queries.py) in one dialect (storage/dialect.py); docs/design.md says how.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from judge.serve.model.contest import Team
from judge.serve.model.errors import Refused
from judge.serve.model.explanations import ExplainRecord
from judge.serve.model.lti import LtiLink, LtiScore, LtiUser
from judge.serve.model.records import (
    AccountRecord,
    Audience,
    AuditRecord,
    AwardEdit,
    ClarificationRecord,
    Counted,
    Counterexample,
    EventRecord,
    FuzzJobRecord,
    FuzzState,
    JobRecord,
    JudgementOutcome,
    JudgementRecord,
    Lease,
    LiveAccount,
    NewClarification,
    NewEvent,
    NewRun,
    NewSubmission,
    PreviewRecord,
    PreviewRun,
    PrintRecord,
    ProblemVersion,
    QueuedJob,
    ReviewRecord,
    RunDetail,
    RunRecord,
    SessionRecord,
    SiteContestRecord,
    SubmissionRecord,
    TeamSessions,
)
from judge.serve.model.similarity import PairReview, SimilarityRecord, SimilarityState

DB_NAME = "contest.sqlite"


class StorageError(Exception):
    """The database cannot be opened, or belongs to something else (one line)."""


class StorageUnavailable(StorageError, Refused):
    """The database server cannot be reached now (PostgreSQL: down, restarting, or a standby being promoted;
    docs/deploy.md): nothing was done, or, when the connection broke at the commit, perhaps done. A request
    that meets it is refused with 503 and ``Retry-After`` (the client's message names no server); ``str()``
    is the one line for the log."""

    def __init__(self, detail: str) -> None:
        Refused.__init__(self, 503, UNAVAILABLE, {"Retry-After": str(UNAVAILABLE_RETRY_S)})
        self.args = (detail,)

    def __str__(self) -> str:
        return str(self.args[0])


UNAVAILABLE_RETRY_S = 5
UNAVAILABLE = (
    "the contest's database cannot be reached just now (it may be switching to its standby): try again in a few "
    "seconds; something sent just now may have been stored all the same: look before sending it again"
)


class Reader(Protocol):
    """Queries, in one consistent snapshot. Lists come in id order unless said otherwise."""

    def get_meta(self, key: str) -> str | None: ...

    def accounts(self) -> list[AccountRecord]: ...

    def submissions(
        self,
        *,
        ids: Collection[int] | None = None,
        team_id: str | None = None,
        problem_id: str | None = None,
        language_id: str | None = None,
    ) -> list[SubmissionRecord]:
        """Submissions, narrowed by whichever of the arguments are given."""
        ...

    def submission_files(self, submission_id: int) -> bytes | None:
        """The submission's zip as it was stored; None: no such submission."""
        ...

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
        """Judgements, narrowed by whichever of the arguments are given. ``held``: a rejudging set's judgements
        not applied yet (issue 47) are left out unless asked for (True: only those; None: all); ``awaiting``:
        those that await a judge's verification (issue 47), or those that do not."""
        ...

    def runs(
        self,
        *,
        ids: Collection[int] | None = None,
        judgement_ids: Collection[int] | None = None,
        held: bool | None = False,
    ) -> list[RunRecord]:
        """Runs (of a held judgement only when asked: ``held`` as for ``judgements``)."""
        ...

    def run_details(self, judgement_ids: Collection[int], ordinal: int | None = None) -> list[RunDetail]:
        """What each pass of the judgements' runs printed (of one run: ``ordinal``), by judgement, run, pass."""
        ...

    def team_sessions(self, now: float) -> dict[str, TeamSessions]:
        """Each team's page sessions: how many are live at ``now``, and the newest login still kept."""
        ...

    def last_prints(self) -> dict[str, float]:
        """Each team's newest print-out's time."""
        ...

    def run_details_bytes(self) -> int:
        """The bytes of output, stderr and input the run details hold (the contest's cap is on this)."""
        ...

    def rejudging_jobs(self, rejudging_id: int) -> tuple[list[int], int]:
        """The submissions of a rejudging set's jobs (in the order queued), and how many are not done."""
        ...

    def counted(self, window: tuple[float, float] | None) -> list[Counted]:
        """Submissions made in ``[start, end)`` (None: all), each with its current finished judgement, in
        the order they were made: what the live board is ranked from."""
        ...

    def latest_submission_s(self, until_s: float) -> float | None:
        """The time of the newest submission made at ``until_s`` or before; None: none."""
        ...

    def recent_submissions(self, team_id: str, since_s: float) -> tuple[int, float | None]:
        """How many submissions the team made after ``since_s``, and the earliest of them."""
        ...

    def stale_judgements(self, problem_id: str, package_hash: str) -> int:
        """Current finished judgements of the problem made with another version of its package."""
        ...

    def pending_jobs(self) -> int: ...

    def has_open_job(self, submission_id: int) -> bool: ...

    def events(self, after: int, limit: int) -> list[EventRecord]:
        """The events after token ``after``, at most ``limit``."""
        ...

    def event_audiences(self, after: int, limit: int) -> list[tuple[int, Audience]]:
        """The (id, audience) of the events after ``after``, at most ``limit``: enough to count what a viewer
        sees (services/core/events.py) without reading the events' data."""
        ...

    def latest_event(self) -> int:
        """The newest event's token (0: none)."""
        ...

    def latest_events_of(self, kinds: Sequence[str]) -> tuple[int, ...]:
        """For each type in ``kinds``, the newest event's id of that type (0: none), in one statement."""
        ...

    def last_event(self, kind: str, obj_id: str | None) -> EventRecord | None: ...

    def event_objects(self, kind: str) -> list[str]:
        """The ids of every object of ``kind`` ever published."""
        ...

    def session(self, selector: str) -> SessionRecord | None: ...
    def clarifications(
        self,
        *,
        ids: Collection[int] | None = None,
        public_ids: Collection[str] | None = None,
        after_id: int | None = None,
    ) -> list[ClarificationRecord]:
        """Clarifications (narrowed to the database's ``ids``, the API's ``public_ids``, those sent after
        ``after_id``), in the order sent."""
        ...

    def unanswered_questions(self) -> int:
        """Questions no judge has answered (no clarification from no team replies to them)."""
        ...

    def recent_questions(self, team_id: str, since_s: float) -> tuple[int, float | None]:
        """How many questions the team asked after ``since_s``, and the earliest of them."""
        ...

    def clarifications_read(self, account_id: str) -> int:
        """The id of the last clarification the account has read (0: none)."""
        ...

    def award_edits(self) -> list[AwardEdit]:
        """The admins' awards, each id's latest edit, in the order first edited."""
        ...

    def counterexamples(self, problem_id: str | None = None) -> list[Counterexample]:
        """Live fuzzing's counterexamples (of one problem, or all), newest first."""
        ...

    def counterexample(self, counterexample_id: int) -> Counterexample | None: ...

    def problem_versions(self, problem_id: str | None = None) -> list[ProblemVersion]:
        """The package versions made while the contest runs (of one problem, or all), oldest first."""
        ...

    def previews(self, states: tuple[str, ...] | None = None) -> list[PreviewRecord]:
        """Rejudge previews (in one of ``states``; None: all), oldest first."""
        ...

    def preview(self, preview_id: int) -> PreviewRecord | None: ...

    def preview_runs(self, preview_id: int) -> list[PreviewRun]:
        """What the preview judged so far, by submission id."""
        ...

    def counterexample_problems(self, after_id: int) -> dict[int, str]:
        """The problem of each counterexample stored after ``after_id`` (ids only grow), by id, oldest first."""
        ...

    def fuzz_jobs(self, problem_id: str | None = None) -> list[FuzzJobRecord]:
        """Live fuzzing's jobs (of one problem, or all), newest first."""
        ...

    def fuzz_job(self, job_id: int) -> FuzzJobRecord | None: ...

    def open_fuzz_jobs(
        self, limit: int, exclude: Collection[int] = (), held: Collection[str] = ()
    ) -> list[FuzzJobRecord]:
        """Queued or running fuzz jobs not in ``exclude``, oldest first: none of the ``held`` problems', none
        of an ignored submission."""
        ...

    def live_teams(self) -> list[Team]:
        """The teams an admin added or changed (overrides of teams.json), oldest first."""
        ...

    def live_accounts(self) -> list[LiveAccount]:
        """The accounts an admin added or changed (overrides of accounts.yaml), oldest first."""
        ...

    def live_objects(self, kind: str) -> list[dict[str, Any]]:
        """The groups or organizations (``kind``) an admin added or changed, oldest first."""
        ...

    def audit(self, limit: int) -> list[AuditRecord]:
        """The audit log's newest ``limit`` entries, newest first."""
        ...

    def job_queue(self) -> list[QueuedJob]:
        """Every job not done yet (without files), in the order they are taken."""
        ...

    def balloons_done(self) -> set[int]:
        """The submissions whose balloon was delivered."""
        ...

    def reviews(self, judgement_ids: Collection[int]) -> list[ReviewRecord]: ...

    def prints(self, team_id: str | None = None) -> list[PrintRecord]:
        """The print-outs (a team's; None: all), oldest first."""
        ...

    def recent_prints(self, username: str, since_s: float) -> int: ...

    def next_print(self, statuses: Collection[str]) -> PrintRecord | None:
        """The oldest print-out whose status is one of ``statuses`` (the print queue's next)."""
        ...

    # similar submissions (issue 49: storage/similarity.py)
    def similarity_reports(self, *, with_report: bool = True) -> list[SimilarityRecord]: ...

    def similarity_report(self, problem_id: str) -> SimilarityRecord | None: ...

    def latest_submission_ids(self) -> dict[str, int]: ...

    def similarity_reviews(self, problem_id: str) -> list[PairReview]: ...

    def next_job(
        self, held: Collection[str] = (), exclude: Collection[int] = (), lease: Lease | None = None
    ) -> tuple[str, float] | None:
        """The job ``todo_jobs`` would give first (none of the ``held`` problems, none of the ``exclude`` job
        ids, only those free for ``lease``): its reason and its submission's time; None: nothing to judge (the
        judging pool's order across a site's contests, issue 44)."""
        ...

    # counterexamples for rejected submissions (issue 46: storage/explanations.py)
    def explanations(
        self, *, submission_ids: Collection[int] | None = None, problem_id: str | None = None, open_only: bool = False
    ) -> list[ExplainRecord]:
        """The searches (of those submissions, or that problem, or all; ``open_only``: queued or running), newest
        first."""
        ...

    def explanation(self, explain_id: int) -> ExplainRecord | None: ...

    def open_explanations(
        self, limit: int, exclude: Collection[int] = (), held: Collection[str] = ()
    ) -> list[ExplainRecord]:
        """Queued or running searches not in ``exclude``, oldest first: none of the ``held`` problems', none of
        an ignored submission."""
        ...

    def team_shown_explanations(self, team_id: str) -> int:
        """How many counterexamples the team was shown (cancelled ones too)."""
        ...

    # a site of contests (issue 44: storage/site.py), in the site database
    def site_contests(self) -> list[SiteContestRecord]:
        """The contests' registry: what the site's admins changed of each contest, by id."""
        ...

    # failed logins (issue 51: storage/logins.py), in the people's database
    def login_failures(self, since: Mapping[str, float]) -> dict[str, list[float]]:
        """When each key of ``since`` (key -> a time) failed to log in after that time, oldest first."""
        ...

    # LTI 1.3 (issue 48: storage/lti.py), in the site database
    def lti_nonce_used(self, issuer: str, nonce: str) -> bool: ...

    def lti_user(self, issuer: str, sub: str) -> LtiUser | None: ...

    def lti_users(self) -> list[LtiUser]: ...

    def lti_links(self) -> list[LtiLink]:
        """Newest first."""
        ...

    def lti_scores(self) -> list[LtiScore]: ...

    def lti_platforms(self) -> list[str]:
        """The platforms an admin added on the page: lti.yaml entries as JSON, oldest first."""
        ...


class Writer(Reader, Protocol):
    """A reader that changes things; all of it one transaction."""

    def set_meta(self, key: str, value: str) -> None: ...

    def replace_accounts(self, accounts: Sequence[AccountRecord]) -> None: ...

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        """One account's hash, made anew (with the current argon2 parameters) at a login."""
        ...

    def add_submission(self, new: NewSubmission) -> SubmissionRecord: ...

    def enqueue(self, submission_id: int, reason: str, now: float, rejudging_id: int | None = None) -> int:
        """A job to judge the submission (for the rejudging set ``rejudging_id``); returns its id."""
        ...

    def todo_jobs(self, limit: int, held: Collection[str] = (), lease: Lease | None = None) -> list[JobRecord]:
        """Jobs not done yet, new submissions before rejudges, oldest first (none of the ``held`` problems; only
        those free for ``lease``: no lease, its own, or one that ran out; None: every one)."""
        ...

    def take_jobs(self, job_ids: Collection[int], lease: Lease) -> None:
        """The jobs are ``lease``'s until its expiry (storage/leases.py)."""
        ...

    def renew_leases(self, job_ids: Collection[int], lease: Lease) -> int:
        """The jobs still ``lease``'s process's (and not done) are its until ``lease.until_s``; how many."""
        ...

    def add_judgement(
        self, submission_id: int, current: bool, start_s: float, *, held: bool = False, rejudging_id: int | None = None
    ) -> JudgementRecord:
        """A new judgement; ``held`` (a rejudging set's, issue 47): non-current, unnumbered until released."""
        ...

    def release_judgement(self, judgement_id: int) -> None:
        """A held judgement's set is applied: it is held no more, and numbered after the submission's others."""
        ...

    def close_jobs(self, rejudging_id: int) -> int:
        """Mark the set's jobs not done yet done (the set is cancelled); how many there were."""
        ...

    def add_run_detail(self, detail: RunDetail) -> None:
        """Keep what a run's pass printed (its bytes counted toward ``run_details_bytes``)."""
        ...

    def attach_judgement(self, job_id: int, judgement_id: int) -> None: ...

    def job_done(self, job_id: int) -> bool | None:
        """Whether the job is done; None: no such job."""
        ...

    def newer_done_job(self, submission_id: int, job_id: int) -> bool:
        """Whether a job of the submission newer than ``job_id`` is done already."""
        ...

    def set_current(self, judgement_id: int, current: bool) -> None: ...

    def set_awaiting(self, judgement_id: int, awaiting: bool) -> None:
        """Whether the judgement awaits a judge's verification (issue 47): cleared once verified."""
        ...

    def finish_judgement(self, judgement_id: int, outcome: JudgementOutcome) -> None: ...

    def add_run(self, new: NewRun) -> RunRecord: ...

    def finish_job(self, job_id: int) -> None: ...

    def add_event(self, new: NewEvent) -> int:
        """Append to the event log; returns the event's token."""
        ...

    def add_session(self, new: SessionRecord) -> None: ...

    def end_session(self, selector: str) -> None: ...

    def end_sessions(self, account_id: str) -> int:
        """End every session of the account; returns how many there were."""
        ...

    def end_expired_sessions(self, now: float) -> int: ...

    def add_clarification(self, new: NewClarification) -> ClarificationRecord: ...

    def mark_clarifications_read(self, account_id: str, last_id: int) -> None:
        """The account has read every clarification up to ``last_id`` (it never goes back)."""
        ...

    def put_award_edit(self, edit: AwardEdit) -> None:
        """Keep an admin's award (replacing that id's earlier edit)."""
        ...

    def add_counterexample(self, c: Counterexample) -> int:
        """Keep a live fuzzing's counterexample; its id."""
        ...

    def set_added_as(self, counterexample_id: int, test_name: str) -> None:
        """The counterexample became the test case ``test_name`` of its problem."""
        ...

    def add_problem_version(self, problem_id: str, path_of: str, reason: str, now: float) -> int:
        """A new package version (state preview), numbered after the others (the first: 2); its number.
        ``path_of``: where its files are, with ``{version}`` for the number."""
        ...

    def set_version_state(self, problem_id: str, version: int, state: str) -> None: ...

    def add_preview(self, p: PreviewRecord) -> int:
        """Keep a rejudge preview; its id."""
        ...

    def set_preview_state(self, preview_id: int, state: str, message: str | None = None) -> None: ...

    def add_preview_run(self, run: PreviewRun) -> None:
        """One submission's result in a preview (replacing an earlier one of the same submission)."""
        ...

    def enqueue_fuzz(self, submission_id: int, judgement_id: int, package_hash: str, now: float) -> int | None:
        """Queue the submission for live fuzzing; None when it has a job for that package already (one that
        was not cancelled)."""
        ...

    def start_fuzz(self, job_id: int) -> FuzzJobRecord | None:
        """An open fuzz job is running, one attempt more (returned so); None: it is no longer open."""
        ...

    def fuzz_progress(self, job_id: int, examples_done: int, spent_s: float) -> None:
        """A fuzz job gave its slot back: queued again, with the examples and seconds spent so far."""
        ...

    def finish_fuzz(self, job: FuzzJobRecord, state: FuzzState, message: str, now: float) -> bool:
        """The fuzz job ends (with ``job``'s examples and seconds); False: it was no longer open."""
        ...

    def cancel_fuzz(self, submission_id: int, message: str, now: float) -> int:
        """Cancel the submission's open fuzz jobs; how many there were."""
        ...

    def put_live_team(self, team: Team, now: float) -> None:
        """Add a team, or replace one (the package's too: a row overrides teams.json's team of its id)."""
        ...

    def put_live_account(self, account: LiveAccount) -> None: ...

    def put_live_object(self, kind: str, obj: Mapping[str, Any], now: float) -> None:
        """Add or replace a group or an organization (``kind``: groups | organizations)."""
        ...

    def add_audit(self, entry: AuditRecord) -> None: ...

    def add_print(self, p: PrintRecord) -> PrintRecord:
        """Store a print-out (its ``id`` is given here)."""
        ...

    def set_print_status(self, print_id: int, status: str) -> None: ...

    def set_print_delivered(self, print_id: int, delivered_s: float | None) -> bool:
        """Mark a print-out delivered at ``delivered_s`` (None: not); False when there is no such print-out."""
        ...

    def put_review(self, review: ReviewRecord) -> None:
        """Verify a judgement (or not), with a comment; replaces an earlier review of it."""
        ...

    def set_balloon_done(self, submission_id: int, done: bool, now: float) -> None: ...

    def set_ignored(self, submission_id: int, ignored: bool, now: float) -> None:
        """Leave the submission out of everything that counts (or count it again)."""
        ...

    def request_similarity(self, problem_id: str, by: str, now: float) -> bool: ...

    def set_similarity_state(self, problem_id: str, state: SimilarityState, message: str = "") -> None: ...

    def store_similarity(self, problem_id: str, report: str, submissions: int, latest_id: int, now: float) -> None: ...

    def put_pair_review(self, review: PairReview) -> None: ...

    def put_site_contest(self, record: SiteContestRecord) -> None:
        """Keep a contest's registry entry (replacing the one of its id)."""
        ...

    def add_login_failure(self, keys: Sequence[str], now: float, forget_before_s: float) -> None:
        """A failed login at ``now`` for each key; the failures from before ``forget_before_s`` forgotten."""
        ...

    def forget_login_failures(self, key: str) -> int:
        """A key's failed logins forgotten (it logged in); how many there were."""
        ...

    def use_lti_nonce(self, issuer: str, nonce: str, expires_s: float, now: float) -> bool:
        """Record a launch's nonce as used; False when it was already (a replay)."""
        ...

    def add_lti_platform(self, issuer: str, client_id: str, entry: str, now: float) -> bool:
        """False when a platform of that issuer and client id is stored already."""
        ...

    def put_lti_user(self, u: LtiUser) -> None: ...

    def put_lti_link(self, k: LtiLink) -> None: ...

    def put_lti_score(self, s: LtiScore) -> None: ...

    # counterexamples for rejected submissions (issue 46: storage/explanations.py)
    def enqueue_explanation(
        self, submission_id: int, judgement_id: int, package_hash: str, verdict: str, policy: str, now: float
    ) -> int | None:
        """Queue a search; None when the submission has one for that package already (not cancelled). An open
        one of another package is cancelled."""
        ...

    def start_explanation(self, explain_id: int) -> ExplainRecord | None:
        """An open search is running, one attempt more (returned so); None: it is no longer open."""
        ...

    def explanation_progress(self, explain_id: int, examples_done: int, spent_s: float, withheld: int) -> None:
        """A search gave its slot back: queued again, with what it has done so far."""
        ...

    def finish_explanation(self, done: ExplainRecord, result: str, now: float) -> bool:
        """The search ends (``done``'s counts and ``team_shown``; ``result``: the Explanation's JSON); False: it
        was no longer open."""
        ...

    def cancel_explanations(self, submission_id: int, message: str, now: float) -> int:
        """Cancel the submission's searches, open or ended; how many."""
        ...

    def cancel_open_explanations(self, explain_ids: Collection[int], message: str, now: float) -> int:
        """Cancel those searches that are still open; how many."""
        ...


class Storage(Protocol):
    path: Path  # the SQLite file (PostgreSQL: where it would be; its folder is the contest's)
    where: str  # the database, for messages (PostgreSQL: its schema and the DSN without a password)

    def read(self) -> AbstractContextManager[Reader]:
        """One consistent snapshot for several queries."""
        ...

    def write(self) -> AbstractContextManager[Writer]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        ...

    def schema_version(self) -> int: ...

    def leads(self) -> bool:
        """Whether this process does the database's work that runs in one place only (the idle work of the
        judging pool, whose claims are in memory): always, unless several processes share the database (issue
        51, PostgreSQL's ``--shared``): then the one that holds the schema's lead lock (taken when it is free,
        freed when its process's connection ends)."""
        ...

    def on_change(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (from a thread of the storage's) after another process committed a write to this
        database (PostgreSQL with several processes, issue 51: LISTEN/NOTIFY); SQLite: never."""
        ...

    def close(self) -> None: ...


def open_storage(path: Path) -> Storage:
    """Open (create, or upgrade) the SQLite database at ``path``. Raises StorageError (one line)."""
    from judge.serve.storage.sqlite import SqliteStorage

    return SqliteStorage(path)


SITE_SCHEMA = "site"  # PostgreSQL: the schema of a site's database (SITE/site.sqlite's, in SQLite)


def contest_schema(contest_id: str) -> str:
    """PostgreSQL: the schema of a contest's database (CONTEST_DIR/contest.sqlite's, in SQLite)."""
    return f"contest_{contest_id}"


@dataclass(frozen=True)
class Engine:
    """Where `judge serve`'s databases are (built once, at the edge: ``judge serve --database``): SQLite files
    in the site's folders (``dsn`` None, the default), or schemas of one PostgreSQL database (issue 51;
    storage/postgres.py; docs/design.md). The DSN may hold a password: it is never shown (not even in repr)."""

    dsn: str | None = field(default=None, repr=False)
    # before every schema's name: several sites in one PostgreSQL database (the tests give each folder its own)
    schema_prefix: str = ""
    # several `judge serve` processes on the one PostgreSQL database (issue 51, ``--shared``; docs/design.md)
    shared: bool = False

    @property
    def postgres(self) -> bool:
        return self.dsn is not None

    def open(self, path: Path, schema: str) -> Storage:
        """The database SQLite keeps at ``path`` (PostgreSQL: in ``schema``); opened, created or upgraded.
        Raises StorageError (one line)."""
        if self.dsn is None:
            return open_storage(path)
        try:
            from judge.serve.storage.postgres import PgStorage
        except ImportError:
            raise StorageError("PostgreSQL needs psycopg 3: pip install 'judge[postgres]'") from None
        return PgStorage(self.dsn, self.schema_prefix + schema, path, shared=self.shared)

    def describe(self) -> str:
        """For log lines: the engine, and the PostgreSQL DSN without its password."""
        if self.dsn is None:
            return "SQLite"
        from judge.serve.storage.postgres import redacted

        return f"PostgreSQL {redacted(self.dsn)}"


SQLITE = Engine()


__all__ = [
    "DB_NAME",
    "SITE_SCHEMA",
    "SQLITE",
    "Engine",
    "Reader",
    "Storage",
    "StorageError",
    "StorageUnavailable",
    "Writer",
    "contest_schema",
    "open_storage",
]
