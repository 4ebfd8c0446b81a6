"""The organizers' pages (judges and admins): every submission with filters (live), one submission's
source and full per-test detail (every test's name, verdict, times, memory, score and validator or
interactor message; the compiler's message; every judgement, old ones too), rejudge (a submission or a
whole problem), the freeze's state and the thaw button (admins), and the downloads: ``results.json``
and the contest package archive. Each calls the same service as the API's handler."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup
from starlette.responses import Response

from judge.judging.verdict import Verdict
from judge.serve.http.ids import number_id
from judge.serve.http.pages import explain_pages, notices, run_pages
from judge.serve.http.pages.rows import newest_first, submission_row, verdict_class
from judge.serve.http.pages.web import Page, PageSpec, Redirect, clock_time, contest_time
from judge.serve.model.apijson import judgement_id
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role
from judge.serve.services import archive
from judge.serve.services.judging import compare, moderation, rejudgings, results, run_output, submissions
from judge.serve.services.judging.results import JudgementDetail
from judge.serve.services.judging.submissions import SubmissionView
from judge.serve.services.lifecycle import control, finalize

LIST_LIMIT = 500
FILTERS = ("team_id", "problem_id", "language_id", "verdict")


def _chosen(page: Page) -> dict[str, str]:
    return {k: page.query.get(k, "") for k in FILTERS}


def _matches(v: SubmissionView, chosen: dict[str, str]) -> bool:
    s, j = v.submission, v.judgement
    for key, value in (("team_id", s.team_id), ("problem_id", s.problem_id), ("language_id", s.language_id)):
        if chosen[key] and chosen[key] != value:
            return False
    if chosen["verdict"] == "pending":
        return j is None or not j.done
    return not chosen["verdict"] or (j is not None and j.verdict == chosen["verdict"])


def _freeze_context(page: Page) -> dict[str, Any]:
    phase, info = page.sight.phase, page.server.contest.info

    def at(t: float | None) -> Markup | None:
        """A moment of the contest's end as the jury reads it: contest time, and the viewer's clock (issue 43:
        ISO times with milliseconds in UTC were shown)."""
        if t is None:
            return None
        return Markup("{} into the contest ({})").format(contest_time(t, info.start_s), clock_time(t))

    return {
        "freeze_at": at(phase.freeze_s),
        "can_freeze": phase.freeze_refusal(page.now) is None,
        "end_at": at(info.end_s),
        "thawed_at": at(phase.thawed_at),
        "thaw_at": at(phase.thaw_s),
        "finalized_at": at(phase.finalized_at),
        "end_of_updates": at(phase.end_of_updates_s),
        "ended": phase.end_s is not None and page.now >= phase.end_s,
    }


def all_submissions(page: Page) -> Response:
    page.need_staff()
    chosen = _chosen(page)
    views = [v for v in submissions.submission_views(page.server, page.sight) if _matches(v, chosen)]
    rows = newest_first(page, views, limit=LIST_LIMIT)
    if page.query.get("fragment"):
        return page.render("serve/_admin_rows.html", rows=rows)
    contest = page.server.contest
    options = {
        "team_id": [(t.id, t.display_name or t.name) for t in contest.teams],
        "problem_id": [(p.id, f"{p.label} {p.name}") for p in contest.problems],
        "language_id": [(lang.id, lang.name) for lang in page.server.languages.values()],
        "verdict": [("pending", "pending"), *((v.value, v.value) for v in Verdict)],
    }
    query = "&".join(f"{k}={v}" for k, v in chosen.items() if v)
    return page.render(
        "serve/admin.html",
        rows=rows,
        chosen=chosen,
        options=options,
        query=query,
        limit=LIST_LIMIT,
        message=notices.shown(page.query.get("message")),
        **_freeze_context(page),
    )


def _judgement_view(page: Page, d: JudgementDetail) -> dict[str, Any]:
    j = d.judgement
    runs = [
        {
            "ordinal": r.ordinal,
            "name": r.name,
            "kind": "sample" if r.name.split("/")[0] == "sample" else "secret",
            "verdict": r.verdict,
            "css": verdict_class(r.verdict),
            "time": r.run_time,
            "wall_time_s": r.wall_time_s,
            "memory_kib": r.memory_kib,
            "score": r.score,
            "message": r.message,
            "transcript": r.transcript,
            "link": page.url(run_pages.staff_links(j.id, r.ordinal)),  # what it printed (issue 47)
        }
        for r in d.runs
    ]
    return {
        "id": judgement_id(j.submission_id, j.ordinal),
        "ordinal": j.ordinal,  # the submission's first judgement, its second, ...
        "current": j.current,
        "held": j.held,  # a rejudging set's, not applied (issue 47)
        "rejudging_id": j.rejudging_id,
        "verdict": j.verdict,
        "css": verdict_class(j.verdict),
        "score": j.score,
        "max_score": j.max_score,
        "started": format_time(j.start_s),
        "ended": None if j.end_s is None else format_time(j.end_s),
        "max_run_time": j.max_run_time,
        "memory_kib": j.memory_kib,
        "metric": None if j.metric is None else f"{j.metric:g} {j.metric_name or ''}",
        "compile_message": j.compile_message,
        "package_hash": j.package_hash,
        "runs": runs,
    }


def _failing(page: Page, detail: results.StaffDetail) -> dict[str, Any] | None:
    """The current judgement's first test not accepted, with what it printed (issue 47); None: none."""
    current = next((d for d in detail.judgements if d.judgement.current and d.judgement.done), None)
    failed = next((r for r in current.runs if r.verdict != Verdict.AC.value), None) if current else None
    if current is None or failed is None or page.query.get("fragment"):
        return None
    found = run_output.find_run(page.server, page.sight, ordinal=failed.ordinal, judgement_id=current.judgement.id)
    out = run_output.run_output(page.server, page.sight, found)
    return run_pages.run_view(out, page.url(run_pages.staff_links(current.judgement.id, failed.ordinal)))


