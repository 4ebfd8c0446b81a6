"""The jury's pages for package versions and rejudge previews (issue 33): "add as test" (a POST from the
counterexample's page, redirected to the preview), the preview page (its state, refreshing while it runs;
before → after per submission; the board's change; Apply and Discard for admins), the package upload form
and the current package's download. Each calls the same service as the API's handler
(services/judging/previews.py, preview_view.py, versions.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from starlette.responses import Response

from judge.serve.http.ids import number_id
from judge.serve.http.pages import notices
from judge.serve.http.pages.rows import verdict_class
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role
from judge.serve.services.judging import fuzzing, packages, previews, rejudgings
from judge.serve.services.judging.preview_queue import OPEN
from judge.serve.services.judging.preview_view import PreviewView, preview_view

STATE_TEXT = {
    "preparing": "checking the new test's input and making its answer (waits for idle judges)",
    "running": "judging the submissions against the new version (on idle judges)",
    "ready": "apply or discard it",
    "refused": "nothing was added",
    "applied": "the version is current; the submissions whose verdict changes are rejudged",
    "discarded": "its version's files are removed",
}
REJUDGING_TEXT = {  # a rejudging set (issue 47)
    "running": "judging the submissions again; their new judgements count for nothing until it is applied",
    "ready": "apply it (its judgements become current) or cancel it (nothing changes)",
    "applied": "its judgements are current",
    "cancelled": "nothing it judged counts",
}
RUNNING_AUTO = "judging the submissions again; each new judgement counts at once (it applies itself)"


def _score(score: dict[str, Any]) -> str:
    if "num_solved" in score:
        return f"{score['num_solved']} solved, {score.get('total_time', '')}"
    return f"{score.get('score', '')}"


def _context(v: PreviewView) -> dict[str, Any]:
    p = v.preview
    runs = [
        {
            "submission_id": r.run.submission_id,
            "team": r.team_name,
            "before": r.run.verdict_before,
            "after": r.run.verdict_after,
            "before_css": verdict_class(r.run.verdict_before),
            "after_css": verdict_class(r.run.verdict_after),
            "failing_test": r.run.failing_test or "",
            "changes": r.changes,
        }
        for r in sorted(v.runs, key=lambda r: (not r.changes, r.run.submission_id))
    ]
    board = [
        {
            "team": c.team_name,
            "rank_before": c.rank_before,
            "rank_after": c.rank_after,
            "before": _score(c.score_before),
            "after": _score(c.score_after),
        }
        for c in v.board
    ]
    if p.kind == "rejudge":
        state_text = RUNNING_AUTO if p.auto_apply and p.state in OPEN else REJUDGING_TEXT.get(p.state, p.state)
    else:
        state_text = STATE_TEXT.get(p.state, p.state)
    return {
        "p": p,
        "created": format_time(p.created_s),
        "state_text": state_text,
        "scope": rejudgings.scope_text(p) if p.kind == "rejudge" else "",
        "left": v.left,
        "running": p.state in OPEN,
        "stale": v.stale,
        "runs": runs,
        "changed": v.changed,
        "board": board,
    }


def preview_page(page: Page) -> Response:
    page.need_staff()
    view = preview_view(page.server, page.viewer, number_id(page.params["id"]), page.now)
    if page.query.get("fragment"):
        return page.render("serve/_preview.html", **_context(view))
    return page.render("serve/preview.html", message=notices.shown(page.query.get("message")), **_context(view))


def add_as_test(page: Page) -> Response:
    page.need_staff()
    _confirm_add(page)
    preview_id = previews.add_as_test(page.server, page.viewer, number_id(page.params["id"]), page.now)
    raise Redirect(page.url(f"/admin/previews/{preview_id}"))


def _confirm_add(page: Page) -> None:
    cid = page.params["id"]
    c = fuzzing.counterexample(page.server, page.viewer, page.now, number_id(cid))
    cp = page.server.contest.problem(c.problem_id)
    page.confirm(
        "add-as-test",
        back=page.url(f"/admin/counterexamples/{c.id}"),
        id=c.id,
        problem=cp.label if cp else c.problem_id,
    )


def apply(page: Page) -> Response:
    page.need_staff()
    view = preview_view(page.server, page.viewer, number_id(page.params["id"]), page.now)
    p = view.preview
    back = page.url(f"/admin/previews/{p.id}")
    if p.kind == "rejudge":  # a rejudging set (issue 47): the jury applies it
        page.confirm("apply-rejudging", back=back, id=p.id, n=view.changed)
        done = rejudgings.apply(page.server, page.viewer, p.id, page.now)
        message = notices.notice(notices.REJUDGING_APPLIED, id=p.id, n=len(done.applied))
        raise Redirect(f"{back}?{urlencode({'message': message})}")
    if page.viewer.role is Role.ADMIN:  # others are refused by the service, unasked
        page.confirm("apply", back=back, id=p.id, version=p.version, n=view.changed)
    previews.apply(page.server, page.viewer, number_id(page.params["id"]), page.now)
    raise Redirect(back)


def discard(page: Page) -> Response:
    page.need_staff()
    view = preview_view(page.server, page.viewer, number_id(page.params["id"]), page.now)
    if view.preview.kind == "rejudge":  # a rejudging set (issue 47): cancelled by the jury
        back = page.url(f"/admin/previews/{view.preview.id}")
        page.confirm("cancel-rejudging", back=back, id=view.preview.id)
        rejudgings.cancel(page.server, page.viewer, view.preview.id, page.now)
        message = notices.notice(notices.REJUDGING_CANCELLED, id=view.preview.id)
        raise Redirect(f"{back}?{urlencode({'message': message})}")
    if page.viewer.role is Role.ADMIN:
        page.confirm(
            "discard", back=page.url(f"/admin/previews/{quote(page.params['id'], safe='')}"), id=page.params["id"]
        )
    previews.discard(page.server, page.viewer, number_id(page.params["id"]), page.now)
    raise Redirect(page.url(f"/admin/previews/{page.params['id']}"))


def upload_form(page: Page) -> Response:
    page.need_staff()
    cp = packages.current_problem(page.server, page.params["id"])
    version = page.server.versions.version(cp.id)
    return page.render("serve/preview_upload.html", problem=cp, version=version, error=None)


def upload(page: Page) -> Response:
    page.need_staff()
    cp = packages.current_problem(page.server, page.params["id"])
    sent = page.files.get("package")
    try:
        if sent is None or not sent.data:
            raise Refused(400, "choose the package's zip")
        preview_id = previews.upload_package(page.server, page.viewer, cp.id, sent.data, page.now)
    except Refused as exc:
        if exc.status in (401, 403, 404):
            raise
        version = page.server.versions.version(cp.id)
        return page.render(
            "serve/preview_upload.html", status=exc.status, problem=cp, version=version, error=exc.message
        )
    raise Redirect(page.url(f"/admin/previews/{preview_id}"))


def download(page: Page) -> Response:
    page.need_staff()
    name, data = packages.package_zip(page.server, page.viewer, page.params["id"], page.now)
    return Response(
        data, media_type="application/zip", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


PREVIEW_PAGES: tuple[PageSpec, ...] = (
    PageSpec("POST", "/admin/counterexamples/{id}/add-as-test", add_as_test),
    PageSpec("GET", "/admin/previews/{id}", preview_page),
    PageSpec("POST", "/admin/previews/{id}/apply", apply),
    PageSpec("POST", "/admin/previews/{id}/discard", discard),
    PageSpec("GET", "/admin/problems/{id}/package", upload_form),
    PageSpec("POST", "/admin/problems/{id}/package", upload, form_limit="package"),
    PageSpec("GET", "/admin/problems/{id}/package.zip", download),
)
