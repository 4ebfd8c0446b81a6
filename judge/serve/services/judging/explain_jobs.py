"""Counterexample searches on idle judging slots (issue 46, docs/explain.md): the ``ExplainQueue``, an
idle.IdleQueue the judging pool asks only when no real job waits (a real submission is never delayed), and
its jobs, each one run of ``judge.fuzz.explain.explain_submission`` (the engine of `judge grade --explain`)
for one rejected submission, in the server's own sandbox, with the package version it was judged with and
its language's time factor.

A search's budget (the examples and seconds of the policy it was queued under) is spent over as many runs as
it takes: a run that gives its slot back (``cancelled()``: real work waits for it, or the server stops)
stores the examples, seconds and withheld failures so far and the search is queued again; the next run gets
the rest. The seconds count only while a run runs (the budget given to each run is what is left, measured
with ``LiveExplain.timer``: a paused clock). The first run's seed is `judge grade --explain`'s
(``EXPLAIN_SEED``: an uninterrupted search tries the same inputs), a resumed one's derives from the search's
id and the attempt (reproducible: the outcome depends on the seed, not on timing; a new seed also tries
inputs the stopped run did not reach).

The end is stored in one transaction with the decision of the per-team limit: a counterexample found under
``show: team`` is the team's (``team_shown``) while the team has been shown fewer than the policy's
``per_team``. The input, the answer and the output are each cut to ``MAX_BYTES`` (said in the message).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from judge.fuzz.explain import explain_submission
from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.options import EXPLAIN_SEED, ExplainBudget
from judge.judging.jobs import JudgeJob
from judge.judging.prepared import PackageMismatch
from judge.judging.verdict import Verdict
from judge.serve.model.contest import Contest
from judge.serve.model.counterexamples import CounterexampleView
from judge.serve.model.errors import Refused
from judge.serve.model.explanations import ExplainRecord, result_json
from judge.serve.model.records import SubmissionRecord
from judge.serve.model.upload import job_files, unpack
from judge.serve.services.judging.explain_plan import LiveExplain, allows, withdraw
from judge.serve.services.judging.fuzz_jobs import _private, _with_time_factor
from judge.serve.services.judging.idle import IdleJob
from judge.serve.services.judging.queue import UNPACK_LIMIT, Hold
from judge.serve.storage import Storage

MAX_BYTES = 1024 * 1024  # of a counterexample's input, answer and output each (the rest is cut, and said so)
WORK_DIR = "explain-work"  # where a run stages the submission, in the contest's folder (owner-only)


def search_seed(explain_id: int, attempt: int) -> int:
    """The seed of a search's ``attempt``-th run (1: `judge grade --explain`'s)."""
    if attempt <= 1:
        return EXPLAIN_SEED
    return (explain_id * 0x9E3779B1 + attempt * 0x85EBCA77) % 2**32


@dataclass(frozen=True)
class QueueSetup:
    """What the queue reads: the contest in force, the judging hold, the clock, where to say things."""

    contest: Callable[[], Contest]
    hold: Callable[[], Hold]
    now: Callable[[], float]
    log: Callable[[str], None] = lambda line: None


class ExplainQueue:
    """The searches, as an idle.IdleQueue: nothing while judging is paused, no held problem's, none the policy
    in force no longer allows (cancelled instead: explain_plan.withdraw)."""

    def __init__(self, storage: Storage, live: LiveExplain, setup: QueueSetup) -> None:
        self.storage = storage
        self.live = live
        self.setup = setup

    def claim_idle(self, limit: int, busy: Collection[str]) -> list[IdleJob]:
        hold = self.setup.hold()
        if hold.paused or limit <= 0:
            return []
        exclude = [int(k.removeprefix("explain:")) for k in busy if k.startswith("explain:")]
        with self.storage.read() as r:
            found = r.open_explanations(limit, exclude, hold.problems)
        contest = self.setup.contest()
        if not all(allows(contest, e) for e in found):
            with self.storage.write() as w:  # the policy in force no longer allows it (explain_plan.withdraw)
                off = set(withdraw(w, contest, found, self.setup.now()))
            found = [e for e in found if e.id not in off]
        return [ExplainJob(self, e.id, e.submission_id) for e in found]


class SearchFailed(Exception):
    """The search cannot run (the judge's or the package's failure, never the submission's)."""


@dataclass(frozen=True)
class ExplainJob:
    """One run of a search (idle.IdleJob)."""

    queue: ExplainQueue
    explain_id: int
    submission_id: int

    @property
    def key(self) -> str:
        return f"explain:{self.explain_id}"

    @property
    def label(self) -> str:
        return f"counterexample for submission {self.submission_id}"

    def run(self, cancelled: Callable[[], bool]) -> None:
        q = self.queue
        with q.storage.write() as w:
            search = w.start_explanation(self.explain_id)
            sub = next(iter(w.submissions(ids=[self.submission_id])), None)
            files = w.submission_files(self.submission_id)
        if search is None or sub is None or files is None:
            return  # cancelled meanwhile
        budget = search.policy.budget
        examples, seconds = budget.examples - search.examples_done, budget.seconds - search.spent_s
        if examples <= 0 or seconds <= 0:  # spent (a run stopped right at its end)
            self._finish(search, self._merged(search, self._spent(search)))
            return
        started = q.live.timer()
        try:
            found = self._search(search, sub, files, ExplainBudget(examples, seconds), cancelled)
        except SearchFailed as exc:
            found = replace(self._spent(search), status=ExplainStatus.ERROR, note=str(exc))
        if found.status is ExplainStatus.CANCELLED:  # the slot was asked back: queued again with the rest
            spent = search.spent_s + (q.live.timer() - started)
            with q.storage.write() as w:
                w.explanation_progress(
                    search.id, search.examples_done + found.examples, spent, search.withheld + found.withheld
                )
            return
        self._finish(search, self._merged(search, found))

    def _search(
        self,
        search: ExplainRecord,
        sub: SubmissionRecord,
        files_zip: bytes,
        left: ExplainBudget,
        stop: Callable[[], bool],
    ) -> Explanation:
        q = self.queue
        env, contest = q.live.env, q.setup.contest()
        lang = env.languages.get(sub.language_id)
        if lang is None or contest.problem(sub.problem_id) is None:
            raise SearchFailed(f"problem {sub.problem_id!r} or language {sub.language_id!r} is not judged here")
        try:
            prepared = q.live.packages.prepared(sub.problem_id, search.package_hash)
            files, folder = job_files(unpack(files_zip, UNPACK_LIMIT), lang, sub.entry_point)
        except (PackageMismatch, Refused, KeyError) as exc:
            raise SearchFailed(f"not searched: {exc}") from None
        prepared = _with_time_factor(prepared, contest.info.time_factor(sub.language_id))
        stage = _private(contest.root / WORK_DIR) / f"e{search.id}"
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir(mode=0o700)
        try:
            source = JudgeJob(sub.problem_id, search.package_hash, lang.id, files, folder).stage(stage)
            return explain_submission(
                prepared,
                source,
                env,
                Verdict(search.verdict),
                left,
                seed=search_seed(search.id, search.attempts),
                language=lang.id,
                entry_point=sub.entry_point,
                cancelled=stop,
                clock=q.live.timer,
            )
        except Exception as exc:  # noqa: BLE001 - SkipLanguage, the engine's or the package's failure: never charged
            raise SearchFailed(f"{type(exc).__name__}: {exc}") from None
        finally:
            shutil.rmtree(stage, ignore_errors=True)

    def _spent(self, search: ExplainRecord) -> Explanation:
        """The end of a search whose budget is spent (before this run found anything)."""
        budget = search.policy.budget
        return Explanation(
            ExplainStatus.NOT_FOUND, search.problem_id, Verdict(search.verdict), budget, EXPLAIN_SEED,
            note=f"none in {search.examples_done} examples",
        )  # fmt: skip

    def _merged(self, search: ExplainRecord, found: Explanation) -> Explanation:
        """This run's result, counted over every run of the search (the examples, the seconds, the failures
        withheld), with the policy's budget; the bytes cut to MAX_BYTES."""
        examples = search.examples_done + found.examples
        withheld = search.withheld + found.withheld
        out = replace(
            found,
            budget=search.policy.budget,
            examples=examples,
            withheld=withheld,
            elapsed_s=search.spent_s + found.elapsed_s,
            found_after_s=search.spent_s + found.found_after_s if found.found else 0.0,
        )
        if out.status is ExplainStatus.NOT_FOUND and withheld:
            note = f"the program failed only on inputs equal to one of the package's tests ({withheld})"
            return replace(out, status=ExplainStatus.WITHHELD, note=note)
        if out.status is ExplainStatus.NOT_FOUND and found.note.startswith("none in "):
            return replace(out, note=f"none in {examples} examples" + found.note.partition(" examples")[2])
        if not out.found:
            return out
        cut = []
        for part in ("input", "answer", "output"):
            data = getattr(out, part)
            if data is not None and len(data) > MAX_BYTES:
                out = replace(out, **{part: data[:MAX_BYTES]})
                cut.append(part)
        if cut:
            out = replace(out, message=f"{out.message}\n({', '.join(cut)} cut to {MAX_BYTES} bytes)".strip())
        return out

    def _finish(self, search: ExplainRecord, result: Explanation) -> None:
        q = self.queue
        done = replace(
            search,
            examples_done=result.examples,
            spent_s=result.elapsed_s,
            withheld=result.withheld,
            result=result,
        )
        now = q.setup.now()
        with q.storage.write() as w:
            if result.found and search.policy.show is CounterexampleView.TEAM:
                done = replace(done, team_shown=w.team_shown_explanations(search.team_id) < search.policy.per_team)
            if not w.finish_explanation(done, result_json(result), now):
                return  # cancelled meanwhile (a rejudge accepted it)
        what = result.status.value if not result.note else f"{result.status.value}: {result.note}"
        q.setup.log(f"counterexamples: submission {search.submission_id} ({search.problem_id}): {what}")
