"""What a rejudge preview shows (issue 33): per submission before → after, and the board's change: the
staff's board (every team, nothing frozen) ranked by the same functions as the live board (model/board.py)
from the current judgements, once as they are and once with the preview's verdicts and scores substituted.
Shared by the API (http/api/previews.py) and the preview page (http/pages/preview_pages.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from judge.serve.model.board import attempts, passfail_rows, passfail_standings, scoreboard_rows
from judge.serve.model.contest import Contest
from judge.serve.model.records import Counted, PreviewRecord, PreviewRun
from judge.serve.model.viewer import Viewer
from judge.serve.services.board.board import main_contest
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.previews import changed_runs, preview, stale


@dataclass(frozen=True)
class RunView:
    run: PreviewRun
    team_id: str
    team_name: str

    @property
    def changes(self) -> bool:
        return self.run.verdict_after != self.run.verdict_before


@dataclass(frozen=True)
class TeamChange:
    """One team whose place or score the preview changes."""

    team_id: str
    team_name: str
    rank_before: int | None
    rank_after: int | None
    score_before: dict[str, Any]
    score_after: dict[str, Any]


@dataclass(frozen=True)
class PreviewView:
    preview: PreviewRecord
    runs: tuple[RunView, ...]
    board: tuple[TeamChange, ...]
    stale: bool  # made on a version that is no longer current: applying it is refused
    left: int = 0  # a rejudging set (issue 47): its submissions not judged yet

    @property
    def changed(self) -> int:
        return sum(1 for r in self.runs if r.changes)


def _rows(contest: Contest, counted: list[Counted]) -> dict[str, dict[str, Any]]:
    tries = attempts(counted, frozen_from=None)
    if contest.info.pass_fail:
        rows = passfail_rows(passfail_standings(contest, tries, [t.id for t in contest.teams]), show_problems=False)
    else:
        rows = scoreboard_rows(contest, tries, show_problems=False)
    return {row["team_id"]: row for row in rows}


def _substituted(counted: list[Counted], runs: list[PreviewRun]) -> list[Counted]:
    by_sub = {r.submission_id: r for r in changed_runs(runs)}
    out = []
    for c in counted:
        run = by_sub.get(c.submission.id)
        if run is not None and c.judgement is not None:
            c = Counted(c.submission, replace(c.judgement, verdict=run.verdict_after, score=run.score_after))
        out.append(c)
    return out


def board_change(server: ServedJudging, runs: list[PreviewRun]) -> tuple[TeamChange, ...]:
    """The teams whose rank or score the preview's verdicts change (staff's board: all teams, unfrozen)."""
    if not changed_runs(runs):
        return ()
    contest = main_contest(server.contest)
    info = contest.info
    window = None if info.start_s is None or info.end_s is None else (info.start_s, info.end_s)
    with server.storage.read() as r:
        counted = r.counted(window) if window is not None else []
    before, after = _rows(contest, counted), _rows(contest, _substituted(counted, runs))
    names = {t.id: t.name for t in contest.teams}
    out = []
    for team_id in sorted(set(before) | set(after), key=lambda t: (after.get(t, {}).get("rank", 0), t)):
        b, a = before.get(team_id, {}), after.get(team_id, {})
        if b.get("rank") != a.get("rank") or b.get("score") != a.get("score"):
            name = names.get(team_id, team_id)
            out.append(TeamChange(team_id, name, b.get("rank"), a.get("rank"), b.get("score", {}), a.get("score", {})))
    return tuple(out)


def preview_view(server: ServedJudging, viewer: Viewer, preview_id: int | None, now: float) -> PreviewView:
    """The preview as the jury sees it (judges and admins: previews.preview asks visibility)."""
    p, runs = preview(server, viewer, preview_id, now)
    teams = {t.id: t.name for t in server.contest.teams}
    with server.storage.read() as r:
        subs = {s.id: s for s in r.submissions(ids=[run.submission_id for run in runs])}
        left = r.rejudging_jobs(p.id)[1] if p.kind == "rejudge" else 0
    views = tuple(
        RunView(run, subs[run.submission_id].team_id, teams.get(subs[run.submission_id].team_id, "?"))
        for run in runs
        if run.submission_id in subs
    )
    board = board_change(server, runs) if p.state == "ready" else ()
    return PreviewView(p, views, board, stale(server, p) and p.state not in ("applied", "discarded"), left)
