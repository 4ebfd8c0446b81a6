"""The counterexample queue's loose ends (docs/explain.md, docs/serve.md), through the real app with
test_serve_explain's scripted judge and runner:

- a search queued under a policy that is off after a restart (the contest's, or the problem's in
  problems.yaml) is not run: it is cancelled ("the policy is off"), the jury sees why, the team nothing; the
  policy turned on again does not search it again (as a rejection judged while it was off is not); a
  rejudge that stays rejected searches it, as any new rejection;
- a rejudging set's judgement applied on the jury's approval queues (or cancels) a search exactly as the
  same judgement applied at once does;
- `judge serve --cluster` searches nothing: the open searches are cancelled at its start ("not searched:
  judging runs on a cluster"), and none is queued there."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_fuzz_search import off_by_one_from
from test_serve_explain import POLICY, C, Live, cex, open_live, search_all, submit
from test_serve_pages import login, text

from judge.serve.model.counterexamples import CounterexampleView
from judge.serve.model.explanations import ExplainState
from judge.serve.services.judging.explain_jobs import ExplainQueue
from judge.serve.services.judging.explain_plan import ON_A_CLUSTER, POLICY_OFF

OFF = CounterexampleView.OFF


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    found = open_live(tmp_path, off_by_one_from(37))
    yield found
    found.server.close()


def _restart(tmp_path: Path, live: Live, policy: str, *, double: str = "", explain: bool = True) -> Live:
    """The contest served again with contest.yaml's ``counterexamples: <policy>`` (``explain``: whether the
    server searches at all, as `judge serve` with every policy off does not)."""
    live.server.close()
    return open_live(tmp_path, off_by_one_from(37), policy=policy, double=double, explain=explain)


@pytest.mark.parametrize(
    ("policy", "double", "explain"),
    [
        ("off", "", False),  # every policy off: `judge serve` searches nothing, no queue at all
        ("off", "", True),
        (POLICY, ", counterexamples: off", True),  # narrowed: the problem's own view is off
    ],
)
def test_a_search_the_policy_no_longer_allows_is_cancelled_not_run(
    tmp_path: Path, policy: str, double: str, explain: bool
) -> None:
    live = open_live(tmp_path, off_by_one_from(37))
    sid = submit(live.api, "team1")
    live.server.judging.run_pending()
    assert cex(live.api, sid, "team1")[1]["status"] == "queued"
    live = _restart(tmp_path, live, policy, double=double, explain=explain)
    try:
        assert live.server.explain is None or search_all(live.server) == 0
        assert live.runner.stdins == []  # not run
        assert cex(live.api, sid, "team1")[0] == 404  # the team: nothing
        status, doc = cex(live.api, sid, "judge")
        assert status == 200 and doc["status"] == "cancelled" and doc["cancelled"] == "the policy is off"
        assert '<p id="cx-cancelled">Cancelled: the policy is off.</p>' in text(
            login(live.server, "judge").get(f"/admin/submissions/{sid}")
        )
        team_page = login(live.server, "team1").get(f"/submissions/{sid}").text
        assert 'id="counterexample"' not in team_page and "fails on" not in team_page
    finally:
        live.server.close()
    live = _restart(tmp_path, live, POLICY)  # on again: not searched again (the rule for new rejections)
    try:
        assert search_all(live.server) == 0 and live.runner.stdins == []
        assert cex(live.api, sid, "judge")[1]["status"] == "cancelled"
        assert live.api.request("POST", f"{C}/submissions/{sid}/rejudge", "judge").status_code < 300
        live.server.judging.run_pending()  # judged again, still rejected: a new rejection, searched
        assert cex(live.api, sid, "team1")[1]["status"] == "queued"
        assert search_all(live.server) == 1 and cex(live.api, sid, "team1")[1]["status"] == "found"
    finally:
        live.server.close()


def test_the_queue_checks_each_search_against_the_policy_in_force_when_it_would_run(live: Live) -> None:
    """Another process on the database (issue 51) may still queue searches under its older contest.yaml: the
    one that runs them asks the policy in force (here a contest whose policy is off, as the queue reads it)."""
    server = live.server
    sid = submit(live.api, "team1")
    server.judging.run_pending()
    assert server.explain is not None
    info = server.contest.info
    off = replace(server.contest, info=replace(info, counterexamples=replace(info.counterexamples, show=OFF)))
    queue = ExplainQueue(server.storage, server.explain.live, replace(server.explain.setup, contest=lambda: off))
    assert queue.claim_idle(1, set()) == [] and live.runner.stdins == []
    status, doc = cex(live.api, sid, "judge")
    assert status == 200 and doc["status"] == "cancelled" and doc["cancelled"] == "the policy is off"
    assert cex(live.api, sid, "team1")[0] == 404
    assert search_all(server) == 0  # the server's own queue: nothing left to run


def test_a_search_the_policy_still_allows_runs_after_a_restart(tmp_path: Path) -> None:
    live = open_live(tmp_path, off_by_one_from(37))
    sid = submit(live.api, "team1")
    live.server.judging.run_pending()
    live = _restart(tmp_path, live, "jury")  # narrowed, not off: kept with the policy it was queued under
    try:
        assert search_all(live.server) == 1
        assert cex(live.api, sid, "team1")[1]["status"] == "found"
    finally:
        live.server.close()


def _rejudge(live: Live, sid: str, *, auto_apply: bool) -> None:
    """A rejudging set of the submission, judged, and applied (by the jury unless it applies itself)."""
    r = live.api.request("POST", f"{C}/rejudgings", "judge", json={"submission_id": sid, "auto_apply": auto_apply})
    assert r.status_code == 202, r.text
    live.server.judging.run_pending()
    if not auto_apply:
        assert live.api.request("POST", f"{C}/rejudgings/{r.json()['id']}/apply", "judge").status_code == 200


@pytest.mark.parametrize("auto_apply", [True, False])
def test_a_rejudging_applied_on_approval_queues_a_search_as_one_applied_at_once(
    tmp_path: Path, auto_apply: bool
) -> None:
    live = open_live(tmp_path, off_by_one_from(37))
    try:
        live.judge.accept = True
        sid = submit(live.api, "team1")
        live.server.judging.run_pending()
        assert cex(live.api, sid, "judge")[0] == 404  # accepted: nothing searched
        live.judge.accept = False
        _rejudge(live, sid, auto_apply=auto_apply)  # now rejected
        assert cex(live.api, sid, "team1")[1]["status"] == "queued"
        assert search_all(live.server) == 1 and cex(live.api, sid, "team1")[1]["status"] == "found"
        live.judge.accept = True
        _rejudge(live, sid, auto_apply=auto_apply)  # accepted again: the search is cancelled
        assert cex(live.api, sid, "team1")[0] == 404
        with live.server.storage.read() as r:
            (search,) = r.explanations(submission_ids=[int(sid)])
        assert search.state is ExplainState.CANCELLED and search.message == "judgement 3: AC, not searched"
    finally:
        live.server.close()


@pytest.mark.parametrize(("double", "reason"), [("", ON_A_CLUSTER), (", counterexamples: off", POLICY_OFF)])
def test_judge_serve_on_a_cluster_searches_nothing_and_cancels_the_open_searches(
    tmp_path: Path, double: str, reason: str
) -> None:
    """`judge serve --cluster` runs no search (they need the local pool's idle slots): a search still queued
    from an earlier run on local slots is cancelled at its start (the policy's own reason first), the jury sees
    why, the team nothing; a rejection judged there queues none; the start log says it once."""
    live = open_live(tmp_path, off_by_one_from(37))
    sid = submit(live.api, "team1")
    live.server.judging.run_pending()
    assert cex(live.api, sid, "team1")[1]["status"] == "queued"
    live.server.close()
    lines: list[str] = []
    live = open_live(
        tmp_path, off_by_one_from(37), double=double, explain=False, unsearched=ON_A_CLUSTER, log=lines.append
    )
    try:
        assert live.server.explain is None  # no queue: nothing would ever run it
        assert cex(live.api, sid, "team1")[0] == 404  # the team: nothing (no "Searching…" for ever)
        status, doc = cex(live.api, sid, "judge")
        assert status == 200 and doc["status"] == "cancelled" and doc["cancelled"] == reason
        assert f'<p id="cx-cancelled">Cancelled: {reason}.</p>' in text(
            login(live.server, "judge").get(f"/admin/submissions/{sid}")
        )
        team_page = login(live.server, "team1").get(f"/submissions/{sid}").text
        assert 'id="counterexample"' not in team_page and "fails on" not in team_page
        assert [line for line in lines if "counterexample" in line] == [
            f"contest 'test': 1 counterexample search(es) not run: {reason}"
        ]
        other = submit(live.api, "team2")  # rejected on the cluster: no search queued
        live.server.judging.run_pending()
        assert cex(live.api, other, "judge")[0] == 404 and cex(live.api, other, "team2")[0] == 404
        assert live.runner.stdins == []
    finally:
        live.server.close()
    live = _restart(tmp_path, live, POLICY)  # on local slots again: neither is searched (the rule for new rejections)
    try:
        assert search_all(live.server) == 0 and live.runner.stdins == []
        assert cex(live.api, sid, "judge")[1]["status"] == "cancelled" and cex(live.api, other, "judge")[0] == 404
    finally:
        live.server.close()


def test_a_rejudge_to_ac_on_a_cluster_still_takes_the_counterexample_away(tmp_path: Path) -> None:
    """A counterexample found while judging on local slots: on a cluster (no search there) a rejudge that
    stays rejected keeps it, one to AC cancels it as on local slots: the team no longer sees it."""
    live = open_live(tmp_path, off_by_one_from(37))
    sid = submit(live.api, "team1")
    live.server.judging.run_pending()
    assert search_all(live.server) == 1 and cex(live.api, sid, "team1")[1]["status"] == "found"
    live.server.close()
    live = open_live(tmp_path, off_by_one_from(37), explain=False, unsearched=ON_A_CLUSTER)
    try:
        assert live.api.request("POST", f"{C}/submissions/{sid}/rejudge", "judge").status_code < 300
        live.server.judging.run_pending()  # still WA: the counterexample stands
        assert cex(live.api, sid, "team1")[1]["status"] == "found"
        live.judge.accept = True
        assert live.api.request("POST", f"{C}/submissions/{sid}/rejudge", "judge").status_code < 300
        live.server.judging.run_pending()
        assert cex(live.api, sid, "team1")[0] == 404
        status, doc = cex(live.api, sid, "judge")
        assert status == 200 and doc["status"] == "cancelled" and doc["cancelled"] == "judgement 3: AC, not searched"
    finally:
        live.server.close()
