"""The jury's rejudgings (issue 47): ``/admin/rejudgings``, every rejudging set (what it rejudges, who
started it, its state, how many submissions, left and changed; each links to its page,
``/admin/previews/<id>``, where it is reviewed, applied or cancelled: preview_pages.py) and the form that
starts one of a problem, a language, a team or the whole contest (a submission's is started from its page).
Asks services/judging/rejudgings.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http.pages import notices
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.services.judging import rejudgings


def _choices(page: Page) -> list[tuple[str, str]]:
    """The start form's scopes: (value, text)."""
    contest = page.server.contest
    out = [("contest:", "the whole contest")]
    out += [(f"problem:{p.id}", f"problem {p.label}: {p.name}") for p in contest.problems]
    out += [(f"language:{lang.id}", f"language {lang.name}") for lang in page.server.languages.values()]
    out += [(f"team:{t.id}", f"team {t.display_name or t.name}") for t in contest.teams]
    return out


def rejudgings_page(page: Page) -> Response:
    page.need_staff()
    sets: list[dict[str, Any]] = [
        {
            "id": s.record.id,
            "scope": rejudgings.scope_text(s.record),
            "state": s.record.state,
            "auto_apply": s.record.auto_apply,
            "by": s.record.created_by,
            "created": format_time(s.record.created_s),
            "members": s.members,
            "left": s.left,
            "changed": s.changed,
        }
        for s in rejudgings.rejudgings(page.server, page.viewer)
    ]
    return page.render(
        "serve/rejudgings.html", sets=sets, choices=_choices(page), message=notices.shown(page.query.get("message"))
    )


def start(page: Page) -> Response:
    page.need_staff()
    page.confirm("rejudge", back=page.url("/admin/rejudgings"), what="the chosen problem, language, team or contest")
    kind, _, value = page.form.get("scope", "").partition(":")
    if kind not in ("contest", "problem", "language", "team"):
        raise Refused(400, "choose what to rejudge")
    auto = page.form.get("auto_apply") == "1"
    started = rejudgings.start(page.server, page.viewer, kind, value, page.now, auto_apply=auto)
    template = notices.REJUDGING_AUTO if auto else notices.REJUDGING
    message = notices.notice(template, id=started.rejudging_id, n=len(started.queued))
    raise Redirect(page.url(f"/admin/previews/{started.rejudging_id}?{urlencode({'message': message})}"))


REJUDGING_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/rejudgings", rejudgings_page),
    PageSpec("POST", "/admin/rejudgings", start),
)
