"""Live fuzzing's jobs (issue 33, docs/live-fuzzing.md): the ``FuzzQueue``, an idle.IdleQueue the judging
pool asks only when no real job waits, and its jobs, which fuzz one accepted submission with
``judge.fuzz.engine.fuzz_submission`` (the engine of `judge fuzz`) in the server's own sandbox, with the
package judging prepared and the submission's language's time factor.

A job's budget (examples and seconds) is spent over as many runs as it takes: a run that yields its slot
(``cancelled()``: real work waits, or the server stops) stores what it did and the job is queued again;
the next run gets the rest, with a seed derived from the job's id and the attempt (reproducible). The
seconds count only while a run runs. Hypothesis' example database is ``<contest>/fuzz-db`` (owner-only),
keyed by problem and submission, so a failure found before a restart is replayed first after it.

The end is stored in one transaction: ``survived``, ``error`` (the package's fuzz.py, its validators or
the judge failed: a JE, charged to no one, with its message), or ``counterexample`` with the
counterexample (its input, the reference's answer and the submission's output each cut to ``MAX_BYTES``,
the cut said in ``truncated`` and the message). Nothing is published on the event feed (no event type of
the spec is a counterexample); ``on_counterexample`` tells the pages' live notification instead.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path

from judge.fuzz.engine import fuzz_submission
from judge.fuzz.hooks import load_hooks
from judge.fuzz.options import LIVE_FUZZ_EXAMPLES, LIVE_FUZZ_SECONDS, FuzzOptions
from judge.fuzz.outcome import FuzzOutcome, FuzzStatus
from judge.judging.jobs import JudgeJob
from judge.judging.prepared import PackageMismatch, Packages
from judge.judging.submission import Environment, Prepared
from judge.package.problem import PackageError
from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused
from judge.serve.model.records import Counterexample, FuzzJobRecord, FuzzState, SubmissionRecord
from judge.serve.model.upload import job_files, unpack
from judge.serve.services.judging.idle import IdleJob
from judge.serve.services.judging.queue import UNPACK_LIMIT, Hold
from judge.serve.storage import Storage

MAX_BYTES = 1024 * 1024  # of a counterexample's input, answer and output each (the rest is cut, and said so)
DB_DIR = "fuzz-db"  # Hypothesis' example database, in the contest's folder
WORK_DIR = "fuzz-work"  # where a run stages the submission (the same path each run: the database's key)
HOME_DIR = "fuzz-home"  # Hypothesis' own files (the constants it collects from fuzz.py): `judge serve` puts them here


@dataclass(frozen=True)
class FuzzBudget:
    """What one submission gets, over all its runs."""

    examples: int = LIVE_FUZZ_EXAMPLES
    seconds: float = LIVE_FUZZ_SECONDS  # counted only while a run runs


@dataclass(frozen=True)
class LiveFuzz:
    """Live fuzzing as `judge serve --fuzz` sets it up (built once, at the edge, and passed down): the
    environment (sandbox, languages, limits) and the prepared packages the server judges with."""

    env: Environment
    packages: Packages
    budget: FuzzBudget = FuzzBudget()
    timer: Callable[[], float] = time.monotonic  # measures the seconds spent


OnCounterexample = Callable[[Counterexample], None]


def fuzzable_problems(contest: Contest, log: Callable[[str], None]) -> frozenset[str]:
    """The problems whose package has a fuzz.py (its ``answer`` is the reference); a broken one is said."""
    out = set()
    for p in contest.problems:
        try:
            if load_hooks(p.problem) is not None:
                out.add(p.id)
        except PackageError as exc:
            log(f"live fuzzing: problem {p.id} is not fuzzed: {exc}")
    return frozenset(out)


def job_seed(job_id: int, attempt: int) -> int:
    """The seed of a job's ``attempt``-th run: the outcome depends on it, not on timing."""
    return (job_id * 0x9E3779B1 + attempt * 0x85EBCA77) % 2**32


def capped(data: bytes | None) -> tuple[bytes | None, bool]:
    if data is None or len(data) <= MAX_BYTES:
        return data, False
    return data[:MAX_BYTES], True


