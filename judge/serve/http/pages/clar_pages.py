"""The clarifications' pages. A team's "Clarifications" page: ask the jury (optionally about a problem),
and read its questions, the answers and the announcements (live; opening it marks them read). On every
page of a team, the header's link counts the unread ones and a notice shows the newest, without a reload
(``/clarifications/notice``, polled by live.js); the jury's header counts the unanswered questions.

The jury's pages: every clarification, unanswered questions first (live), an announcement form; one
clarification with its answers (who sent each) and the answer form: a text box or a canned answer, to the
asking team, everyone, or a group. Texts are plain text (escaped by the templates, newlines kept), never
HTML. Each form calls the service the API's POST calls (services/desk/clarifications.py), with its refusals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http.pages import notices
from judge.serve.http.pages.clar_views import item
from judge.serve.http.pages.web import CLAR_NOTICE, Page, PageSpec, Redirect
from judge.serve.model.clarification import ClarificationRequest
from judge.serve.model.errors import Refused
from judge.serve.services import documents
from judge.serve.services.desk import clarifications

CANNED = (
    "No comment.",
    "Read the problem statement carefully.",
    "This has been clarified in an announcement.",
)


# ------------------------------------------------------------------------------------------------ teams


def _team_context(page: Page) -> dict[str, Any]:
    listing = clarifications.read_list(page.server, page.sight)
    return {"items": [item(page, v, listing.new) for v in listing.views]}


def team_page(page: Page) -> Response:
    if page.viewer.staff:
        raise Redirect(page.url("/admin/clarifications"))
    page.need_team()
    if page.query.get("fragment"):
        return page.render("serve/_clar_list.html", **_team_context(page))
    return _ask_form(page, message=None, status=200, chosen={"problem": page.query.get("problem", ""), "text": ""})


def _ask_form(page: Page, *, message: str | None, status: int, chosen: dict[str, str]) -> Response:
    running = page.sight.phase.running(page.now)
    problems = documents.problems(page.server, page.sight)
    return page.render(
        "serve/clarifications.html",
        status=status,
        message=message,
        sent=page.query.get("sent"),
        chosen=chosen,
        problems=problems,
        running=running,
        max_chars=page.server.contest.info.clarifications.text_chars,
        **_team_context(page),
    )


def ask(page: Page) -> Response:
    """The same service as the API's POST (the same checks, limits and refusals)."""
    page.need_team()
    chosen = {"problem": page.form.get("problem", ""), "text": page.form.get("text", "")}
    request = ClarificationRequest(text=chosen["text"], problem_id=chosen["problem"] or None)
    try:
        clarifications.send(page.server, page.viewer, request, page.now)
    except Refused as exc:
        page.headers.update(exc.headers or {})
        return _ask_form(page, message=exc.message, status=exc.status, chosen=chosen)
    raise Redirect(page.url("/clarifications?sent=1"))


def notice(page: Page) -> Response:
    """The header's part (a fragment): the link with the count, and the newest unread one (teams)."""
    return page.render(CLAR_NOTICE)


# ------------------------------------------------------------------------------------------------ the jury


def _jury_items(page: Page) -> dict[str, Any]:
    every = clarifications.views(page.server, page.sight)
    waiting = clarifications.unanswered(every)
    answers: dict[int, list[dict[str, Any]]] = {}
    for v in every:
        if v.clarification.reply_to_id is not None and not v.clarification.question:
            answers.setdefault(v.clarification.reply_to_id, []).append(item(page, v))
    return {
        "waiting": [item(page, v) for v in waiting],
        "items": [{**item(page, v), "answers": answers.get(v.clarification.id, [])} for v in reversed(every)],
    }


def _targets(page: Page) -> list[tuple[str, str]]:
    """Whom an announcement can go to: everyone, a group, a team."""
    contest = page.server.contest
    return [
        ("all", "everyone"),
        *((f"group:{g['id']}", f"group {g['name']}") for g in contest.groups),
        *((f"team:{t.id}", f"team {t.display_name or t.name}") for t in contest.teams),
    ]


