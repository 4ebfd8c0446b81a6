"""The pages of a course's assignment (issue 45, docs/course.md): its board (per student the score after the
late penalty and why, in words: services/board/course_board.py; staff every student, a student their own row),
and the late penalty on a student's submission pages. A contest that is no assignment has none of this."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from judge.course.notes import attempt_note, rules_text, window_text
from judge.course.window import credit_at
from judge.scoreboard.pages import credit_view, fmt_score
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.services import documents
from judge.serve.services.board.course_board import course_rows, in_group
from judge.serve.services.judging.course_feedback import publish_grades
from judge.serve.services.judging.submissions import SubmissionView


def is_course(page: Page) -> bool:
    return page.server.course.state is not None


def _cell(page: Page, c: Any) -> dict[str, Any]:
    credit = c.credit
    href = None
    if c.submission_id is not None:
        where = "/admin/submissions" if page.viewer.staff else "/submissions"
        href = page.url(f"{where}/{c.submission_id}")
    out: dict[str, Any] = {
        "tries": c.submissions,
        "pending": c.pending,
        "hidden": c.hidden,
        "href": href,
        "score": None if credit is None else fmt_score(credit.score),
        "credit": credit_view(credit),
        "css": "none",
    }
    if credit is not None:
        out["css"] = "ac" if credit.percent == 100 and credit.raw > 0 else "partial" if credit.score > 0 else "wa"
    return out


def board(page: Page) -> Response:
    """A course's board: ranked by the points that count (staff); a student sees their own row."""
    view = page.server.course.view(page.server.contest)
    assert view is not None
    group = page.query.get("group") or None
    rows = in_group(page.server, page.sight, course_rows(page.server, page.sight), group)
    groups = [(str(g["id"]), str(g["name"])) for g in documents.groups(page.server, page.sight)]
    mine = ""
    if page.viewer.team_id is not None:
        resolved = view.resolved(page.viewer.team_id)
        mine = window_text(resolved.window)
    context: dict[str, Any] = {
        "rows": [{**r.__dict__, "cells": [_cell(page, c) for c in r.cells], "total": r.score} for r in rows],
        "problems": [{"id": p.id, "label": p.label, "name": p.name} for p in page.server.contest.problems],
        "rules": rules_text(view.assignment),
        "my_window": mine,
        "groups": groups if page.viewer.staff else [],
        "group": group,
    }
    if page.query.get("fragment"):
        return page.render("serve/_course_board.html", **context)
    return page.render("serve/course_board.html", **context)


def submission_credit(page: Page, v: SubmissionView) -> dict[str, Any] | None:
    """What a student's submission counts under the late penalty, for their pages: the score after it and why
    (``40 × 80 %: late 1 h``); None: no course, or no score shown (pending, or hidden by the feedback rules)."""
    view = page.server.course.view(page.server.contest)
    j, s = v.judgement, v.submission
    if view is None or j is None or not j.done:
        return None
    if j.score is None:  # withheld by the feedback rules
        if j.judgement_type is None:
            return None
        return {"score": "–", "note": "the score is shown once the grades are published", "cls": "void"}
    resolved = view.resolved(s.team_id)
    percent = credit_at(resolved.window, s.time_s).percent
    note = attempt_note(resolved, view.assignment.window.due_s, s.time_s)
    raw = f"{fmt_score(j.score)} × {fmt_score(percent)} %: " if 0 < percent < 100 else ""
    cls = "late" if 0 < percent < 100 else "void" if percent == 0 else "extended" if note != "on time" else ""
    return {"score": fmt_score(round(j.score * percent / 100.0, 6)), "note": f"{raw}{note}", "cls": cls}


def add_credits(page: Page, views: list[SubmissionView], rows: list[dict[str, Any]]) -> None:
    """Each row of a student's submissions list (``rows``, made of ``views``) with what it counts (``credit``)
    and until when its verdict is withheld (``withheld``)."""
    by_id = {str(v.submission.id): v for v in views}
    for row in rows:
        v = by_id.get(row["id"])
        row["credit"] = None if v is None else submission_credit(page, v)
        row["withheld"] = None if v is None else withheld_words(page, v)


def withheld_words(page: Page, v: SubmissionView) -> str | None:
    """When a judged submission whose verdict the feedback rules keep from its student is shown to them ("after
    the due time", "once the grades are published"); None: nothing is withheld."""
    j = v.judgement
    view = page.server.course.view(page.server.contest)
    if view is None or j is None or not j.done or j.judgement_type is not None:
        return None
    rules = view.assignment.feedback_for(v.submission.problem_id)
    window = view.window(v.submission.team_id)
    if rules.switch.value == "due":
        return f"after the due time ({format_time(window.due_s)})"
    if rules.switch.value == "close":
        return f"after the assignment closes ({format_time(window.close_s)})"
    return "once the grades are published"


def _need_course(page: Page) -> None:
    if not is_course(page):
        raise Refused(404, "this contest is not a course's assignment")


def course_admin(page: Page) -> Response:
    """The course's page for the staff: the assignment's rules, its overrides, publishing the grades, and the
    gradebook and the roster."""
    page.need_staff()
    _need_course(page)
    state = page.server.course.state
    assert state is not None
    a = state.assignment
    overrides = [
        {
            "who": ", ".join(o.students) if o.students else "section " + ", ".join(o.sections),
            "label": o.label,
            "note": o.note,
            "window": window_text(o.window),
        }
        for o in a.overrides
    ]
    return page.render(
        "serve/course_admin.html",
        name=a.name or page.server.contest.info.name,
        rules=rules_text(a),
        overrides=overrides,
        published_s=state.published_s,
    )


def publish(page: Page) -> Response:
    """The instructor publishes the grades (course_feedback.publish_grades: stored, audited, once)."""
    page.need_staff()
    _need_course(page)
    page.confirm("publish-grades", page.url("/admin/course"), id=page.contest_id)
    publish_grades(page.server, page.viewer, page.now)
    raise Redirect(page.url("/admin/course"))


COURSE_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/course", course_admin),
    PageSpec("POST", "/admin/course/publish", publish),
)
