"""How the pages show a clarification (the team's and the jury's pages, and the header's notice on every
page: web.py asks ``notice_context``): its kind and title, whom it went to as the viewer may know it,
its problem, contest time, text, the text it answers, and (staff) who sent it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge.serve.model.times import format_reltime
from judge.serve.services.desk import clarifications
from judge.serve.services.desk.clarifications import ClarView

if TYPE_CHECKING:
    from judge.serve.http.pages.web import Page


def _contest_time(page: Page, t: float) -> str:
    return format_reltime(page.server.contest.info.contest_time_s(t)).split(".")[0]


def _team_name(page: Page, team_id: str) -> str:
    team = page.server.contest.team(team_id)
    return (team.display_name or team.name) if team else team_id


def _to(page: Page, v: ClarView) -> str:
    """Whom the jury sent it to, as the viewer may know it."""
    c = v.clarification
    if c.to_everyone:
        return "everyone"
    names = {str(g["id"]): str(g["name"]) for g in page.server.contest.groups}
    shown = c.to_team_ids if v.teams is None else v.teams
    if page.viewer.team_id is not None and shown:
        parts = ["you"]
    else:
        parts = [f"team {_team_name(page, t)}" for t in shown or ()]
    parts += [f"group {names.get(g, g)}" for g in c.to_group_ids or ()]
    return ", ".join(parts)


def item(page: Page, v: ClarView, new: frozenset[str] = frozenset()) -> dict[str, Any]:
    c = v.clarification
    cp = page.server.contest.problem(c.problem_id) if c.problem_id else None
    replies = v.replied_text is not None
    own = c.from_team_id is not None and c.from_team_id == page.viewer.team_id
    if c.question:
        kind, title = "question", "Your question" if own else f"Question from {_team_name(page, c.from_team_id or '')}"
    elif replies:
        kind, title = "answer", f"Answer to {_to(page, v)}"
    else:
        kind, title = "announcement", "Announcement" if c.to_everyone else f"Message to {_to(page, v)}"
    return {
        "id": v.id,
        "kind": kind,
        "title": title,
        "problem": f"{cp.label}: {cp.name}" if cp else None,
        "time": _contest_time(page, c.time_s),
        "text": c.text,
        "replied": v.replied_text,
        "new": v.id in new,
        "sent_by": _username(page, v.sent_by),
        "team_id": c.from_team_id,
        "team": _team_name(page, c.from_team_id) if c.from_team_id else None,
        "to": None if c.question else _to(page, v),
    }


def _username(page: Page, account_id: str | None) -> str | None:
    if account_id is None:
        return None
    found = [a.username for a in page.server.contest.accounts if a.id == account_id]
    return found[0] if found else account_id


def notice_context(page: Page) -> dict[str, Any] | None:
    """What the header shows of clarifications, on every page (None: the public)."""
    found = clarifications.notice(page.server, page.sight)
    if found is None:
        return None
    latest = None if found.latest is None else item(page, found.latest)
    return {"count": found.count, "latest": latest, "staff": page.viewer.staff}
