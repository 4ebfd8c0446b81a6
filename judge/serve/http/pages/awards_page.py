"""The awards page (issue 43): the final awards on the live site (not only in the API and the replay), once
the results are public: the contest over and the board thawed (or never frozen): visibility.py's
``shows_final_results``. Before that the public and the teams get a line saying when; staff see the live
awards, marked as theirs only. The awards are services/lifecycle/awards.py's (the board's, the admins' edits
applied), in a ceremony's order; the medals are also drawn on the final board (pages.board_view)."""

from __future__ import annotations

from starlette.responses import Response

from judge.serve.http.pages.web import Page, PageSpec
from judge.serve.services.lifecycle import awards
from judge.serve.visibility import shows_final_results


def awards_page(page: Page) -> Response:
    public = shows_final_results(page.sight)
    shown = []
    if public or page.viewer.staff:
        contest = page.server.contest
        for a in awards.ordered(awards.current(page.server, page.sight), contest):
            teams = [contest.team(t) for t in a.team_ids or ()]
            names = [(t.display_name or t.name) if t is not None else "?" for t in teams]
            shown.append({"id": a.id, "citation": a.citation, "teams": names, "medal": awards.MEDALS.get(a.id)})
    return page.render("serve/awards.html", awards=shown, public=public)


AWARDS_PAGES: tuple[PageSpec, ...] = (PageSpec("GET", "/awards", awards_page),)