def jury_page(page: Page) -> Response:
    page.need_staff()
    fragment = page.query.get("fragment")
    if fragment in ("waiting", "all"):
        return page.render(f"serve/_admin_clar_{fragment}.html", **_jury_items(page))
    message = notices.shown(page.query.get("message"))  # only the server's own (issue 43)
    return _announce_form(page, message=message, error=None, status=200, chosen={})


def _announce_form(
    page: Page, *, message: str | None, error: str | None, status: int, chosen: dict[str, str]
) -> Response:
    return page.render(
        "serve/admin_clarifications.html",
        status=status,
        message=message,
        error=error,
        chosen={"text": "", "problem": "", "to": "all", **chosen},
        problems=documents.problems(page.server, page.sight),
        targets=_targets(page),
        **_jury_items(page),
    )


def _recipients(to: str, asker: str | None) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """A form's ``to`` (team: the asking team; all; group:G; team:T) as (to_team_ids, to_group_ids)."""
    kind, _, which = to.partition(":")
    if kind == "all":
        return None, None
    if kind == "team" and not which and asker is not None:
        return (asker,), None
    if kind == "team" and which:
        return (which,), None
    if kind == "group" and which:
        return None, (which,)
    raise Refused(400, f"choose whom to send it to (got {to!r})")


def announce(page: Page) -> Response:
    page.need_staff()
    chosen = {k: page.form.get(k, "") for k in ("text", "problem", "to")}
    try:
        teams, groups = _recipients(chosen["to"] or "all", None)
        request = ClarificationRequest(chosen["text"], chosen["problem"] or None, None, None, teams, groups)
        clarifications.send(page.server, page.viewer, request, page.now)
    except Refused as exc:
        return _announce_form(page, message=None, error=exc.message, status=exc.status, chosen=chosen)
    raise Redirect(page.url("/admin/clarifications?" + urlencode({"message": notices.ANNOUNCED})))


def _thread_context(page: Page, public_id: str) -> dict[str, Any]:
    t = clarifications.thread(page.server, page.sight, public_id)
    return {
        "item": item(page, t.clarification),
        "replied": None if t.replied is None else item(page, t.replied),
        "replies": [item(page, v) for v in t.replies],
        "answered": t.answered,
        "groups": [(str(g["id"]), str(g["name"])) for g in page.server.contest.groups],
        "canned": CANNED,
        "problems": documents.problems(page.server, page.sight),
        "default_problem": t.clarification.clarification.problem_id or "",
    }


def jury_thread(page: Page) -> Response:
    page.need_staff()
    context = _thread_context(page, page.params["id"])
    return page.render("serve/admin_clarification.html", error=None, text="", **context)


def answer(page: Page) -> Response:
    """Answer (or write again about) one clarification: the text box's text, or a canned answer."""
    page.need_staff()
    public_id = page.params["id"]
    context = _thread_context(page, public_id)
    text = page.form.get("canned") or page.form.get("text", "")
    try:
        if page.form.get("canned") and page.form["canned"] not in CANNED:
            raise Refused(400, "not one of the canned answers")
        teams, groups = _recipients(page.form.get("to", "team"), context["item"]["team_id"])
        problem = page.form.get("problem", context["default_problem"]) or None
        request = ClarificationRequest(text, problem, public_id, None, teams, groups)
        clarifications.send(page.server, page.viewer, request, page.now)
    except Refused as exc:
        return page.render("serve/admin_clarification.html", status=exc.status, error=exc.message, text=text, **context)
    raise Redirect(page.url("/admin/clarifications?" + urlencode({"message": notices.ANSWERED})))


CLAR_PAGES: Sequence[PageSpec] = (
    PageSpec("GET", "/clarifications", team_page),
    PageSpec("POST", "/clarifications", ask),
    PageSpec("GET", "/clarifications/notice", notice),
    PageSpec("GET", "/admin/clarifications", jury_page),
    PageSpec("POST", "/admin/clarifications", announce),
    PageSpec("GET", "/admin/clarifications/{id}", jury_thread),
    PageSpec("POST", "/admin/clarifications/{id}", answer),
)
