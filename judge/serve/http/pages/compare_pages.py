"""Two submissions compared (issue 47), the jury's page: ``/admin/compare?a=<id>&b=<id>`` (their sources as
diffs, their tests' verdicts side by side), reached from a submission's page ("compare with the previous
try", or any submission's id). Asks services/judging/compare.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http.ids import number_id
from judge.serve.http.pages.rows import submission_row, verdict_class
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.records import RunRecord
from judge.serve.services.judging import compare
from judge.serve.services.judging.results import StaffDetail


def _cell(r: RunRecord | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"verdict": r.verdict, "css": verdict_class(r.verdict), "time": r.run_time, "ordinal": r.ordinal}


def _side(page: Page, d: StaffDetail) -> dict[str, Any]:
    current = next((j.judgement for j in d.judgements if j.judgement.current), None)
    return {**submission_row(page, d.view), "judgement": current}


def compare_page(page: Page) -> Response:
    page.need_staff()
    a, b = page.query.get("a", ""), page.query.get("b", "")
    if a and not b:  # "compare with the previous try"
        previous = compare.previous_try(page.server, page.sight, number_id(a) or 0)
        if previous is None:
            raise Refused(404, f"submission {a} has no earlier try of its team on its problem")
        raise Redirect(page.url("/admin/compare?" + urlencode({"a": previous, "b": a})))
    c = compare.compare(page.server, page.sight, number_id(a), number_id(b), what=(a, b))
    tests = [{"name": t.name, "a": _cell(t.a), "b": _cell(t.b), "differs": t.differs} for t in c.tests]
    return page.render(
        "serve/compare.html",
        a=_side(page, c.a),
        b=_side(page, c.b),
        files=c.files,
        tests=tests,
        changed=sum(1 for t in c.tests if t.differs),
    )


COMPARE_PAGES: tuple[PageSpec, ...] = (PageSpec("GET", "/admin/compare", compare_page),)
