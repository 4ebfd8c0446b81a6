"""Printing (issue 30), the pages: a team's print form (a file, or pasted text) with its own print-outs,
and the jury's print queue (team, time, file, status, the text), live. The same service as the API's
extension (``POST``/``GET /api/contests/<id>/prints``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http import notices
from judge.serve.http.web import Page, PageSpec, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.records import PrintRecord
from judge.serve.model.times import format_time
from judge.serve.services import printing


def print_json(p: PrintRecord) -> dict[str, Any]:
    return {
        "id": str(p.id),
        "team_id": p.team_id,
        "username": p.username,
        "filename": p.filename,
        "time": format_time(p.time_s),
        "status": p.status,
        "text": p.text,
    }


def print_form(page: Page) -> Response:
    page.need_login()
    mine = [print_json(p) for p in reversed(printing.print_list(page.server, page.viewer))]
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
        mine = [print_json(p) for p in reversed(printing.print_list(page.server, page.viewer))]
        printer = page.server.contest.info.print_command is not None
        context = {"prints": mine, "printer": printer, "message": None, "error": exc.message}
        return page.render("serve/print.html", status=exc.status, **context)
    raise Redirect("/print?" + urlencode({"message": notices.notice(notices.PRINTED, n=sent.id)}))


def print_queue(page: Page) -> Response:
    page.need_staff()
    rows = [print_json(p) for p in reversed(printing.print_list(page.server, page.viewer))]
    if page.query.get("fragment"):
        return page.render("serve/_admin_prints.html", prints=rows)
    return page.render("serve/admin_prints.html", prints=rows)


PRINT_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/print", print_form),
    PageSpec("POST", "/print", send_print, form_limit="submission"),
    PageSpec("GET", "/admin/prints", print_queue),
)
