"""What the storage layer gives out and takes in: frozen records, never rows or dicts.

Times are POSIX seconds (``*_s``). Ids are the database's (submissions, judgements, runs, jobs, events: 1,
2, ...). Only a submission's is shown as it is: a judgement is shown by its submission's id and its
``ordinal`` among that submission's judgements, a run by its judgement's and the test's ordinal, an event by
its place in the stream of the one who reads it (model/apijson.py, services/core/events.py: F1 of issue 27, a
global number would count what the viewer may not see).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property


@dataclass(frozen=True)
class AccountRecord:
    id: str
    username: str
    password_hash: str  # argon2 only
    type: str  # team | judge | admin
    team_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class LiveAccount:
    """An admin's change to accounts.yaml, kept in the database (issue 30): an account added while the
    contest runs, or one of the package's with a new password or disabled. A row replaces the package's
    account of the same id."""

    id: str
    username: str
    type: str  # team | judge | admin
    team_id: str | None
    name: str | None
    password_hash: str | None  # argon2; None: the package's password
    disabled: bool
    time_s: float


@dataclass(frozen=True)
class QueuedJob:
    """A job not done yet, as the queue page lists it: started_s is when it was first taken (None: never)."""

    job_id: int
    reason: str  # submit | rejudge
    created_s: float
    submission: SubmissionRecord
    started_s: float | None


@dataclass(frozen=True)
class ReviewRecord:
    """A judge's check of a judgement (issue 30): verified or not, and a comment for the jury."""

    judgement_id: int
    verified: bool
    comment: str
    username: str
    time_s: float


@dataclass(frozen=True)
class PrintRecord:
    """A team's print-out (issue 30): what was sent, and what became of it."""

    id: int
    team_id: str | None
    username: str
    filename: str
    text: str
    time_s: float
    status: str  # listed (no print_command) | sent | failed: <why> | done
    delivered_s: float | None = None  # when the jury marked it delivered (None: not yet)


@dataclass(frozen=True)
class AuditRecord:
    """One action of the staff (who, when, what): the audit log."""

    time_s: float
    account_id: str | None
    username: str
    action: str  # e.g. "team.add", "account.disable", "contest.patch"
    detail: str
    id: int = 0  # given by the storage


@dataclass(frozen=True)
class SiteContestRecord:
    """A contest of a site as its admins left it (issue 44: the site database's ``site_contests``): hidden
    (staff only), archived (read-only), its judging priority over contest.yaml's (None: contest.yaml's)."""

    id: str
    hidden: bool = False
    archived: bool = False
    judging_priority: int | None = None
    time_s: float = 0.0  # the last change


@dataclass(frozen=True)
class SubmissionRecord:
    id: int
    team_id: str
    account_id: str | None
    problem_id: str
    language_id: str
    entry_point: str | None
    time_s: float
    ignored: bool = False  # a judge left it out (issue 30): it counts nowhere, only staff see it


@dataclass(frozen=True)
class NewSubmission:
    team_id: str
    account_id: str | None
    problem_id: str
    language_id: str
    entry_point: str | None
    time_s: float
    files_zip: bytes


@dataclass(frozen=True)
class JudgementRecord:
    id: int
    submission_id: int
    current: bool
    start_s: float
    end_s: float | None = None  # None: being judged
    verdict: str | None = None  # ours (PV kept); the API shows judgement_type
    judgement_type: str | None = None
    score: float | None = None
    max_score: float | None = None
    max_run_time: float | None = None
    memory_kib: int | None = None
    metric: float | None = None
    metric_name: str | None = None
    compile_message: str | None = None
    package_hash: str | None = None
    ordinal: int = 1  # 1 for the submission's first judgement, 2 for its first rejudge's, ...
    rejudging_id: int | None = None  # the rejudging set that made it (issue 47; None: a submission's judging)
    # a set's judgement not applied yet (issue 47): non-current, in no document, numbered only when applied
    held: bool = False
    # issue 47: finished while the contest required verification, and no judge verified it yet: the jury's only
    awaiting: bool = False

    @property
    def done(self) -> bool:
        return self.end_s is not None


@dataclass(frozen=True)
class JudgementOutcome:
    """What judging stores into a judgement when it ends."""

    current: bool
    end_s: float
    verdict: str
    judgement_type: str
    score: float
    max_score: float
    max_run_time: float | None
    memory_kib: int
    metric: float | None
    metric_name: str | None
    compile_message: str | None
    package_hash: str
    awaiting: bool = False  # the contest requires verification (issue 47): the jury's until a judge verifies it


@dataclass(frozen=True)
class RunRecord:
    """One test's result (the spec's run)."""

    id: int
    judgement_id: int
    ordinal: int
    name: str
    verdict: str
    judgement_type: str
    time_s: float
    run_time: float
    wall_time_s: float
    memory_kib: int
    score: float
    message: str
    transcript: str = ""
    submission_id: int = 0  # the judgement's (the API's run id derives from them)
    judgement_ordinal: int = 1


