"""The pages of a course's assignment (issue 45, docs/course.md): its board (per student the score after the
late penalty and why, in words: services/board/course_board.py; staff every student, a student their own row),
and the late penalty on a student's submission pages. A contest that is no assignment has none of this."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.course.assignment import Assignment, Counts
from judge.course.export import Format, csv_text, number
from judge.course.notes import attempt_note
from judge.course.rosterdiff import NewLogin, login_rows
from judge.course.sitefiles import read_roster
from judge.course.values import CourseError
from judge.course.window import AfterClose, Window, credit_at
from judge.scoreboard.pages import credit_view, fmt_score
from judge.serve.http.files import download
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role
from judge.serve.services import documents
from judge.serve.services.board.course_board import course_rows, in_group
from judge.serve.services.judging.course_feedback import publish_grades
from judge.serve.services.judging.submissions import SubmissionView
from judge.serve.services.lifecycle.course_overrides import OverrideChange, set_overrides
from judge.serve.services.lifecycle.gradebook import course_gradebook, gradebook_csv
from judge.serve.services.people.course_roster import apply_roster, preview_roster


def window_view(w: Window) -> dict[str, Any]:
    """A window as the pages draw it (templates/_course_window.html), its times in the viewer's clock: the
    static board's words (course/notes.window_text), with ``|clock`` times."""
    return {
        "open_s": w.open_s,
        "due_s": w.due_s,
        "steps": [(fmt_score(s.percent), s.until_s) for s in w.late],
        "after": "practice (judged, counts 0)" if w.after is AfterClose.PRACTICE else "closed",
    }


