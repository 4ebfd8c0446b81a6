"""Printing (issue 30), the pages: a team's print form (a file, or pasted text) with its own print-outs,
and the jury's print queue (team, time, file, status, the text), live. The same service as the API's
extension (``POST``/``GET /api/contests/<id>/prints``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http.ids import number_id
from judge.serve.http.live_views import print_json
from judge.serve.http.pages import notices
from judge.serve.http.pages.web import Page, PageSpec, Redirect, contest_time
from judge.serve.model.errors import Refused
from judge.serve.model.records import PrintRecord
from judge.serve.services.desk import printing


def _queue_row(page: Page, p: PrintRecord) -> dict[str, Any]:
    """A print-out as the jury's queue shows it: the team by name, times as contest time."""
    team = page.server.contest.team(p.team_id) if p.team_id else None
    start = page.server.contest.info.start_s
    return {
        **print_json(p),
        "team": (team.display_name or team.name) if team else None,
        "time_s": p.time_s,
        "contest_time": contest_time(p.time_s, start),
        "delivered_s": p.delivered_s,
        "delivered": None if p.delivered_s is None else contest_time(p.delivered_s, start),
    }


def print_form(page: Page) -> Response:
    page.need_login()
    mine = [_queue_row(page, p) for p in reversed(printing.print_list(page.server, page.viewer))]
    printer = page.server.contest.info.print_command is not None
    message = notices.shown(page.query.get("message"))
    return page.render("serve/print.html", prints=mine, printer=printer, message=message, error=None)


def send_print(page: Page) -> Response:
    page.need_login()
    upload = page.files.get("file")
    if upload is not None and upload.data:
        name, data = upload.filename, upload.data
    else:
        name, data = page.form.get("filename", "") or "print.txt", page.form.get("text", "").encode("utf-8")
    try:
        sent = printing.submit_print(page.server, page.viewer, name, data, page.now)
    except Refused as exc:
        if exc.status in (401, 403):
            raise
        mine = [_queue_row(page, p) for p in reversed(printing.print_list(page.server, page.viewer))]
        printer = page.server.contest.info.print_command is not None
        context = {"prints": mine, "printer": printer, "message": None, "error": exc.message}
        return page.render("serve/print.html", status=exc.status, **context)
    raise Redirect(page.url("/print?" + urlencode({"message": notices.notice(notices.PRINTED, n=sent.id)})))


def print_queue(page: Page) -> Response:
    page.need_staff()
    found = list(reversed(printing.print_list(page.server, page.viewer)))  # newest first; the delivered last
    rows = [
        _queue_row(page, p)
        for p in [*(p for p in found if p.delivered_s is None), *(p for p in found if p.delivered_s)]
    ]
    if page.query.get("fragment"):
        return page.render("serve/_admin_prints.html", prints=rows)
    return page.render("serve/admin_prints.html", prints=rows)


def print_delivered(page: Page) -> Response:
    """The jury marks a print-out delivered (or not), as the balloons page marks balloons."""
    page.need_staff()
    delivered = page.form.get("delivered") != "0"
    printing.mark_delivered(page.server, page.viewer, number_id(page.params["id"]), delivered, page.now)
    raise Redirect(page.url("/admin/prints"))


PRINT_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/print", print_form),
    PageSpec("POST", "/print", send_print, form_limit="submission"),
    PageSpec("GET", "/admin/prints", print_queue),
    PageSpec("POST", "/admin/prints/{id}/delivered", print_delivered),
)