@dataclass(frozen=True)
class NewRun:
    judgement_id: int
    ordinal: int
    name: str
    verdict: str
    judgement_type: str
    time_s: float
    run_time: float
    wall_time_s: float
    memory_kib: int
    score: float
    message: str
    transcript: str


@dataclass(frozen=True)
class RunDetail:
    """What one pass of a run printed and how it ended (issue 47), kept per judgement for the jury:
    ``output`` and ``stderr`` cut to the contest's ``output_storage.run_kib`` (None: not kept, the contest's
    cap was reached), their sizes as written, the validator's messages, a later pass's input."""

    judgement_id: int
    ordinal: int  # the run's (the test's ordinal)
    pass_n: int  # 1, 2, ... (multi-pass)
    verdict: str
    output: bytes | None
    output_bytes: int
    stderr: bytes | None
    stderr_bytes: int
    input: bytes | None  # a multi-pass test's later pass: its input (nextpass.in); None: the test's .in
    input_bytes: int
    exit_code: int | None
    signal: int | None
    time_s: float
    wall_time_s: float
    memory_kib: int
    judge_message: str
    team_message: str

    @property
    def stored_bytes(self) -> int:
        """What it holds of the contest's cap."""
        return len(self.output or b"") + len(self.stderr or b"") + len(self.input or b"")


@dataclass(frozen=True)
class Lease:
    """A claim on jobs that outlives its transaction (several `judge serve` processes on one database, issue 51:
    docs/design.md): its process (``owner``, a token of its own), the time it is taken (``now_s``) and its
    expiry (``until_s``), both the process's wall clock. A job is free for it when its lease is none, its
    own, or expired."""

    owner: str
    now_s: float
    until_s: float


@dataclass(frozen=True)
class JobRecord:
    """A queued job with its submission (and the submission's stored zip)."""

    id: int
    judgement_id: int | None  # None: never taken yet
    reason: str  # submit | rejudge
    submission: SubmissionRecord
    files_zip: bytes
    rejudging_id: int | None = None  # the rejudging set it belongs to (issue 47)


class Scope(StrEnum):
    """Who an event is for (visibility.py decides and reads it)."""

    PUBLIC = "public"  # everyone (unless ``frozen``: then its team and staff)
    OWNER = "owner"  # the team ``team_id`` and staff
    ADMIN = "admin"  # staff only
    TEAMS = "teams"  # the teams in ``team_ids`` (and staff, unless ``staff`` is False)
    OTHERS = "others"  # the public and every team not in ``team_ids`` (and staff, unless ``staff`` is False)


@dataclass(frozen=True)
class Audience:
    scope: Scope
    team_id: str | None = None
    frozen: bool = False
    team_ids: tuple[str, ...] = ()  # the teams a TEAMS event is for, or an OTHERS event is not for
    staff: bool = True  # False: the version of an object shown to some teams; staff see another, in full


@dataclass(frozen=True)
class EventRecord:
    """One change to an object the API shows; ``id`` is the feed's token, ``data`` the object's JSON text
    (``null``: deleted)."""

    id: int
    type: str
    obj_id: str | None
    data: str
    audience: Audience
    time_s: float

    @cached_property
    def feed_head(self) -> str:
        """The event's NDJSON feed line up to its token (each viewer's token differs, the rest does not):
        made once per event, not once per feed that sends it (issue 32: 500 open feeds)."""
        return f'{{"type":{json.dumps(self.type)},"id":{json.dumps(self.obj_id)},"data":{self.data},"token":"'


@dataclass(frozen=True)
class NewEvent:
    type: str
    obj_id: str | None
    data: str
    audience: Audience
    time_s: float


@dataclass(frozen=True)
class Counted:
    """A submission with its current finished judgement (None: pending), for the live board."""

    submission: SubmissionRecord
    judgement: JudgementRecord | None


@dataclass(frozen=True)
class SessionRecord:
    """A logged-in page session (docs/security.md): the cookie is ``<selector>.<verifier>``; only the
    verifier's SHA-256 is stored, so the database alone cannot be turned into a cookie."""

    selector: str
    verifier_sha256: str
    account_id: str
    created_s: float
    expires_s: float


@dataclass(frozen=True)
class ClarificationRecord:
    """A clarification: a team's question (``from_team_id``), or the jury's answer (``reply_to_id``) or
    announcement, to everyone or to chosen teams and groups. ``id`` is the database's (the order they were
    sent in); the API shows ``public_id`` (random: an id says nothing of how many others there are)."""

    id: int
    public_id: str
    from_team_id: str | None
    to_team_ids: tuple[str, ...] | None  # None (both): to everyone (or, a question: to the jury)
    to_group_ids: tuple[str, ...] | None
    recipients: tuple[str, ...] | None  # the teams it was sent to (its teams and its groups' teams then)
    reply_to_id: int | None
    problem_id: str | None
    text: str
    time_s: float
    account_id: str | None  # who sent it (a judge's answer is attributable; shown to staff only)

    @property
    def question(self) -> bool:
        return self.from_team_id is not None

    @property
    def to_everyone(self) -> bool:
        return self.from_team_id is None and self.recipients is None


