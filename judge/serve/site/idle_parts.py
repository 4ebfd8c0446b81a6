"""The optional parts of a contest the wiring (site/server.py's ``open_contest``) composes: live fuzzing's queue
(issue 33) and the counterexample searches for rejected submissions (issue 46: the judging queue's hook and
the searches' queue), each an idle queue of the judging pool (services/judging/idle.py), loaded only when on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from judge.serve.model.contest import Contest
from judge.serve.services.judging.explain_plan import (
    AfterJudgement,
    cancel_after,
    explainable_problems,
    queue_after,
    searches_any,
    withdraw,
)
from judge.serve.services.judging.queue import JobQueue
from judge.serve.storage import Storage

if TYPE_CHECKING:  # live fuzzing and counterexamples load the fuzzer (Hypothesis) only when they are on
    from judge.serve.services.judging.explain_jobs import ExplainQueue
    from judge.serve.services.judging.explain_plan import LiveExplain
    from judge.serve.services.judging.fuzz_jobs import FuzzQueue, LiveFuzz
    from judge.serve.site.server import ServeOptions


def fuzz_queue(
    live: LiveFuzz, storage: Storage, queue: JobQueue, options: ServeOptions, contest: Callable[[], Contest]
) -> FuzzQueue:
    """Live fuzzing's queue: an idle queue of the judging pool, after the real judging (services/judging/idle.py)."""
    from judge.serve.services.judging.fuzz_jobs import FuzzQueue, QueueSetup

    setup = QueueSetup(contest=contest, hold=lambda: queue.hold, now=queue.now, log=options.log)
    if options.on_counterexample is None:
        return FuzzQueue(storage, live, setup)
    return FuzzQueue(storage, live, setup, on_counterexample=options.on_counterexample)


def explaining(
    contest: Contest, options: ServeOptions, server: Callable[[], Contest], storage: Storage, now: float
) -> tuple[tuple[AfterJudgement, ...], dict[str, bool]]:
    """Counterexamples for rejected submissions (issue 46): the searches queued under a policy that is off now
    cancelled (whether or not anything is searched now: explain_plan.withdraw), and every open one on a server
    that searches none whatever the policy (``options.unsearched``: a cluster); the judging queue's hook (a
    rejected judgement queues a search, an accepted one cancels them), and the problems searched (none: no
    queue)."""
    if options.read_only:
        return (), {}
    unsearched = options.unsearched if options.explain is None else None
    with storage.write() as w:
        cancelled = withdraw(w, contest, w.explanations(open_only=True), now, unsearched=unsearched)
    for reason in sorted(set(cancelled.values())):
        n = sum(r == reason for r in cancelled.values())
        options.log(f"contest {contest.info.id!r}: {n} counterexample search(es) not run: {reason}")
    if options.explain is None:  # nothing searched here; a rejudge to AC still cancels what was
        return (cancel_after(),), {}
    explainable = explainable_problems(contest, options.log) if searches_any(contest) else {}
    if explainable:
        policy = contest.info.counterexamples
        budget = policy.budget
        options.log(
            f"contest {contest.info.id!r}: counterexamples for rejected submissions of "
            f"{', '.join(sorted(explainable))} (shown to: {policy.show.value}, problems.yaml may differ; "
            f"{budget.examples} examples, {budget.seconds:g} s each; at most {policy.per_team} per team)"
        )
    return (queue_after(explainable, server),), explainable


def explain_queue(
    live: LiveExplain, storage: Storage, queue: JobQueue, options: ServeOptions, contest: Callable[[], Contest]
) -> ExplainQueue:
    """The counterexample searches' queue: an idle queue of the judging pool (services/judging/idle.py)."""
    from judge.serve.services.judging.explain_jobs import ExplainQueue, QueueSetup

    return ExplainQueue(
        storage, live, QueueSetup(contest=contest, hold=lambda: queue.hold, now=queue.now, log=options.log)
    )
