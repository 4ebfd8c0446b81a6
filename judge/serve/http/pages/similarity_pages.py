"""Similar submissions' pages (issue 49, docs/similarity.md), the jury's only: the overview (each problem's
report: its state, its pairs, the "Compute" buttons; live), a problem's "Similar submissions" page (the pairs
ranked, each linking to both submissions' jury pages, with its "Mark reviewed" form), and a pair side by side.
Each asks services/judging/similarity.py, which asks visibility.sees_similarity; a team or the public gets the answer
every /admin page gives them (need_staff: the login page, or 403)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from judge.serve.http.ids import number_id
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.times import format_time
from judge.serve.services.judging import similarity


def _team(page: Page, team_id: str) -> str:
    team = page.server.contest.team(team_id)
    return (team.display_name or team.name) if team else team_id


def _problem_name(page: Page, problem_id: str) -> str:
    cp = page.server.contest.problem(problem_id)
    return f"{cp.label}: {cp.name}" if cp else problem_id


def _when(t: float | None) -> str | None:
    return None if t is None else format_time(t).split(".")[0]


def overview_page(page: Page) -> Response:
    """The overview; ``?fragment=1`` is its live part (live.js polls it)."""
    page.need_staff()
    rows: list[dict[str, Any]] = []
    for st in similarity.overview(page.server, page.viewer, page.now):
        r = st.record
        rows.append(
            {
                "id": st.problem_id,
                "name": _problem_name(page, st.problem_id),
                "state": r.state.value if r else None,
                "computed": _when(r.computed_s) if r else None,
                "requested_by": r.requested_by if r else None,
                "submissions": r.submissions if r else 0,
                "message": r.message if r else "",
                "pairs": st.pairs,
                "reviewed": st.reviewed,
                "ready": bool(r and r.report),
            }
        )
    template = "serve/_similarity_list.html" if page.query.get("fragment") else "serve/similarity.html"
    return page.render(template, rows=rows)


def _side(page: Page, side: dict[str, Any]) -> dict[str, Any]:
    return {**side, "team": _team(page, side["owner"])}


def problem_page(page: Page) -> Response:
    page.need_staff()
    pid = page.params["problem"]
    view = similarity.problem_view(page.server, page.viewer, page.now, pid)
    pairs = []
    for p in view.report["pairs"] if view.report else []:
        review = view.reviews.get(p["key"])
        reviewed = None if review is None else {"by": review.username, "at": _when(review.time_s), "note": review.note}
        pairs.append({**p, "a": _side(page, p["a"]), "b": _side(page, p["b"]), "reviewed": reviewed})
    r = view.record
    clusters = [
        {**c, "members": sorted(_team(page, m) for m in c["members"])} for c in (view.report or {}).get("clusters", [])
    ]
    return page.render(
        "serve/similarity_problem.html",
        clusters=clusters,
        problem_id=pid,
        problem_name=_problem_name(page, pid),
        report_state=r.state.value if r else None,
        computed=_when(r.computed_s) if r else None,
        message=r.message if r else "",
        report=view.report,
        pairs=pairs,
    )


def pair_page(page: Page) -> Response:
    page.need_staff()
    pid = page.params["problem"]
    rank = number_id(page.params["rank"])
    found = similarity.pair_view(page.server, page.viewer, page.now, pid, rank)
    sides = [{**s, "side": _side(page, s["side"])} for s in found["sides"]]
    review = found["review"]
    reviewed = None if review is None else {"by": review.username, "at": _when(review.time_s), "note": review.note}
    return page.render(
        "serve/similarity_pair.html",
        problem_id=pid,
        problem_name=_problem_name(page, pid),
        rank=rank,
        pair=found["pair"],
        sides=sides,
        reviewed=reviewed,
    )


def compute(page: Page) -> Response:
    """The "Compute" buttons: one problem's report, or every problem's (queued for an idle judging slot)."""
    page.need_staff()
    pid = page.form.get("problem") or None
    similarity.request(page.server, page.viewer, page.now, pid)
    raise Redirect(page.url("/admin/similarity" if pid is None else f"/admin/similarity/{pid}"))


def review(page: Page) -> Response:
    """ "Mark reviewed": kept with a note, and in the audit log."""
    page.need_staff()
    pid = page.params["problem"]
    similarity.mark_reviewed(
        page.server, page.viewer, page.now, pid, page.form.get("pair", ""), page.form.get("note", "")
    )
    back, problem = page.form.get("back", ""), page.url(f"/admin/similarity/{pid}")
    raise Redirect(back if back.startswith(problem) and "//" not in back else problem)


SIMILARITY_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/similarity", overview_page),
    PageSpec("POST", "/admin/similarity", compute),
    PageSpec("GET", "/admin/similarity/{problem}", problem_page),
    PageSpec("POST", "/admin/similarity/{problem}/review", review),
    PageSpec("GET", "/admin/similarity/{problem}/pairs/{rank}", pair_page),
)
