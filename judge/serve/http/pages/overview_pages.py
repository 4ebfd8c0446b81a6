"""The jury's overviews (issue 47): ``/admin/overview``, every team at a glance (logged in now, or when last
seen; rank, submissions, solved, pending, open questions: live), and ``/admin/statistics``, per problem and
per language (attempts, accepted, teams, the first solve) with charts: the submissions over contest time
(accepted, rejected, pending) and each problem's and language's attempts against what was accepted. The
charts are SVG drawn by the templates from the geometry made here (no script). Asks
services/judging/overview.py."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from judge.serve.http.pages.web import Page, PageSpec, clock_time, contest_time
from judge.serve.model.times import format_reltime
from judge.serve.services.judging import overview

CHART_W, CHART_H, AXIS = 760, 220, 36  # the time chart's plot size and its left margin, in px
BAR_W, BAR_H = 420, 18  # a horizontal bar chart's longest bar and one bar's height


def _ago(now: float, then: float | None) -> str:
    if then is None:
        return ""
    return format_reltime(max(0.0, now - then)).split(".")[0] + " ago"


def overview_page(page: Page) -> Response:
    page.need_staff()
    start = page.server.contest.info.start_s
    teams = overview.teams(page.server, page.viewer, page.now)
    rows = [
        {
            "team_id": t.team_id,
            "name": t.name,
            "rank": t.rank,
            "logged_in": t.logged_in,
            "last_seen": clock_time(t.last_seen_s) if t.last_seen_s is not None else None,
            "last_seen_ago": _ago(page.now, t.last_seen_s),
            "submissions": t.submissions,
            "solved": t.solved,
            "pending": t.pending,
            "open_questions": t.open_questions,
            "last_submission": contest_time(t.last_submission_s, start) if t.last_submission_s else "",
        }
        for t in teams
    ]
    totals = {
        "teams": len(teams),
        "logged_in": sum(1 for t in teams if t.logged_in),
        "open_questions": sum(t.open_questions for t in teams),
        "pending": sum(t.pending for t in teams),
    }
    if page.query.get("fragment"):
        return page.render("serve/_admin_overview.html", rows=rows, totals=totals)
    return page.render("serve/admin_overview.html", rows=rows, totals=totals)


def _nice_max(n: int) -> int:
    """A round top for an axis that holds ``n`` (in quarters: its grid lines)."""
    return next((top for top in (4, 8, 12, 20, 40, 60, 100, 200, 400, 600, 1000, 2000, 4000) if n <= top), n)


def _time_chart(stats: overview.Statistics) -> dict[str, Any]:
    """The bars of the submissions over contest time, stacked: accepted, rejected, pending (bottom up)."""
    top = _nice_max(max((b.accepted + b.rejected + b.pending for b in stats.buckets), default=0))
    slot = CHART_W / len(stats.buckets)
    bars = []
    for i, b in enumerate(stats.buckets):
        y = float(CHART_H)
        parts = []
        for kind, n in (("accepted", b.accepted), ("rejected", b.rejected), ("pending", b.pending)):
            h = CHART_H * n / top
            if n:
                parts.append({"kind": kind, "y": round(y - h, 1), "h": round(h, 1), "n": n})
            y -= h
        label = f"{format_reltime(b.start_s).split('.')[0]}: {b.accepted} accepted, {b.rejected} rejected"
        bars.append(
            {"x": round(AXIS + i * slot + 1, 1), "w": round(max(slot - 2, 1), 1), "parts": parts, "title": label}
        )
    hours = int(stats.duration_s // 3600)
    ticks = [
        {"x": round(AXIS + CHART_W * h * 3600 / (stats.bucket_s * len(stats.buckets)), 1), "text": f"{h}:00"}
        for h in range(hours + 1)
    ]
    grid = [{"y": round(CHART_H - CHART_H * k / 4, 1), "text": str(top * k // 4)} for k in range(5)]
    return {"bars": bars, "ticks": ticks, "grid": grid, "width": AXIS + CHART_W + 30, "height": CHART_H + 30}


def _bar_chart(rows: list[tuple[str, int, int]]) -> dict[str, Any]:
    """Horizontal bars, one row each: (label, attempts, accepted)."""
    top = max((attempts for _, attempts, _ in rows), default=0) or 1
    out = []
    for i, (label, attempts, accepted) in enumerate(rows):
        out.append(
            {
                "label": label,
                "y": i * (BAR_H + 8),
                "attempts_w": round(BAR_W * attempts / top, 1),
                "accepted_w": round(BAR_W * accepted / top, 1),
                "attempts": attempts,
                "accepted": accepted,
            }
        )
    return {"rows": out, "height": len(rows) * (BAR_H + 8) + 4, "width": BAR_W + 300}


def statistics_page(page: Page) -> Response:
    page.need_staff()
    stats = overview.statistics(page.server, page.viewer)
    problems = [
        {
            **p.__dict__,
            "first_solve": format_reltime(p.first_solve_s).split(".")[0] if p.first_solve_s is not None else None,
            "verdicts": sorted(p.verdicts.items()),
        }
        for p in stats.problems
    ]
    return page.render(
        "serve/admin_statistics.html",
        problems=problems,
        languages=[lang for lang in stats.languages if lang.attempts],
        quiet=[lang.name for lang in stats.languages if not lang.attempts],  # the machine's others
        total=stats.total,
        time_chart=_time_chart(stats),
        problem_chart=_bar_chart([(f"{p.label} {p.name}", p.attempts, p.accepted) for p in stats.problems]),
        language_chart=_bar_chart(
            [(lang.name, lang.attempts, lang.accepted) for lang in stats.languages if lang.attempts]
        ),
        bucket=format_reltime(stats.bucket_s).split(".")[0],
    )


OVERVIEW_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/overview", overview_page),
    PageSpec("GET", "/admin/statistics", statistics_page),
)