def rules_view(a: Assignment) -> dict[str, Any]:
    """The assignment's rules (course/notes.rules_text) as the pages draw them."""
    counts = "the last submission counts" if a.counts is Counts.LAST else "the best submission counts"
    return {"window": window_view(a.window), "counts": counts, "overrides": len(a.overrides)}


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
    mine = None
    if page.viewer.team_id is not None:
        resolved = view.resolved(page.viewer.team_id)
        mine = window_view(resolved.window)
    context: dict[str, Any] = {
        "rows": [{**r.__dict__, "cells": [_cell(page, c) for c in r.cells], "total": r.score} for r in rows],
        "problems": [{"id": p.id, "label": p.label, "name": p.name} for p in page.server.contest.problems],
        "rules": rules_view(view.assignment),
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
            "window": window_view(o.window),
        }
        for o in a.overrides
    ]
    return page.render(
        "serve/course_admin.html",
        name=a.name or page.server.contest.info.name,
        rules=rules_view(a),
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


# ------------------------------------------------------------------------------------------------ the gradebook


def gradebook_page(page: Page) -> Response:
    """The course's gradebook (staff): every student of the roster, every assignment of the course, as `judge
    course grades` prints it; its CSV in the three layouts."""
    page.need_staff()
    _need_course(page)
    course, book = course_gradebook(page.server, page.viewer)
    assignments = [
        {"id": a.id, "name": a.name, "max": number(a.max_score), "problems": a.problems} for a in book.assignments
    ]
    rows = []
    for i, student in enumerate(book.students):
        cells = []
        for a in book.assignments:
            g = a.grades[i]
            cells.append(
                {
                    "score": number(g.score),
                    "raw": number(g.raw),
                    "late": g.minutes_late,
                    "override": g.override_label,
                    "used": g.extension_used,
                    "problems": [number(p.score) for p in g.problems],
                }
            )
        rows.append({"student": student, "cells": cells, "total": number(book.total(i))})
    return page.render(
        "serve/course_gradebook.html",
        assignments=assignments,
        rows=rows,
        skipped=course.skipped,
        formats=[f.value for f in Format],
    )


def gradebook_download(page: Page) -> Response:
    """``gradebook-<format>.csv``: the file `judge course grades --format FORMAT [--per-problem]` writes."""
    page.need_staff()
    _need_course(page)
    try:
        fmt = Format(page.query.get("format", "csv"))
    except ValueError:
        raise Refused(400, f"no gradebook format {page.query.get('format')!r} (csv, canvas, moodle)") from None
    per_problem = page.query.get("per_problem") in ("1", "on", "yes")
    text = gradebook_csv(page.server, page.viewer, fmt, per_problem)
    return download(text.encode("utf-8"), "text/csv; charset=utf-8", f"gradebook-{fmt.value}.csv")


# ------------------------------------------------------------------------------------------------ the roster


def _root(page: Page) -> Path:
    root = page.server.course.root
    if root is None:
        raise Refused(404, "this contest is not a course's assignment")
    return root


def _roster_context(page: Page) -> dict[str, Any]:
    view = page.server.course.view(page.server.contest)
    assert view is not None
    try:
        roster = read_roster(_root(page))
    except CourseError as exc:
        raise Refused(409, str(exc)) from None
    students = []
    for s in roster.students:
        resolved = view.resolved(s.id)
        override = ""
        if resolved.override is not None:
            label = resolved.override.label
            override = label if resolved.source == "student" else f"{resolved.source}: {label}"
        students.append({"student": s, "override": override, "window": window_view(resolved.window)})
    sections = sorted({(s.section_id, s.section) for s in roster.students if s.section_id}, key=lambda x: x[1])
    return {"students": students, "withdrawn": roster.withdrawn, "sections": sections, "error": None}


def roster_page(page: Page) -> Response:
    """The roster (staff): the students, their window in this assignment; an admin imports a roster CSV
    (preview, then apply) and sets overrides in bulk. After an import, the new students' logins once."""
    page.need_staff()
    _need_course(page)
    shown = page.query.get("shown")
    return page.render(
        "serve/course_roster.html",
        imported=page.query.get("imported") == "1",
        logins=shown if shown and len(shown) < 64 else None,
        overrides=page.query.get("overrides") == "1",
        **_roster_context(page),
    )


def _refused_on_roster(page: Page, exc: Refused) -> Response:
    context = {**_roster_context(page), "error": exc.message}
    return page.render(
        "serve/course_roster.html", status=exc.status, imported=False, logins=None, overrides=False, **context
    )


def _columns(text: str) -> dict[str, str]:
    """``id=Matrikel; section=Gruppe`` (or one a line): the columns a roster's headers do not say."""
    out = {}
    for part in text.replace("\n", ";").split(";"):
        if not part.strip():
            continue
        field, eq, header = part.partition("=")
        if not eq or not field.strip() or not header.strip():
            raise Refused(400, f"a column is named as FIELD=HEADER (e.g. id=Matrikel), not {part.strip()!r}")
        out[field.strip()] = header.strip()
    return out


def roster_preview(page: Page) -> Response:
    """An uploaded roster CSV: the columns it was read from, and who would be added, changed and withdrawn;
    nothing is applied until the admin confirms this preview."""
    page.need_staff()
    _need_course(page)
    upload = page.files.get("file")
    try:
        access_admin(page)
        if upload is None or not upload.data:
            raise Refused(400, "choose the roster CSV to import")
        columns = _columns(page.form.get("columns", ""))
        found = preview_roster(_root(page), upload.data, upload.filename or "roster.csv", columns)
    except Refused as exc:
        return _refused_on_roster(page, exc)
    return page.render(
        "serve/course_roster_preview.html",
        name=upload.filename or "roster.csv",
        data=base64.b64encode(upload.data).decode(),
        columns=page.form.get("columns", ""),
        preview=found,
        lines=found.plan.lines(),
    )


def roster_apply(page: Page) -> Response:
    """The confirmed preview applied (course_roster.apply_roster); the new students' logins held for one
    download (people/reveal.py)."""
    page.need_staff()
    _need_course(page)
    name = page.form.get("name", "roster.csv")
    try:
        data = base64.b64decode(page.form.get("data", ""), validate=True)
    except (ValueError, binascii.Error):
        raise Refused(400, "the roster was not sent back whole: import it again") from None
    columns = _columns(page.form.get("columns", ""))
    found = preview_roster(_root(page), data, name, columns)
    page.confirm("roster-apply", page.url("/admin/course/roster"), **found.counts)
    try:
        logins = apply_roster(
            page.server, page.viewer, _root(page), (name, data), columns, page.form.get("digest", ""), page.now
        )
    except Refused as exc:
        return _refused_on_roster(page, exc)
    query = {"imported": "1"}
    if logins:
        query["shown"] = page.server.reveals.put(
            page.cookie, tuple((lg.username, lg.password) for lg in logins), page.now
        )
    raise Redirect(page.url("/admin/course/roster?" + urlencode(query)))


def logins_download(page: Page) -> Response:
    """The new students' logins (id, name, email, section, username, password) for a mail merge: once, for the
    session that imported them (people/reveal.py); then gone."""
    page.need_staff()
    _need_course(page)
    passwords = dict(page.server.reveals.take(page.cookie, page.query.get("shown"), page.now))
    if not passwords:
        raise Refused(
            404,
            "the new students' logins were downloaded already (or have expired): reset a password on the Teams page",
        )
    roster = read_roster(_root(page))
    logins = [NewLogin(s, s.id, passwords[s.id]) for s in roster.students if s.id in passwords]
    return download(csv_text(login_rows(logins)).encode("utf-8"), "text/csv; charset=utf-8", "logins.csv")


def set_overrides_page(page: Page) -> Response:
    """Overrides in bulk: the students checked (``student:<id>``), or a section; an extension, a due time, a
    close, an opening, or the assignment's own window back."""
    page.need_staff()
    _need_course(page)
    f = page.form
    students = tuple(sorted(k.split(":", 1)[1] for k, v in f.items() if k.startswith("student:") and v))
    section = f.get("section", "")
    change = OverrideChange(
        students=() if section else students,
        sections=(section,) if section else (),
        kind=f.get("kind", "extension"),
        value=f.get("value", ""),
        note=f.get("note", ""),
    )
    try:
        set_overrides(page.server, page.viewer, change, page.now)
    except Refused as exc:
        return _refused_on_roster(page, exc)
    raise Redirect(page.url("/admin/course/roster?overrides=1"))


def access_admin(page: Page) -> None:
    if page.viewer.role is not Role.ADMIN:
        raise Refused(403, "only admins may import a roster")


COURSE_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/course", course_admin),
    PageSpec("POST", "/admin/course/publish", publish),
    PageSpec("GET", "/admin/course/gradebook", gradebook_page),
    PageSpec("GET", "/admin/course/gradebook.csv", gradebook_download),
    PageSpec("GET", "/admin/course/roster", roster_page),
    PageSpec("POST", "/admin/course/roster/preview", roster_preview, form_limit="roster"),
    PageSpec("POST", "/admin/course/roster/apply", roster_apply, form_limit="roster"),
    PageSpec("GET", "/admin/course/roster/logins.csv", logins_download),
    PageSpec("POST", "/admin/course/overrides", set_overrides_page),
)