def submission_detail(page: Page) -> Response:
    page.need_staff()
    what = page.params["id"]
    detail = results.staff_detail(page.server, page.sight, number_id(what), what=what)
    current = [d.judgement.id for d in detail.judgements if d.judgement.current]
    reviews = moderation.reviews_of(page.server, page.viewer, current)
    review = reviews.get(current[0]) if current else None
    context: dict[str, Any] = {
        "review": None if review is None else {**review.__dict__, "time": format_time(review.time_s)},
        "row": submission_row(page, detail.view),
        "judgements": [_judgement_view(page, d) for d in detail.judgements],
        "failing": _failing(page, detail),
        "previous": compare.previous_try(page.server, page.sight, detail.view.submission.id),  # issue 47
        "files": detail.files,
        "message": notices.shown(page.query.get("message")),
    }
    if page.query.get("fragment"):
        return page.render("serve/_admin_detail.html", **context)
    context["cx"] = explain_pages.on_page(
        page, detail.view.submission, detail.view.judgement
    )  # issue 46: its own live part
    return page.render("serve/admin_submission.html", **context)


def _started_message(started: rejudgings.Started, auto_apply: bool) -> str:
    template = notices.REJUDGING_AUTO if auto_apply else notices.REJUDGING
    return notices.notice(template, id=started.rejudging_id, n=len(started.queued))


def rejudge_submission(page: Page) -> Response:
    """A rejudging set of the submission (issue 47), to the set's page: held for review unless the form's
    ``auto_apply`` box was ticked."""
    page.need_staff()
    what = page.params["id"]
    page.confirm("rejudge-submission", back=page.url(f"/admin/submissions/{quote(what, safe='')}"), id=what)
    auto = page.form.get("auto_apply") == "1"
    started = rejudgings.start(
        page.server, page.viewer, "submission", what, page.now, auto_apply=auto, id_of=number_id(what)
    )
    message = urlencode({"message": _started_message(started, auto)})
    raise Redirect(page.url(f"/admin/previews/{started.rejudging_id}?{message}"))


def rejudge_problem(page: Page) -> Response:
    page.need_staff()
    page.confirm(
        "rejudge-problem", back=page.url("/admin?" + urlencode({"problem_id": page.params["id"]})), id=page.params["id"]
    )
    auto = page.form.get("auto_apply") == "1"
    started = rejudgings.start(page.server, page.viewer, "problem", page.params["id"], page.now, auto_apply=auto)
    message = urlencode({"message": _started_message(started, auto)})
    raise Redirect(page.url(f"/admin/previews/{started.rejudging_id}?{message}"))


def _confirmed(page: Page, what: str) -> None:
    """A finalize or a thaw is done only from its confirmation page (its form's ``confirm``; issue 43): any
    other form (an old page, a stray click) is sent there, and nothing happens. Judges: 403."""
    if page.viewer.role is not Role.ADMIN:
        raise Refused(403, f"only admins {what} (judges see the state)")
    if page.form.get("confirm") != "yes":
        raise Redirect(page.url(f"/admin/{what}?" + urlencode({"message": notices.CONFIRM})))


