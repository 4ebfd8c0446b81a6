"""Judging from the durable queue (the storage's jobs), in four small steps: claim, judge, store, publish.

A job is stored in the same transaction as its submission (or by a rejudge). ``claim`` gives a job its
judgement (pending, published) the first time it is taken; ``judge`` runs the ``JudgeFn`` (the judge's
own failures become a JE result, never charged); ``complete`` stores the result, the runs, the events
and the job's ``done`` flag in one transaction and refuses a job already done. A server killed at any
moment therefore finds on restart every job either done (stored once) or not (judged again, into the
same pending judgement): every acknowledged submission is judged and stored exactly once. Who sees the
events each step publishes is visibility.py's decision.

The judging itself is a seam, ``JudgeFn`` (judge_fn.py): a function from a ``JudgeJob`` to a ``SubmissionResult``.
It is ``judge_job`` on this machine (``local_judge``), or the judges of a Dask cluster (``judges_fn``: each
thread blocks on its remote task). When the cluster cannot judge a job now (``NotJudged``: every worker
that took it died; ``ClusterError``: the scheduler is gone), the job stays queued and is taken again; it
never becomes a JE. The threads that run the queue are in pool.py.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from judge.judging.build import SkipLanguage
from judge.judging.jobs import JudgeJob
from judge.judging.results import SubmissionResult
from judge.judging.submission import unjudged
from judge.judging.verdict import Verdict
from judge.languages.table import Language
from judge.serve.model.apijson import judgement_type, run_id, run_json
from judge.serve.model.contest import AccountSpec, Contest, ContestProblem
from judge.serve.model.course import CourseView
from judge.serve.model.phase import Phase
from judge.serve.model.records import (
    JobRecord,
    JudgementRecord,
    Lease,
    NewRun,
    SubmissionRecord,
)
from judge.serve.model.upload import job_files, unpack
from judge.serve.services.core.events import EventBus, publish
from judge.serve.services.core.timeline import Timeline
from judge.serve.services.judging import set_rows
from judge.serve.services.judging.judge_fn import NOT_NOW, JudgeFn
from judge.serve.services.judging.publishing import outcome, publish_judgement, run_detail
from judge.serve.storage import Storage, Writer
from judge.serve.visibility import awaits_verification, run_audience

UNPACK_LIMIT = 64 * 1024 * 1024  # stored zips were checked against the contest's limit when submitted


@dataclass(frozen=True)
class Claimed:
    """A job taken for judging, with its (pending) judgement."""

    job_id: int
    judgement_id: int
    submission: SubmissionRecord
    files_zip: bytes
    rejudging_id: int | None = None  # the rejudging set the job belongs to (issue 47)


@dataclass(frozen=True)
class LeaseTerms:
    """Several `judge serve` processes on one database (issue 51, ``--shared``; docs/design.md): this process's
    claims are leases in the database, of ``lease_s`` seconds, renewed while it judges; a killed process's jobs
    come back to the queue when theirs run out. ``owner``: this process's token; ``wall``: its clock (the
    server's: the wall clock, which the machines' NTP keeps in agreement; a test's own)."""

    owner: str
    lease_s: float = 30.0
    wall: Callable[[], float] = time.time

    def lease(self) -> Lease:
        now = self.wall()
        return Lease(self.owner, now, now + self.lease_s)


@dataclass(frozen=True)
class JudgingSetup:
    """What judging a job needs: the contest's problems and languages, the judge, and where to say what."""

    contest: Contest
    languages: Mapping[str, Language]
    judge_fn: JudgeFn
    log: Callable[[str], None] = lambda line: None
    fuzzable: frozenset[str] = frozenset()  # live fuzzing (issue 33): the problems whose AC submissions are fuzzed
    # a problem with its package version in force (issue 33: versions.CurrentPackages); None: as loaded
    current: Callable[[Contest, str], ContestProblem | None] | None = None
    # the accounts in force (issue 44: a site's are in the site's database, not the contest's); None: the
    # contest database's accounts table
    accounts: Callable[[], Sequence[AccountSpec]] | None = None
    # more to do in a judgement's own transaction, each called with the writer, the submission's id, the
    # judgement's id, the phase and the time (issue 46: explain_plan.queue_after queues a counterexample search)
    after: tuple[Callable[[Writer, int, int, Phase, float], None], ...] = ()
    # a course's assignment in force (issue 45: the feedback rules decide who is published what); None: none
    course: Callable[[], CourseView | None] = lambda: None
    # claims as leases in the database (issue 51: several processes on one database); None: this process is
    # the database's only one (its claims are the pool's in memory)
    leases: LeaseTerms | None = None


