"""The resolver page for the awards ceremony (admins, after the end): the steps of scoreboard/resolver.py
as JSON in the page, played by static/resolver.js (space: next step, backspace: back, f: full screen).
Each step carries the order of the teams and the rows that changed since the step before; the rows'
cells are the board's (passfailview.py), so the resolver's boards look like, and are, the scoreboard's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.responses import Response

from judge.scoreboard.passfail import Row
from judge.scoreboard.passfailview import cell_view, row_totals
from judge.scoreboard.resolver import Step, steps
from judge.serve.http.pages.web import Page, PageSpec
from judge.serve.services.lifecycle import resolver


def _cell_text(view: dict[str, Any]) -> str:
    if not view["shown"]:
        return ""
    text = str(view["tries"])
    if view["minute"] is not None:
        text += f" / {view['minute']}"
    if view["pending"]:
        text += f" +{view['pending']}?"
    return text


def _row(page: Page, row: Row, penalty_s: float) -> dict[str, Any]:
    team = page.server.contest.team(row.team_id)
    orgs = {o["id"]: o for o in page.server.contest.organizations}
    org = orgs.get(team.organization_id) if team is not None and team.organization_id else None
    cells = [cell_view(c, penalty_s) for c in row.cells]
    return {
        **row_totals(row),
        "name": (team.display_name or team.name) if team is not None else row.team_id,
        "org": org.get("formal_name", org["name"]) if org else "",
        "cells": [[v["css"], _cell_text(v)] for v in cells],
    }


def steps_json(page: Page, all_steps: Sequence[Step]) -> list[dict[str, Any]]:
    """Each step: the teams in board order, the rows that changed, the focus, what was revealed, the
    citations shown."""
    penalty = page.server.contest.info.penalty_s
    labels = {p.id: p.label for p in page.server.contest.problems}
    out: list[dict[str, Any]] = []
    before: dict[str, dict[str, Any]] = {}
    for step in all_steps:
        rows = {r.team_id: _row(page, r, penalty) for r in step.standings.rows}
        out.append(
            {
                "order": [r.team_id for r in step.standings.rows],
                "rows": {t: v for t, v in rows.items() if before.get(t) != v},
                "focus": step.focus,
                "revealed": labels.get(step.revealed) if step.revealed else None,
                "citations": list(step.citations),
            }
        )
        before = rows
    return out


def resolver_page(page: Page) -> Response:
    page.need_staff()
    ceremony = resolver.ceremony(page.server, page.sight)
    problems = [{"label": p.label, "name": p.name, "rgb": p.rgb} for p in page.server.contest.problems]
    return page.render("serve/resolver.html", steps=steps_json(page, steps(ceremony)), problems=problems)


RESOLVER_PAGES: tuple[PageSpec, ...] = (PageSpec("GET", "/admin/resolver", resolver_page),)
