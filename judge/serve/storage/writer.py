"""The storage's ``Writer`` Protocol (storage/__init__.py re-exports it): a ``Reader`` that changes things,
all of it one transaction."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from judge.serve.model.contest import Team
from judge.serve.model.explanations import ExplainRecord
from judge.serve.model.lti import LtiLink, LtiScore, LtiUser
from judge.serve.model.records import (
    AccountRecord,
    AuditRecord,
    AwardEdit,
    ClarificationRecord,
    Counterexample,
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
    ReviewRecord,
    RunDetail,
    RunRecord,
    SessionRecord,
    SiteContestRecord,
    SubmissionRecord,
)
from judge.serve.model.similarity import PairReview, SimilarityState
from judge.serve.storage.reader import Reader


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