@dataclass(frozen=True)
class Hold:
    """What an admin holds back from judging (issue 30; kept in ``meta``): everything (paused), or some
    problems (their packages being fixed). Submissions are still accepted and queued."""

    paused: bool = False
    problems: frozenset[str] = frozenset()

    def dumps(self) -> str:
        return json.dumps({"paused": self.paused, "problems": sorted(self.problems)})

    @staticmethod
    def loads(text: str | None) -> Hold:
        data = json.loads(text) if text else {}
        return Hold(bool(data.get("paused", False)), frozenset(data.get("problems", ())))


class JobQueue:
    """Claims, judges and stores jobs; ``run_pending`` does all of it in the calling thread (tests, tools)."""

    def __init__(self, storage: Storage, timeline: Timeline, bus: EventBus, setup: JudgingSetup) -> None:
        with storage.read() as r:
            self._hold = Hold.loads(r.get_meta("judging_hold"))
        self._storage = storage
        self._timeline = timeline
        self._bus = bus
        self._contest = setup.contest
        self._languages = setup.languages
        self._judge_fn = setup.judge_fn
        self._log = setup.log
        self._fuzzable = setup.fuzzable
        self._current = setup.current
        self._accounts = setup.accounts
        self._after = setup.after
        self._course = setup.course
        self._leases = setup.leases
        self._leased: set[int] = set()  # the jobs this process holds a lease of (``leases``)
        self._leased_lock = threading.Lock()
        self._renewed_s = float("-inf")  # the wall clock time leases were last renewed

    def problem(self, problem_id: str) -> ContestProblem | None:
        """The problem with the package version new judgements use."""
        if self._current is None:
            return self._contest.problem(problem_id)
        return self._current(self._contest, problem_id)

    # ------------------------------------------------------------------------------------- claim

    def claim(self, limit: int, exclude: Collection[int] = frozenset()) -> list[Claimed]:
        """Up to ``limit`` jobs to judge (new submissions before rejudges), each with its judgement."""
        now, phase, hold = self._timeline.now(), self._timeline.phase, self._hold
        lease = None if self._leases is None else self._leases.lease()
        if hold.paused and lease is None:
            return []
        with self._storage.write() as w:
            if lease is not None:  # another process on the database may have changed it (issue 51)
                hold = self._hold = Hold.loads(w.get_meta("judging_hold"))
                if hold.paused:
                    return []
            jobs = [j for j in w.todo_jobs(limit + len(exclude), hold.problems, lease) if j.id not in exclude][:limit]
            if lease is not None:
                w.take_jobs([j.id for j in jobs], lease)
            out = [
                Claimed(j.id, self._judgement_of(w, j, phase, now), j.submission, j.files_zip, j.rejudging_id)
                for j in jobs
            ]
        if lease is not None:
            with self._leased_lock:
                self._leased.update(c.job_id for c in out)
        if out:
            self._bus.notify()
        return out

    def head(self, exclude: Collection[int] = frozenset()) -> tuple[bool, float] | None:
        """The order of the job ``claim`` would give first: (a rejudge?, its submission's time); None: nothing
        to claim now (the judging pool's order across a site's contests: pool.py)."""
        hold = self._hold
        if hold.paused:
            return None
        lease = None if self._leases is None else self._leases.lease()
        with self._storage.read() as r:
            found = r.next_job(hold.problems, exclude, lease)
        return None if found is None else (found[0] != "submit", found[1])

    def renew_leases(self) -> int:
        """Push back the expiry of this process's leases (every third of a lease at most: the server's clock
        thread asks every second); how many were renewed. Nothing without leases (``JudgingSetup.leases``)."""
        terms = self._leases
        if terms is None:
            return 0
        lease = terms.lease()
        if lease.now_s - self._renewed_s < terms.lease_s / 3:
            return 0
        self._renewed_s = lease.now_s
        with self._leased_lock:
            held = set(self._leased)
        if not held:
            return 0
        with self._storage.write() as w:
            return w.renew_leases(held, lease)

    def _let_go(self, job_id: int) -> None:
        with self._leased_lock:
            self._leased.discard(job_id)

    def _judgement_of(self, w: Writer, job: JobRecord, phase: Phase, now: float) -> int:
        """The job's judgement: made (and published) the first time the job is taken."""
        if job.judgement_id is not None:
            return job.judgement_id
        first = not w.judgements(submission_ids=[job.submission.id], current=True)
        held = set_rows.holds(set_rows.set_of(w, job.rejudging_id))  # a set's, until it is applied (issue 47)
        judgement = w.add_judgement(
            job.submission.id, current=first, start_s=now, held=held, rejudging_id=job.rejudging_id
        )
        w.attach_judgement(job.id, judgement.id)
        if not held:
            publish_judgement(w, phase, judgement, job.submission, now, self._course())
        return judgement.id

    # ------------------------------------------------------------------------------------- judge

    def job(self, c: Claimed) -> JudgeJob:
        s = c.submission
        cp = self.problem(s.problem_id)
        lang = self._languages.get(s.language_id)
        if cp is None or lang is None:
            raise SkipLanguage(f"problem {s.problem_id!r} or language {s.language_id!r} is no longer in the contest")
        files, folder = job_files(unpack(c.files_zip, UNPACK_LIMIT), lang, s.entry_point)
        label = f"submission {s.id} (team {s.team_id})"
        info = self._contest.info
        lazy = info.pass_fail and not info.judge_all_tests  # the verdict is known at the first failed test
        in_force = self._timeline.phase.info
        return JudgeJob(
            s.problem_id,
            cp.problem.content_hash,
            s.language_id,
            files,
            folder,
            label,
            stop_at_failure=lazy,
            entry_point=s.entry_point,
            # the factor in force when it is judged (an admin may change it live: model/language_factors.py)
            time_factor=in_force.time_factor(s.language_id),
            keep_bytes=in_force.output_storage.run_bytes,  # what the jury reads of each run (issue 47)
        )

    def judge(self, c: Claimed) -> SubmissionResult:
        """Judge a claimed job; the judge's own failures become a JE result (never charged)."""
        s = c.submission
        cp = self.problem(s.problem_id)
        try:
            return self._judge_fn(self.job(c))
        except NOT_NOW:
            raise
        except Exception as exc:  # noqa: BLE001 - SkipLanguage, an unreadable zip, an executor's failure
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            label = f"submission {s.id}"
            if cp is None:  # the problem was removed from problems.yaml since
                return SubmissionResult(s.problem_id, label, s.language_id, Verdict.JE, 0.0, 0.0, 0.0, 0, detail)
            return unjudged(cp.problem, label, s.language_id, Verdict.JE, detail)

    def judge_against(self, c: Claimed, package_hash: str) -> SubmissionResult:
        """Judge a submission against another version of its package (a rejudge preview, issue 33); the
        judge's failures raise (the preview tries again later)."""
        return self._judge_fn(replace(self.job(c), package_hash=package_hash, keep_bytes=0))

    # ------------------------------------------------------------------------------------- store

    def complete(self, c: Claimed, result: SubmissionResult) -> bool:
        """Store the result (once) and publish it. False when the job was done already."""
        now, phase = self._timeline.now(), self._timeline.phase
        with self._storage.write() as w:
            if w.job_done(c.job_id) is not False:
                self._let_go(c.job_id)
                return False  # done already (by another process, when this one's lease ran out: issue 51)
            group = set_rows.set_of(w, c.rejudging_id)
            (mine,) = w.judgements(ids=[c.judgement_id], held=None)
            before = next(iter(w.judgements(submission_ids=[c.submission.id], current=True)), None)
            changed = self._store(w, c, result, now, held=mine.held)
            if not mine.held:
                self._publish_result(w, c, phase, now, changed)
                self._judged(w, c, phase, now)
            w.finish_job(c.job_id)
            if group is not None:  # a rejudging set's member (issue 47): before → after, and the set's state
                (after,) = w.judgements(ids=[c.judgement_id], held=None)
                set_rows.record_member(w, group, before, after, now)
                set_rows.finish_if_done(w, group)
        self._let_go(c.job_id)
        self._bus.notify()
        s = c.submission
        self._log(
            f"submission {s.id} (team {s.team_id}, {s.problem_id}, {s.language_id}): "
            f"{result.verdict.value} {result.score:g}/{result.max_score:g} (judgement {c.judgement_id})"
        )
        return True

    def _store(
        self, w: Writer, c: Claimed, result: SubmissionResult, now: float, *, held: bool = False
    ) -> list[JudgementRecord]:
        """The judgement's outcome and its runs; the judgements whose ``current`` flag changed. A held
        judgement (a rejudging set's, issue 47) is stored non-current and changes no other."""
        s = c.submission
        cp = self.problem(s.problem_id)
        current = not held and not w.newer_done_job(s.id, c.job_id)
        changed = []
        if current:
            for old in w.judgements(submission_ids=[s.id], current=True):
                if old.id != c.judgement_id:
                    w.set_current(old.id, False)
                    changed.append(old.id)
        # the contest requires verification (issue 47): the jury's until a judge verifies it
        awaiting = self._timeline.phase.info.verification_required
        package = cp.problem.content_hash if cp else ""
        w.finish_judgement(c.judgement_id, outcome(result, current, now, package, awaiting))
        ordinals = {t.name: i + 1 for i, t in enumerate(cp.problem.tests())} if cp else {}
        tests = [(t, sc) for t, sc in zip(result.tests, result.test_scores, strict=True) if not t.skipped]
        budget = self._timeline.phase.info.output_storage.contest_bytes - w.run_details_bytes()
        for i, (t, score) in enumerate(tests):
            for d in t.details:  # what each pass printed (issue 47), while the contest's cap holds it
                detail = run_detail(c.judgement_id, ordinals.get(t.name, i + 1), d)
                if detail.stored_bytes > budget:
                    detail = replace(detail, output=None, stderr=None, input=None)
                budget -= detail.stored_bytes
                w.add_run_detail(detail)
            run = NewRun(
                c.judgement_id,
                ordinals.get(t.name, i + 1),
                t.name,
                t.verdict.value,
                judgement_type(t.verdict),
                now,
                round(t.time_s, 3),
                t.wall_time_s,
                t.memory_kib,
                score,
                t.message,
                t.transcript,
            )
            w.add_run(run)
        return w.judgements(ids=changed)

    def make_current(self, w: Writer, submission: SubmissionRecord, judgement_id: int, now: float) -> None:
        """A rejudging set's judgement applied (issue 47, rejudgings.py), in the caller's transaction: it
        becomes the submission's current one, and is published (with the one it replaces, and its runs) as
        if it had just been judged; live fuzzing and the counterexamples follow it as they follow any judgement."""
        phase = self._timeline.phase
        changed = []
        for old in w.judgements(submission_ids=[submission.id], current=True):
            if old.id != judgement_id:
                w.set_current(old.id, False)
                changed.append(old.id)
        w.set_current(judgement_id, True)
        c = Claimed(0, judgement_id, submission, b"")
        self._publish_result(w, c, phase, now, w.judgements(ids=changed))
        self._judged(w, c, phase, now)

    def publish_released(self, w: Writer, submission: SubmissionRecord, judgement_id: int, now: float) -> None:
        """A judgement verified (issue 47, verification.py), in the caller's transaction: published to its
        audience, with its runs and (when it is current) the judgements it replaced, which were published to
        the jury only while it waited."""
        (j,) = w.judgements(ids=[judgement_id])
        older = w.judgements(submission_ids=[submission.id], current=False) if j.current else []
        replaced = [x for x in older if x.id < judgement_id and x.done and not x.awaiting]
        s = next(iter(w.submissions(ids=[submission.id])), submission)
        self._publish_result(w, Claimed(0, judgement_id, s, b""), self._timeline.phase, now, replaced)

    # ------------------------------------------------------------------------------------- publish

    def _publish_result(self, w: Writer, c: Claimed, phase: Phase, now: float, changed: list[JudgementRecord]) -> None:
        # the submission as it is now, not as claimed: a judge may have ignored it meanwhile (issue 30)
        s = next(iter(w.submissions(ids=[c.submission.id])), c.submission)
        course = self._course()
        (judgement,) = w.judgements(ids=[c.judgement_id])
        waits = awaits_verification(judgement)  # issue 47: what it replaces too, until verified
        for old in changed:
            publish_judgement(w, phase, old, s, now, course, staff_only=waits)
        for run in w.runs(judgement_ids=[c.judgement_id]):
            audience = run_audience(phase, s, judgement, course, run.name, now)
            publish(w, "runs", run_id(run), run_json(run, phase.info), now=now, audience=audience)
        publish_judgement(w, phase, judgement, s, now, course)

    def _judged(self, w: Writer, c: Claimed, phase: Phase, now: float) -> None:
        """What follows a judgement that counts (judged, or a rejudging's applied: the same rule either way), in
        its transaction: live fuzzing, then the hooks (a counterexample search, issue 46)."""
        self._fuzz_after(w, c, phase, now)
        for hook in self._after:
            hook(w, c.submission.id, c.judgement_id, phase, now)

    def _fuzz_after(self, w: Writer, c: Claimed, phase: Phase, now: float) -> None:
        """Live fuzzing (issue 33, docs/live-fuzzing.md), in the judgement's transaction: a current AC of a
        fuzzable problem queues a fuzz job (not an ignored submission, not a staff account's, not one made
        outside the contest); a current judgement that is not AC cancels the submission's open one."""
        (j,) = w.judgements(ids=[c.judgement_id])
        if not j.current:
            return
        if j.verdict != Verdict.AC.value or (j.max_score is not None and (j.score or 0.0) < j.max_score - 1e-6):
            w.cancel_fuzz(c.submission.id, f"judgement {c.judgement_id}: {j.verdict}, no longer accepted", now)
            return
        s = next(iter(w.submissions(ids=[c.submission.id])), c.submission)
        if s.problem_id not in self._fuzzable or s.ignored or not phase.in_contest(s.time_s):
            return
        accounts = w.accounts() if self._accounts is None else self._accounts()
        if s.account_id is not None and any(a.id == s.account_id and a.type != "team" for a in accounts):
            return  # an admin's submission for a team: the jury's test, not a contestant's
        w.enqueue_fuzz(s.id, j.id, j.package_hash or "", now)

    # ------------------------------------------------------------------------------------- in this thread

    def now(self) -> float:
        return self._timeline.now()

    @property
    def hold(self) -> Hold:
        return self._hold

    @property
    def fuzzable(self) -> frozenset[str]:
        """The problems whose accepted submissions live fuzzing queues (none: it is off)."""
        return self._fuzzable

    def set_hold(self, w: Writer, hold: Hold) -> None:
        """Hold judging back (in the caller's transaction; the pool is woken by the caller)."""
        w.set_meta("judging_hold", hold.dumps())
        self._hold = hold

    def pending(self) -> int:
        with self._storage.read() as r:
            return r.pending_jobs()

    def run_pending(self) -> int:
        """Judge every queued job in this thread (tests, and tools); returns how many."""
        n = 0
        while claimed := self.claim(1):
            for c in claimed:
                self.complete(c, self.judge(c))
                n += 1
        return n