@dataclass(frozen=True)
class QueueSetup:
    """What the fuzz queue reads: the contest in force, the judging hold, the clock, where to say things."""

    contest: Callable[[], Contest]
    hold: Callable[[], Hold]
    now: Callable[[], float]
    log: Callable[[str], None] = lambda line: None


class FuzzQueue:
    """The fuzz jobs, as an idle.IdleQueue: nothing while judging is paused, no held problem's jobs."""

    def __init__(
        self,
        storage: Storage,
        live: LiveFuzz,
        setup: QueueSetup,
        *,
        on_counterexample: OnCounterexample = lambda c: None,
    ) -> None:
        self.storage = storage
        self.live = live
        self.setup = setup
        self.on_counterexample = on_counterexample

    def data_dir(self) -> Path:
        return self.setup.contest().root

    def claim_idle(self, limit: int, busy: Collection[str]) -> list[IdleJob]:
        hold = self.setup.hold()
        if hold.paused or limit <= 0:
            return []
        exclude = [int(k.removeprefix("fuzz:")) for k in busy if k.startswith("fuzz:")]
        with self.storage.read() as r:
            jobs = r.open_fuzz_jobs(limit, exclude, hold.problems)
        return [FuzzJob(self, j.id, j.submission_id) for j in jobs]