@dataclass(frozen=True)
class NewClarification:
    public_id: str
    from_team_id: str | None
    to_team_ids: tuple[str, ...] | None
    to_group_ids: tuple[str, ...] | None
    recipients: tuple[str, ...] | None
    reply_to_id: int | None
    problem_id: str | None
    text: str
    time_s: float
    account_id: str | None


@dataclass(frozen=True)
class AwardEdit:
    """An admin's award (the spec's POST, PUT, PATCH, DELETE of awards), kept as the admin left it: it
    replaces the computed award of the same id, or adds one; ``removed``: the award is not served."""

    id: str
    citation: str
    team_ids: tuple[str, ...] | None
    removed: bool = False


@dataclass(frozen=True)
class Counterexample:
    """A live fuzzing's counterexample (issue 33, docs/live-fuzzing.md): an input on which an accepted
    submission disagrees with the reference. Jury only (visibility.sees_fuzzing). ``id`` 0: not stored yet."""

    problem_id: str
    submission_id: int
    judgement_id: int  # the AC judgement that was fuzzed
    input: bytes  # the shrunk .in
    answer: bytes  # the reference's .ans
    output: bytes | None  # what the submission gave (None: it crashed / timed out first)
    verdict: str  # judge.judging.verdict.Verdict's value
    message: str  # the validator's message
    confirmed: bool  # the package's own output validator gives the same rejection
    found_s: float
    id: int = 0
    added_as: str | None = None  # the test case it became (``secret/fuzz-<id>``); None: not added
    fuzz_job_id: int | None = None  # the fuzz job that found it (None: stored before schema 9)
    truncated: bool = False  # input, answer or output was cut to services/judging/fuzz_jobs.MAX_BYTES (said in message)
    team_id: str | None = None  # the submission's team (read from the submission; not stored twice)


@dataclass(frozen=True)
class ProblemVersion:
    """A version of a problem's package made while the contest runs (issue 33): a copy under the server's
    data directory. Version 1 is the package the server was started with (not stored). ``state``: preview
    (being previewed), current (judged against), retired (was current), discarded (its files removed)."""

    problem_id: str
    version: int
    path: str
    reason: str
    created_s: float
    state: str


@dataclass(frozen=True)
class PreviewRecord:
    """A rejudge preview of a new package version (issue 33): ``kind`` add-test (a counterexample became a
    test: each accepted submission is run on that test only) or package (an uploaded version: every
    submission judged in full); ``base_version``: the version current when it was made (applying it when
    another is current is refused). ``state``: preparing | running | ready | refused | applied | discarded."""

    problem_id: str
    version: int
    base_version: int
    kind: str
    counterexample_id: int | None
    state: str
    message: str
    created_s: float
    test_name: str | None = None  # add-test: the new test (``secret/fuzz-<n>``)
    id: int = 0
    # issue 47: every rejudging is such a set. kind ``rejudge``: the submissions ``scope`` names (JSON:
    # submission_ids, problem_id, language_id, team_id or all) judged again into held judgements, made
    # current when the set is applied (by itself when ``auto_apply``); ``created_by``: who started it
    scope: str = ""
    auto_apply: bool = False
    created_by: str = ""


@dataclass(frozen=True)
class PreviewRun:
    """One submission judged by a preview: its current verdict and score, and those on the new version."""

    preview_id: int
    submission_id: int
    verdict_before: str
    verdict_after: str
    score_before: float
    score_after: float
    failing_test: str | None  # the first test it fails on the new version (None: it passes)
    time_s: float


class FuzzState(StrEnum):
    """A fuzz job's state (docs/live-fuzzing.md): open while queued or running, then one of the others."""

    QUEUED = "queued"
    RUNNING = "running"  # a pool slot runs it now (or ran it when the server stopped: claimed again)
    SURVIVED = "survived"  # the budget was spent without a disagreement
    COUNTEREXAMPLE = "counterexample"
    ERROR = "error"  # the package's fuzz.py, its validators or the judge failed: never charged to anyone
    CANCELLED = "cancelled"  # a rejudge made the submission not AC, or it was ignored


OPEN_FUZZ = (FuzzState.QUEUED, FuzzState.RUNNING)


@dataclass(frozen=True)
class FuzzJobRecord:
    """A live fuzzing job (issue 33): one accepted submission, fuzzed on idle judging slots with a budget of
    examples and seconds, resumed where it stopped when it yielded its slot."""

    id: int
    submission_id: int
    judgement_id: int  # the AC judgement that asked for it
    package_hash: str  # the package it was asked for (as judgements.package_hash)
    state: FuzzState
    examples_done: int
    spent_s: float
    attempts: int  # runs started (the seed of each derives from the id and this)
    message: str  # why error or cancelled
    queued_s: float
    finished_s: float | None
    problem_id: str = ""  # the submission's (read with it)
    team_id: str = ""


@dataclass(frozen=True)
class TeamSessions:
    """A team's page sessions (issue 47's team overview)."""

    live: int  # page sessions not expired (logged in now)
    last_login_s: float | None  # the newest one kept (a logout deletes its session)
