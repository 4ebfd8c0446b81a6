"""The storage's ``Reader`` Protocol (storage/__init__.py re-exports it): the queries, in one consistent
snapshot; typed records out (judge/serve/model/records.py)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from judge.serve.model.contest import Team
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
    JudgementRecord,
    Lease,
    LiveAccount,
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
from judge.serve.model.similarity import PairReview, SimilarityRecord


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
