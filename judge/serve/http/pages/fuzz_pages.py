"""Live fuzzing's pages (issue 33, docs/live-fuzzing.md), the jury's only: the Fuzzing page (per problem of the
contest: fuzzable or not, its counterexamples newest first; live), a counterexample's page (its input, the
submission's output, the reference's answer, the validator's message, and the "Add as test" form, whose
POST the package versions' pages serve), the raw bytes as downloads, and the header's notice of new ones.
Each asks services/judging/fuzzing.py, which asks visibility.sees_fuzzing; a team or the public gets the answer
every /admin page gives them (need_staff: the login page, or 403)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.responses import Response

from judge.serve.http.ids import number_id
from judge.serve.http.pages.fuzz_views import counterexample_row, shown_bytes
from judge.serve.http.pages.web import FUZZ_NOTICE, Page, PageSpec
from judge.serve.model.errors import Refused
from judge.serve.services.judging import fuzzing

PARTS = {"input": ".in", "output": ".out", "answer": ".ans"}  # the downloads, and their files' extensions


def fuzzing_page(page: Page) -> Response:
    """The Fuzzing page; ``?fragment=1`` is its live part (live.js polls it)."""
    page.need_staff()
    found = fuzzing.overview(page.server, page.viewer, page.now)
    problems: list[dict[str, Any]] = []
    for pf in found.problems:
        cp = page.server.contest.problem(pf.problem_id)
        rows = [counterexample_row(page, c, found.team_ids.get(c.submission_id)) for c in pf.counterexamples]
        label, name = (cp.label, cp.name) if cp else (pf.problem_id, pf.problem_id)
        problems.append(
            {"id": pf.problem_id, "label": label, "name": name, "fuzzable": pf.fuzzable, "rows": rows, "jobs": pf.jobs}
        )
    template = "serve/_fuzzing_list.html" if page.query.get("fragment") else "serve/fuzzing.html"
    return page.render(template, problems=problems)


def counterexample_page(page: Page) -> Response:
    page.need_staff()
    found = fuzzing.detail(page.server, page.viewer, page.now, number_id(page.params["id"]))
    c = found.counterexample
    shown = {part: shown_bytes(getattr(c, part)) for part in PARTS}
    return page.render("serve/fuzzing_counterexample.html", c=counterexample_row(page, c, found.team_id), shown=shown)


def _download(part: str) -> Callable[[Page], Response]:
    def download(page: Page) -> Response:
        page.need_staff()
        c = fuzzing.counterexample(page.server, page.viewer, page.now, number_id(page.params["id"]))
        data: bytes | None = getattr(c, part)
        if data is None:
            raise Refused(404, "the submission gave no output (it crashed or ran out of time first)")
        name = f"counterexample-{c.id}{PARTS[part]}"
        disposition = f'attachment; filename="{name}"'
        return Response(data, media_type="application/octet-stream", headers={"Content-Disposition": disposition})

    download.__name__ = f"download_{part}"
    return download


def notice(page: Page) -> Response:
    """The header's Fuzzing link with its notice, again (live.js polls it on the jury's pages)."""
    page.need_staff()
    return page.render(FUZZ_NOTICE)


FUZZ_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/fuzzing", fuzzing_page),
    PageSpec("GET", "/admin/fuzzing/notice", notice),
    PageSpec("GET", "/admin/counterexamples/{id}", counterexample_page),
    *(PageSpec("GET", f"/admin/counterexamples/{{id}}/{part}", _download(part)) for part in PARTS),
)