def confirm_page(page: Page) -> Response:
    """What a finalize or a thaw does, and the button that does it (admins): ``/admin/finalize``, ``/admin/thaw``."""
    page.need_staff()
    what = page.params["_path"].rsplit("/", 1)[-1]
    if page.viewer.role is not Role.ADMIN:
        raise Refused(403, f"only admins {what} (judges see the state on /admin)")
    phase, info = page.sight.phase, page.server.contest.info
    context = _freeze_context(page)
    if what == "finalize":
        refusal = finalize.refusal(page.server, page.now)
    else:
        refusal = control.thaw_refusal(page.server)
    return page.render(
        "serve/admin_confirm.html",
        what=what,
        action=page.url(f"/admin/{what}"),
        refusal=refusal,
        at_end=info.end_s is not None and page.now < info.end_s,
        board_frozen=phase.board_frozen(page.now),
        message=notices.shown(page.query.get("message")),
        **context,
    )


def thaw(page: Page) -> Response:
    """The API's thaw (PATCH scoreboard_thaw_time) at now, or at the contest's end if that is later."""
    page.need_staff()
    _confirmed(page, "thaw")
    info = page.server.contest.info
    at = max(page.now, info.end_s or page.now)
    body = {"id": info.id, "scoreboard_thaw_time": format_time(at)}
    control.patch_contest(page.server, page.viewer, lambda: body, page.now)
    message = notices.THAWED if at <= page.now else notices.notice(notices.THAWS_AT, time=format_time(at))
    if at <= page.now and page.server.timeline.phase.end_of_updates_s is not None:
        message = notices.THAWED_FINAL
    raise Redirect(page.url("/admin?" + urlencode({"message": message})))


def freeze(page: Page) -> Response:
    """Freeze the scoreboard now (admins), e.g. when the contest.yaml has no freeze or a later one."""
    page.need_staff()
    try:
        control.freeze_now(page.server, page.viewer, page.now)
    except Refused as exc:
        if exc.status != 409:  # not an admin: the API's answer
            raise
        message = notices.notice(notices.NOT_FROZEN, reason=exc.message)
        raise Redirect(page.url("/admin?" + urlencode({"message": message}))) from None
    raise Redirect(page.url("/admin?" + urlencode({"message": notices.FROZEN})))


def finalize_results(page: Page) -> Response:
    """Finalize the results (admins): refused, with the reason shown, before the end or while anything waits."""
    page.need_staff()
    _confirmed(page, "finalize")
    try:
        finalize.finalize(page.server, page.viewer)
    except Refused as exc:
        if exc.status != 409:
            raise
        message = notices.notice(notices.NOT_FINALIZED, reason=exc.message)
        raise Redirect(page.url("/admin?" + urlencode({"message": message}))) from None
    frozen = page.server.timeline.phase.board_frozen(page.server.clock.now())
    raise Redirect(
        page.url("/admin?" + urlencode({"message": notices.FINALIZED_FROZEN if frozen else notices.FINALIZED}))
    )


def unfinalize_results(page: Page) -> Response:
    page.need_staff()
    finalize.unfinalize(page.server, page.viewer, page.now)
    raise Redirect(page.url("/admin?" + urlencode({"message": notices.UNFINALIZED})))


def download_results(page: Page) -> Response:
    page.need_staff()
    doc = archive.results_document(page.server, page.sight)
    return Response(
        json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
        media_type="application/json",
        headers={"Content-Disposition": 'attachment; filename="results.json"'},
    )


def download_package(page: Page) -> Response:
    page.need_staff()
    data = archive.contest_package(page.server, page.sight)
    name = f"{page.contest_id}-contest-package.zip"
    return Response(
        data, media_type="application/zip", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


ADMIN_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin", all_submissions),
    PageSpec("GET", "/admin/submissions/{id}", submission_detail),
    PageSpec("POST", "/admin/submissions/{id}/rejudge", rejudge_submission),
    PageSpec("POST", "/admin/problems/{id}/rejudge", rejudge_problem),
    PageSpec("GET", "/admin/thaw", confirm_page),
    PageSpec("POST", "/admin/thaw", thaw),
    PageSpec("POST", "/admin/freeze", freeze),
    PageSpec("GET", "/admin/finalize", confirm_page),
    PageSpec("POST", "/admin/finalize", finalize_results),
    PageSpec("POST", "/admin/unfinalize", unfinalize_results),
    PageSpec("GET", "/admin/results.json", download_results),
    PageSpec("GET", "/admin/contest-package.zip", download_package),
)
