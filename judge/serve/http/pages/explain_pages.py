"""A rejected submission's counterexample on its pages (issue 46, docs/serve.md "Counterexamples"): the team's
submission page and the jury's show "An input your program fails on" (the input, the reference's answer,
the program's output, the checker's message, each a download) as soon as the search on idle judging slots
finds it, without a reload: the part is a ``data-live`` element that static/live.js polls
(``/submissions/<id>/counterexample``, this module) until its fragment says ``data-live-done``. Who sees what
is services/judging/explaining.py's question to visibility.counterexample_sight, as the API's."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from judge.judging.verdict import Verdict
from judge.serve.http.files import download
from judge.serve.http.ids import number_id
from judge.serve.http.pages.fuzz_views import shown_bytes
from judge.serve.http.pages.web import Page, PageSpec
from judge.serve.model.apijson import judgement_type
from judge.serve.model.records import JudgementRecord, SubmissionRecord
from judge.serve.services.judging import explaining
from judge.serve.services.judging.explaining import PARTS, OnPage


def _verdict(page: Page, value: str | None) -> str | None:
    """Ours for the jury (PV stays PV), the spec's judgement type for a team (as its pages show verdicts)."""
    if value is None:
        return None
    return value if page.viewer.staff else judgement_type(Verdict(value))


def part_context(page: Page, found: OnPage | None, submission_id: int) -> dict[str, Any] | None:
    """What the templates show of the counterexample (None: nothing, and nothing to wait for)."""
    if found is None:
        return None
    out: dict[str, Any] = {
        "href": page.url(f"/submissions/{submission_id}/counterexample"),
        "live": found.live,
        "staff": page.viewer.staff,
        "status": None,
        "parts": None,  # found, shown in full: input, answer, output (fuzz_views.shown_bytes)
        "jury": None,  # the jury's line
    }
    shown = found.shown
    if shown is None:
        return out  # the verdict is not in yet: the part waits, empty
    search, result = shown.search, shown.search.result
    budget = search.policy.budget
    out |= {
        "status": shown.status,
        "per_team": search.policy.per_team,
        "examples": None if result is None else result.examples,
        "budget_examples": budget.examples,
        "budget_seconds": f"{budget.seconds:g}",
    }
    if shown.full and result is not None and search.found:
        out |= {
            "failure": _verdict(page, None if result.failure is None else result.failure.value),
            "message": result.message,
            "transcript": result.transcript,
            "parts": {part: shown_bytes(getattr(result, part)) for part in PARTS},
        }
    if page.viewer.staff:
        out["jury"] = {
            "state": search.state.value,
            "show": search.policy.show.value,
            "team_shown": search.team_shown,
            "examples": search.examples_done,
            "seconds": f"{search.spent_s:.1f}",
            "withheld": search.withheld,
            "attempts": search.attempts,
            "note": "" if result is None else result.note,
            "cancelled": search.message,
        }
    return out


def on_page(page: Page, sub: SubmissionRecord, judgement: JudgementRecord | None) -> dict[str, Any] | None:
    """The counterexample part of ``sub``'s page (``judgement``: the current one the viewer sees)."""
    return part_context(page, explaining.on_page(page.server, page.sight, sub, judgement), sub.id)


def fragment(page: Page) -> Response:
    """The part again, for live.js (the same 404 as the API's for whoever may not see the submission)."""
    page.need_login()
    what = page.params["id"]
    sid = number_id(what)
    found = explaining.page_part(page.server, page.sight, sid, what=what)
    return page.render("serve/_counterexample.html", cx=part_context(page, found, sid or 0))


def file(page: Page) -> Response:
    """The input (``.in``), the reference's answer (``.ans``) or the program's output (``.out``)."""
    page.need_login()
    what, part = page.params["id"], page.params["part"]
    sid = number_id(what)
    data = explaining.counterexample_file(page.server, page.sight, sid, part, what=what)
    return download(data, "application/octet-stream", f"submission-{sid}{PARTS[part]}")


EXPLAIN_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/submissions/{id}/counterexample", fragment),
    PageSpec("GET", "/submissions/{id}/counterexample/{part}", file),
)