@dataclass(frozen=True)
class FuzzJob:
    """One run of a fuzz job (idle.IdleJob)."""

    queue: FuzzQueue
    job_id: int
    submission_id: int

    @property
    def key(self) -> str:
        return f"fuzz:{self.job_id}"

    @property
    def label(self) -> str:
        return f"fuzzing submission {self.submission_id}"

    def run(self, cancelled: Callable[[], bool]) -> None:
        q = self.queue
        with q.storage.write() as w:
            job = w.start_fuzz(self.job_id)
            sub = next(iter(w.submissions(ids=[self.submission_id])), None)
            files = w.submission_files(self.submission_id)
        if job is None or sub is None or files is None:
            return  # cancelled meanwhile
        left = Budget(q.live.budget.examples - job.examples_done, q.live.budget.seconds - job.spent_s)
        if left.examples <= 0 or left.seconds <= 0:
            self._finish(job, FuzzState.SURVIVED, "")
            return
        started = q.live.timer()
        deadline = started + left.seconds

        def stop() -> bool:
            return cancelled() or q.live.timer() >= deadline

        try:
            outcome = self._fuzz(job, sub, files, left, stop)
        except FuzzFailed as exc:
            self._finish(job, FuzzState.ERROR, str(exc))
            return
        spent = q.live.timer() - started
        done = replace(job, examples_done=job.examples_done + outcome.examples, spent_s=job.spent_s + spent)
        self._store(done, sub, outcome, timed_out=q.live.timer() >= deadline)

    def _fuzz(
        self, job: FuzzJobRecord, sub: SubmissionRecord, files_zip: bytes, left: Budget, stop: Callable[[], bool]
    ) -> FuzzOutcome:
        q = self.queue
        env, contest = q.live.env, q.setup.contest()
        lang = env.languages.get(sub.language_id)
        if lang is None or contest.problem(sub.problem_id) is None:
            raise FuzzFailed(f"problem {sub.problem_id!r} or language {sub.language_id!r} is not judged here")
        try:
            prepared = q.live.packages.prepared(sub.problem_id, job.package_hash)
            files, folder = job_files(unpack(files_zip, UNPACK_LIMIT), lang, sub.entry_point)
        except (PackageMismatch, Refused, KeyError) as exc:
            raise FuzzFailed(f"not fuzzed: {exc}") from None
        prepared = _with_time_factor(prepared, contest.info.time_factor(sub.language_id))
        options = FuzzOptions(
            examples=left.examples,
            seed=job_seed(job.id, job.attempts),
            jobs=1,
            pipeline=False,
            database_dir=_private(q.data_dir() / DB_DIR),
            shrink_time_s=max(1.0, left.seconds),
            language=lang.id,
            entry_point=sub.entry_point,
        )
        stage = _private(q.data_dir() / WORK_DIR) / f"s{sub.id}"  # the same path each run: the database's key
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir(mode=0o700)
        try:
            source = JudgeJob(sub.problem_id, job.package_hash, lang.id, files, folder).stage(stage)
            return fuzz_submission(prepared, source, env, options, cancelled=stop)
        except Exception as exc:  # noqa: BLE001 - SkipLanguage, the engine's or the package's failure: a JE
            raise FuzzFailed(f"{type(exc).__name__}: {exc}") from None
        finally:
            shutil.rmtree(stage, ignore_errors=True)

    def _store(self, job: FuzzJobRecord, sub: SubmissionRecord, outcome: FuzzOutcome, *, timed_out: bool) -> None:
        status = outcome.status
        if status is FuzzStatus.CANCELLED and not timed_out:
            with self.queue.storage.write() as w:
                w.fuzz_progress(job.id, job.examples_done, job.spent_s)
            return
        if status in (FuzzStatus.CANCELLED, FuzzStatus.PASSED):  # the budget's seconds or examples are spent
            self._finish(job, FuzzState.SURVIVED, "")
        elif status is FuzzStatus.COUNTEREXAMPLE and outcome.counterexample is not None:
            self._found(job, sub, outcome)
        else:  # ERROR, NOT_BUILT (an AC submission the fuzzer cannot build), UNAVAILABLE (fuzz.py gone)
            self._finish(job, FuzzState.ERROR, f"{status.value}: {outcome.message}".strip())

    def _found(self, job: FuzzJobRecord, sub: SubmissionRecord, outcome: FuzzOutcome) -> None:
        cex = outcome.counterexample
        assert cex is not None
        q = self.queue
        (data, cut_in), (answer, cut_ans), (output, cut_out) = capped(cex.input), capped(cex.answer), capped(cex.output)
        cut = [name for name, was in (("input", cut_in), ("answer", cut_ans), ("output", cut_out)) if was]
        note = f"\n({', '.join(cut)} cut to {MAX_BYTES} bytes)" if cut else ""
        now = q.setup.now()
        stored = Counterexample(
            problem_id=sub.problem_id,
            submission_id=sub.id,
            judgement_id=job.judgement_id,
            input=data or b"",
            answer=answer or b"",
            output=output,
            verdict=cex.verdict.value,
            message=cex.message + note,
            confirmed=cex.confirmed,
            found_s=now,
            fuzz_job_id=job.id,
            truncated=bool(cut),
            team_id=sub.team_id,
        )
        with q.storage.write() as w:
            if not w.finish_fuzz(job, FuzzState.COUNTEREXAMPLE, "", now):
                return  # cancelled meanwhile (a rejudge): the bug is no longer in an accepted submission
            stored = replace(stored, id=w.add_counterexample(stored))
        q.setup.log(
            f"live fuzzing: submission {sub.id} ({sub.problem_id}): counterexample {stored.id} ({stored.verdict})"
        )
        q.on_counterexample(stored)

    def _finish(self, job: FuzzJobRecord, state: FuzzState, message: str) -> None:
        q = self.queue
        with q.storage.write() as w:
            w.finish_fuzz(job, state, message, q.setup.now())
        if state is FuzzState.ERROR:
            q.setup.log(f"live fuzzing: submission {job.submission_id}: {message}")


@dataclass(frozen=True)
class Budget:
    examples: int
    seconds: float


class FuzzFailed(Exception):
    """The job cannot be fuzzed (the judge's or the package's failure, never the submission's)."""


def _with_time_factor(prepared: Prepared, factor: float) -> Prepared:
    """The package's time limit times the language's factor, as judging.jobs.judge_job does."""
    if factor == 1.0:
        return prepared
    limits = prepared.problem.limits
    return replace(prepared, problem=replace(prepared.problem, limits=replace(limits, time_s=limits.time_s * factor)))


def _private(folder: Path) -> Path:
    """``folder``, made owner-only (it holds the teams' code and inputs derived from the tests)."""
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder
