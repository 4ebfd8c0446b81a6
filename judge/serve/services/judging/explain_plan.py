"""Which judgements queue a counterexample search (issue 46, docs/explain.md), and what searching needs: the
judging queue's hook (``queue_after``, called in the judgement's own transaction), the problems searched,
and ``LiveExplain``, built once at the edge.

- A current judgement of a problem with ``fuzz.py`` whose verdict is searched (WA, RTE, PV; TLE where the
  package's fuzz.py says ``EXPLAIN_TLE``) queues one search per submission and package version, with the
  policy in force (the problem's view of contest.yaml's ``counterexamples``, its budget, its per-team
  limit) kept with it: a change of contest.yaml applies to later searches only (but see ``withdraw`` below).
  The same whether the judgement counts at once or when a rejudging set is applied (both call this hook).
  Not searched: when the problem's view is ``off``, an ignored submission, one made outside the contest, an
  admin's for a team.
- A current judgement whose verdict is not searched (a rejudge to AC, ...) cancels the submission's
  searches, open or ended: the team no longer sees them.
- A search not run yet (queued, or stopped part way) is checked against the policy in force when it would
  run (``withdraw``: at the server's start, and by the queue when it claims one): one whose problem's view
  is ``off`` now is cancelled (``POLICY_OFF``), not run. Turned on again, the policy does not search it
  again (as a rejection judged while it was off is not); a rejudge that stays rejected does.
- A server that runs no search whatever the policy (`judge serve --cluster`: the searches need the local
  pool's idle slots) queues none (no hook), and cancels the open ones at its start (``withdraw`` with
  ``unsearched=ON_A_CLUSTER``): the jury sees why, the team nothing. Its hook (``cancel_after``, also when
  every policy is off) still cancels a submission's searches on a judgement never searched (a rejudge to AC).

Light: no Hypothesis (explainable_problems loads the fuzzer's hooks when called; explain_jobs.py runs the
searches).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from judge.fuzz.explanation import explained
from judge.judging.prepared import Packages
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.package.problem import PackageError
from judge.serve.model.contest import Contest
from judge.serve.model.counterexamples import CounterexampleView
from judge.serve.model.explanations import ExplainRecord, policy_json
from judge.serve.model.phase import Phase
from judge.serve.model.records import JudgementRecord
from judge.serve.storage import Writer


@dataclass(frozen=True)
class LiveExplain:
    """Searching on idle judging slots, as `judge serve` sets it up (built once, at the edge, and passed down):
    the environment (sandbox at the fuzzer's niceness, languages, limits) and the prepared packages the
    server judges with; ``timer`` measures the seconds of a search's budget (counted only while it runs)."""

    env: Environment
    packages: Packages
    timer: Callable[[], float] = time.monotonic


def problem_view(contest: Contest, problem_id: str) -> CounterexampleView:
    """Who sees the counterexamples of the problem now: problems.yaml's, else contest.yaml's."""
    cp = contest.problem(problem_id)
    policy = contest.info.counterexamples
    return policy.show if cp is None else policy.view(cp.counterexamples)


POLICY_OFF = "the policy is off"  # why a search the policy no longer allows was cancelled (the jury's pages)
ON_A_CLUSTER = "not searched: judging runs on a cluster"  # why `judge serve --cluster` cancels one (it searches none)


def allows(contest: Contest, search: ExplainRecord) -> bool:
    """Whether the policy in force still allows ``search`` to run: its problem's view is not ``off`` now."""
    return problem_view(contest, search.problem_id) is not CounterexampleView.OFF


def withdraw(
    w: Writer, contest: Contest, searches: Iterable[ExplainRecord], now: float, *, unsearched: str | None = None
) -> dict[int, str]:
    """Of ``searches``, the open ones that will not run are cancelled, in the caller's transaction: those the
    policy in force no longer allows (``POLICY_OFF``), and, on a server that runs no search whatever the policy
    (``unsearched``: why, e.g. ``ON_A_CLUSTER``), every other one too. Their ids, each with why."""
    why = {e.id: POLICY_OFF if not allows(contest, e) else unsearched for e in searches if e.open}
    cancelled = {i: reason for i, reason in why.items() if reason is not None}
    for reason in sorted(set(cancelled.values())):
        w.cancel_open_explanations([i for i, r in cancelled.items() if r == reason], reason, now)
    return cancelled


def searches_any(contest: Contest) -> bool:
    """Whether the contest's policy is not off, for the contest or one of its problems."""
    return any(problem_view(contest, p.id) is not CounterexampleView.OFF for p in contest.problems)


def explainable_problems(contest: Contest, log: Callable[[str], None]) -> dict[str, bool]:
    """The problems searched (a fuzz.py, and a view that is not off), each with whether its fuzz.py says
    ``EXPLAIN_TLE``; a broken fuzz.py is said. Loads the fuzzer's hooks (Hypothesis)."""
    from judge.fuzz.hooks import load_hooks

    out = {}
    for p in contest.problems:
        if problem_view(contest, p.id) is CounterexampleView.OFF:
            continue
        try:
            hooks = load_hooks(p.problem)
        except PackageError as exc:
            log(f"counterexamples: problem {p.id} is not searched: {exc}")
            continue
        if hooks is not None:
            out[p.id] = hooks.explain_tle
    return out


AfterJudgement = Callable[[Writer, int, int, Phase, float], None]  # (w, submission id, judgement id, phase, now)


def queue_after(explainable: Mapping[str, bool], contest: Callable[[], Contest]) -> AfterJudgement:
    """The judging queue's hook (queue.JudgingSetup.after), in the judgement's transaction: a current,
    searched judgement queues a search with the policy in force; one that is not searched cancels the
    submission's searches. ``explainable``: explainable_problems' (empty: nothing is searched)."""

    def after(w: Writer, submission_id: int, judgement_id: int, phase: Phase, now: float) -> None:
        (j,) = w.judgements(ids=[judgement_id])
        if not j.current or j.verdict is None:
            return
        (s,) = w.submissions(ids=[submission_id])
        if _cancelled_unsearched(w, j, s.id, explainable.get(s.problem_id), now):
            return
        now_contest = contest()
        view = problem_view(now_contest, s.problem_id)
        if view is CounterexampleView.OFF or s.ignored or not phase.in_contest(s.time_s):
            return
        if s.account_id is not None and any(a.id == s.account_id and a.type != "team" for a in now_contest.accounts):
            return  # an admin's submission for a team: the jury's test, charged to no team's limit
        policy = replace(now_contest.info.counterexamples, show=view)
        w.enqueue_explanation(s.id, j.id, j.package_hash or "", j.verdict, policy_json(policy), now)

    return after


def cancel_after() -> AfterJudgement:
    """The judging queue's hook on a server that searches nothing (a cluster; every policy off): a current
    judgement whose verdict is never searched (AC, CE, MLE, OLE, JE) cancels the submission's searches, open or
    ended, as ``queue_after``'s does (a rejudge to AC: the team no longer sees a counterexample made before);
    one that may be searched keeps what the submission has and queues nothing (TLE counts as searched here: a
    search a TLE's problem does not make is not there to keep)."""

    def after(w: Writer, submission_id: int, judgement_id: int, phase: Phase, now: float) -> None:
        (j,) = w.judgements(ids=[judgement_id])
        if j.current and j.verdict is not None:
            _cancelled_unsearched(w, j, submission_id, True, now)

    return after


def _cancelled_unsearched(
    w: Writer, j: JudgementRecord, submission_id: int, explain_tle: bool | None, now: float
) -> bool:
    """A current judgement (``j``, with a verdict) that is not searched (``explain_tle`` None: its problem is
    never) cancels the submission's searches, open or ended. Whether it did."""
    assert j.verdict is not None
    if explain_tle is not None and explained(Verdict(j.verdict), explain_tle=explain_tle):
        return False
    w.cancel_explanations(submission_id, f"judgement {j.ordinal}: {j.verdict}, not searched", now)
    return True
