"""A search for a rejected submission's counterexample in `judge serve` (issue 46, docs/explain.md): the
record the contest's database keeps, and the policy it was queued under.

The policy in force when a search is queued (who sees it: the problem's view of contest.yaml's
``counterexamples``; the budget; the per-team limit) is stored with it, so that a change of contest.yaml
applies to later searches only (but one that turns its problem off cancels it if not run yet:
services/judging/explain_plan.withdraw). The search's result is the engine's ``Explanation``
(judge/fuzz/explanation.py), kept as its JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.options import ExplainBudget
from judge.serve.model.counterexamples import CounterexamplePolicy, CounterexampleView


class ExplainState(StrEnum):
    """Where a search stands: open while queued or running; then done (the result says how) or cancelled."""

    QUEUED = "queued"
    RUNNING = "running"  # a pool slot runs it now (or ran it when the server stopped: claimed again)
    DONE = "done"  # ended: ``result`` says how (found, withheld, not_found, not_built, unavailable, error)
    CANCELLED = "cancelled"  # rejudged to a verdict that is not searched (AC, ...), before or after it ended


OPEN_EXPLAIN = (ExplainState.QUEUED, ExplainState.RUNNING)


def policy_json(policy: CounterexamplePolicy) -> str:
    return json.dumps(policy.to_json(), sort_keys=True)


def policy_from_json(text: str) -> CounterexamplePolicy:
    """The inverse of ``policy_json`` (what the database keeps with each search)."""
    doc = json.loads(text)
    budget = ExplainBudget(int(doc["examples"]), float(doc["seconds"]))
    return CounterexamplePolicy(CounterexampleView(doc["show"]), budget, int(doc["per_team"]))


def result_from_json(text: str | None) -> Explanation | None:
    return None if text is None else Explanation.from_json(json.loads(text))


def result_json(result: Explanation) -> str:
    return json.dumps(result.to_json(), sort_keys=True)


@dataclass(frozen=True)
class ExplainRecord:
    """One search (of one submission's judgement, against one version of its package), resumed where it
    stopped when it gave its judging slot back."""

    id: int
    submission_id: int
    judgement_id: int  # the rejected judgement that asked for it
    package_hash: str  # the package it searches with (its tests are the inputs never shown)
    verdict: str  # the judgement's (ours: PV kept), the one explained
    policy: CounterexamplePolicy  # as in force when queued: ``show`` is the problem's view
    state: ExplainState
    examples_done: int = 0  # over the runs so far
    spent_s: float = 0.0  # seconds spent over the runs so far (counted only while a run runs)
    withheld: int = 0  # failures on the tests' own inputs seen so far (never shown)
    attempts: int = 0  # runs started
    result: Explanation | None = None  # once DONE (kept when cancelled after)
    team_shown: bool = False  # found, shown to the team (``show: team``, within the team's limit when found)
    message: str = ""  # why cancelled
    queued_s: float = 0.0
    finished_s: float | None = None
    problem_id: str = ""  # the submission's (read with it)
    team_id: str = ""

    @property
    def open(self) -> bool:
        return self.state in OPEN_EXPLAIN

    @property
    def status(self) -> str:
        """One word for what it is now: queued, running, cancelled, or the result's status."""
        if self.state is ExplainState.DONE and self.result is not None:
            return self.result.status.value
        return self.state.value

    @property
    def found(self) -> bool:
        return self.result is not None and self.result.status is ExplainStatus.FOUND
