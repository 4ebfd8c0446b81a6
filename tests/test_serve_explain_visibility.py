"""Who sees a rejected submission's counterexample (issue 46; visibility.counterexample_sight and
awaits_counterexample), as a table written from docs/serve.md ("Counterexamples"): the jury sees every
search in full whatever its policy; the submission's team sees those queued under ``show: team``, the input
only once found within its limit, nothing of a cancelled one; another team and the public nothing; an
ignored submission or one made outside the contest is the jury's only."""

from __future__ import annotations

import itertools

import pytest

from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.options import ExplainBudget
from judge.judging.verdict import Verdict
from judge.serve.model.contest import ContestInfo
from judge.serve.model.counterexamples import CounterexamplePolicy, CounterexampleView
from judge.serve.model.explanations import ExplainRecord, ExplainState
from judge.serve.model.phase import Phase
from judge.serve.model.records import SubmissionRecord
from judge.serve.model.viewer import PUBLIC, Role, Viewer
from judge.serve.visibility import CounterexampleSight, Sight, awaits_counterexample, counterexample_sight

HOUR = 3600.0
INFO = ContestInfo("c", "C", "C", start_s=0.0, duration_s=5 * HOUR, freeze_duration_s=HOUR)
PHASE = Phase(INFO, freeze_s=4 * HOUR, thaw_s=None)
NOW = 4.5 * HOUR  # frozen: a team still sees its own
VIEWERS = {
    "public": PUBLIC,
    "own team": Viewer(Role.TEAM, "a1", "team1", "team1"),
    "other team": Viewer(Role.TEAM, "a2", "team2", "team2"),
    "judge": Viewer(Role.JUDGE, "j", "judge"),
    "admin": Viewer(Role.ADMIN, "ad", "admin"),
}
FOUND = Explanation(ExplainStatus.FOUND, "p", Verdict.WA, ExplainBudget(), 1, input=b"1\n", answer=b"2\n")
WITHHELD = Explanation(ExplainStatus.WITHHELD, "p", Verdict.WA, ExplainBudget(), 1)
# the search: (state, result, team_shown)
SEARCHES = {
    "queued": (ExplainState.QUEUED, None, False),
    "found, shown": (ExplainState.DONE, FOUND, True),
    "found, past the limit": (ExplainState.DONE, FOUND, False),
    "withheld": (ExplainState.DONE, WITHHELD, False),
    "cancelled": (ExplainState.CANCELLED, FOUND, True),
}
SUBMISSIONS = {
    "in the contest": SubmissionRecord(1, "team1", "a1", "p", "python3", None, 4.2 * HOUR),
    "ignored": SubmissionRecord(1, "team1", "a1", "p", "python3", None, 4.2 * HOUR, ignored=True),
    "before the start": SubmissionRecord(1, "team1", None, "p", "python3", None, -HOUR),
}


def expected(viewer: str, show: CounterexampleView, search: str, submission: str) -> CounterexampleSight:
    """docs/serve.md's rule, written out."""
    if viewer in ("judge", "admin"):
        return CounterexampleSight.FULL
    if viewer != "own team" or show is not CounterexampleView.TEAM or submission != "in the contest":
        return CounterexampleSight.NONE
    if search == "cancelled":
        return CounterexampleSight.NONE
    return CounterexampleSight.FULL if search == "found, shown" else CounterexampleSight.STATE


@pytest.mark.parametrize(
    ("viewer", "show", "search", "submission"),
    list(itertools.product(VIEWERS, (CounterexampleView.JURY, CounterexampleView.TEAM), SEARCHES, SUBMISSIONS)),
)
def test_who_sees_a_search(viewer: str, show: CounterexampleView, search: str, submission: str) -> None:
    state, result, team_shown = SEARCHES[search]
    record = ExplainRecord(
        1, 1, 1, "h", "WA", CounterexamplePolicy(show), state, result=result, team_shown=team_shown, team_id="team1"
    )
    sight = Sight(VIEWERS[viewer], PHASE, NOW)
    assert counterexample_sight(sight, SUBMISSIONS[submission], record) is expected(viewer, show, search, submission)


@pytest.mark.parametrize(("viewer", "view"), list(itertools.product(VIEWERS, CounterexampleView)))
def test_whose_page_waits_for_one(viewer: str, view: CounterexampleView) -> None:
    sight = Sight(VIEWERS[viewer], PHASE, NOW)
    waits = view is not CounterexampleView.OFF and (
        viewer in ("judge", "admin") or (viewer == "own team" and view is CounterexampleView.TEAM)
    )
    assert awaits_counterexample(sight, SUBMISSIONS["in the contest"], view) is waits
    assert not awaits_counterexample(sight, SUBMISSIONS["ignored"], view) or viewer in ("judge", "admin")
