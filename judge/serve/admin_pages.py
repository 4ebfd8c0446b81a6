"""The organizers' pages (judges and admins): every submission with filters (live), one submission's
source and full per-test detail (every test's name, verdict, times, memory, score and validator or
interactor message; the compiler's message; every judgement, old ones too), rejudge (a submission or a
whole problem), the freeze's state and the thaw button (admins), and the downloads: ``results.json``
and the contest package archive. Rejudge and thaw go through the API's own handlers."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.judging.verdict import Verdict
from judge.serve import actions
from judge.serve.archive import contest_package, results_document
from judge.serve.context import number_id
from judge.serve.pages import source_files, submission_rows, test_kind, verdict_class
from judge.serve.times import format_time
from judge.serve.upload import Refused
from judge.serve.web import Page, PageSpec, Redirect

LIST_LIMIT = 500
FILTERS = ("team_id", "problem_id", "language_id", "verdict")


def _filters(page: Page) -> tuple[str, tuple[Any, ...], dict[str, str]]:
    chosen = {k: page.query.get(k, "") for k in FILTERS}
    where, args = ["1"], []
    for key, column in (("team_id", "s.team_id"), ("problem_id", "s.problem_id"), ("language_id", "s.language_id")):
        if chosen[key]:
            where.append(f"{column} = ?")
            args.append(chosen[key])
    verdict = chosen["verdict"]
    if verdict == "pending":
        where.append(
            "NOT EXISTS (SELECT 1 FROM judgements jj WHERE jj.submission_id = s.id AND jj.current = 1 "
            "AND jj.end_s IS NOT NULL)"
        )
    elif verdict:
        where.append(
            "EXISTS (SELECT 1 FROM judgements jj WHERE jj.submission_id = s.id AND jj.current = 1 AND jj.verdict = ?)"
        )
        args.append(verdict)
    return " AND ".join(where), tuple(args), chosen


def all_submissions(page: Page) -> Response:
    page.need_staff()
    where, args, chosen = _filters(page)
    rows = submission_rows(page, where, args, limit=LIST_LIMIT)
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
    timeline = page.server.timeline
    info = contest.info
    return page.render(
        "serve/admin.html",
        rows=rows,
        chosen=chosen,
        options=options,
        query=query,
        limit=LIST_LIMIT,
        message=page.query.get("message"),
        freeze_at=None if timeline.freeze_s is None else format_time(timeline.freeze_s),
        can_freeze=timeline.freeze_refusal(page.now) is None,
        end_at=None if info.end_s is None else format_time(info.end_s),
        thawed_at=None if timeline.thawed_at is None else format_time(timeline.thawed_at),
        thaw_at=None if timeline.thaw_s is None else format_time(timeline.thaw_s),
    )


def submission_detail(page: Page) -> Response:
    page.need_staff()
    sid = number_id(page.params["id"])
    rows = submission_rows(page, "s.id = ?", (sid,)) if sid is not None else []
    if not rows:
        raise Refused(404, f"no submission {page.params['id']!r}")
    conn = page.server.db.conn()
    judgements = []
    for j in conn.execute("SELECT * FROM judgements WHERE submission_id = ? ORDER BY id DESC", (sid,)).fetchall():
        runs = [
            {
                "ordinal": r["ordinal"],
                "name": r["name"],
                "kind": test_kind(r["name"]),
                "verdict": r["verdict"],
                "css": verdict_class(r["verdict"]),
                "time": r["run_time"],
                "wall_time_s": r["wall_time_s"],
                "memory_kib": r["memory_kib"],
                "score": r["score"],
                "message": r["message"],
                "transcript": r["transcript"],
            }
            for r in conn.execute("SELECT * FROM runs WHERE judgement_id = ? ORDER BY ordinal", (j["id"],))
        ]
        judgements.append(
            {
                "id": j["id"],
                "current": bool(j["current"]),
                "verdict": j["verdict"],
                "css": verdict_class(j["verdict"]),
                "score": j["score"],
                "max_score": j["max_score"],
                "started": format_time(j["start_s"]),
                "ended": None if j["end_s"] is None else format_time(j["end_s"]),
                "max_run_time": j["max_run_time"],
                "memory_kib": j["memory_kib"],
                "metric": None if j["metric"] is None else f"{j['metric']:g} {j['metric_name'] or ''}",
                "compile_message": j["compile_message"],
                "package_hash": j["package_hash"],
                "runs": runs,
            }
        )
    files = conn.execute("SELECT files FROM submissions WHERE id = ?", (sid,)).fetchone()["files"]
    context = {
        "row": rows[0],
        "judgements": judgements,
        "files": source_files(files),
        "message": page.query.get("message"),
    }
    if page.query.get("fragment"):
        return page.render("serve/_admin_detail.html", **context)
    return page.render("serve/admin_submission.html", **context)


def _answer_message(answer: Response, what: str) -> str:
    queued = json.loads(bytes(answer.body)).get("submission_ids", [])
    return f"{what}: {len(queued)} submission(s) queued" + ("" if queued else " (already being judged)")


def rejudge_submission(page: Page) -> Response:
    page.need_staff()
    answer = actions.rejudge_submission(page.api({"id": page.params["id"]}))
    message = _answer_message(answer, f"rejudge of submission {page.params['id']}")
    raise Redirect(f"/admin/submissions/{page.params['id']}?" + urlencode({"message": message}))


def rejudge_problem(page: Page) -> Response:
    page.need_staff()
    answer = actions.rejudge_problem(page.api({"id": page.params["id"]}))
    message = _answer_message(answer, f"rejudge of problem {page.params['id']}")
    raise Redirect("/admin?" + urlencode({"message": message}))


def thaw(page: Page) -> Response:
    """The API's thaw (PATCH scoreboard_thaw_time) at now, or at the contest's end if that is later."""
    page.need_staff()
    info = page.server.contest.info
    at = max(page.now, info.end_s or page.now)
    actions.patch_contest(page.api(body={"id": info.id, "scoreboard_thaw_time": format_time(at)}))
    message = "the scoreboard is thawed" if at <= page.now else f"the scoreboard thaws at {format_time(at)}"
    raise Redirect("/admin?" + urlencode({"message": message}))


def freeze(page: Page) -> Response:
    """Freeze the scoreboard now (admins), e.g. when the contest.yaml has no freeze or a later one."""
    page.need_staff()
    try:
        actions.freeze_now(page.api())
    except Refused as exc:
        if exc.status != 409:  # not an admin: the API's answer
            raise
        raise Redirect("/admin?" + urlencode({"message": f"not frozen: {exc.message}"})) from None
    raise Redirect("/admin?" + urlencode({"message": "the scoreboard is frozen"}))


def download_results(page: Page) -> Response:
    page.need_staff()
    doc = results_document(page.api())
    return Response(
        json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
        media_type="application/json",
        headers={"Content-Disposition": 'attachment; filename="results.json"'},
    )


def download_package(page: Page) -> Response:
    page.need_staff()
    data = contest_package(page.api())
    name = f"{page.contest_id}-contest-package.zip"
    return Response(
        data, media_type="application/zip", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


ADMIN_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin", all_submissions),
    PageSpec("GET", "/admin/submissions/{id}", submission_detail),
    PageSpec("POST", "/admin/submissions/{id}/rejudge", rejudge_submission),
    PageSpec("POST", "/admin/problems/{id}/rejudge", rejudge_problem),
    PageSpec("POST", "/admin/thaw", thaw),
    PageSpec("POST", "/admin/freeze", freeze),
    PageSpec("GET", "/admin/results.json", download_results),
    PageSpec("GET", "/admin/contest-package.zip", download_package),
)
