"""The pages of the public and of the teams: login/logout, problems and statements (sample files
downloadable), submit, "my submissions" (live), a submission's feedback, the live scoreboard.

What a team sees of its own submission (visibility.test_detail decides; as Kattis and DOMjudge): its
source, the compiler's message, and per test: for the **sample** tests everything (verdict, time,
memory, the validator's message, the sample's input and answer), for the **secret** tests the verdict and
time only (no name, no message: they would leak the data). Nothing of other teams' submissions beyond the
scoreboard (404). During the freeze a team still sees its own results, as in the API.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markupsafe import Markup
from starlette.background import BackgroundTask
from starlette.responses import Response

from judge.judging.jobs import SourceFile
from judge.scoreboard.passfail import Standings
from judge.scoreboard.passfailview import cell_view, minutes, row_totals
from judge.scoreboard.statements import render_statement, statement_assets
from judge.serve import visibility
from judge.serve.http.files import download
from judge.serve.http.ids import number_id
from judge.serve.http.pages import course_pages, explain_pages
from judge.serve.http.pages.rows import newest_first, submission_row, verdict_class
from judge.serve.http.pages.sessions import basic_header
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.apijson import PDF, attachment_mime
from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused
from judge.serve.model.records import SubmissionRecord
from judge.serve.model.upload import SubmissionFiles, SubmissionRequest
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services import documents
from judge.serve.services.board import board as boards
from judge.serve.services.judging import results, submissions
from judge.serve.services.judging.course_submit import submit_status
from judge.serve.services.lifecycle import awards
from judge.serve.services.people import sessions
from judge.serve.services.people.accounts import AuthError
from judge.serve.services.problems import config
from judge.serve.services.problems.statements import problem_doc
from judge.serve.visibility import Detail

STATIC = Path(__file__).resolve().parent.parent / "static"  # judge/serve/http/static/
STATIC_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}


# ------------------------------------------------------------------------------------------------ login


def landing(viewer: Viewer) -> str:
    """The contest page a viewer starts from (the contest's home, and after the login): the jury's
    submissions, a team's own, a balloon runner's balloons (issue 47), the public's board."""
    if viewer.role is Role.BALLOON:
        return "/admin/balloons"
    return "/admin" if viewer.staff else "/submissions" if viewer.role is Role.TEAM else "/scoreboard"


def home(page: Page) -> Response:
    raise Redirect(page.url(landing(page.viewer)))


def login_form(page: Page) -> Response:
    return page.render("serve/login.html", message=None, username="")


def login(page: Page) -> Response:
    username = page.form.get("username", "")
    password = page.form.get("password", "")
    try:
        viewer = page.server.auth.authenticate(basic_header(username, password), page.address)
    except AuthError as exc:
        if exc.retry_after_s is not None:
            page.headers["Retry-After"] = str(max(1, int(exc.retry_after_s + 0.999)))
        return page.render("serve/login.html", status=exc.status, message=exc.message, username=username)
    page.set_cookie = sessions.log_in(page.server.people, viewer, page.now)  # a new session: no fixation
    raise Redirect(page.url(landing(viewer)))  # the contest's page (in a site: the site's engineer decides)


def logout(page: Page) -> Response:
    """The session ends on the server at once (a copy of the cookie is worth nothing after); a new, public
    cookie replaces it."""
    sessions.log_out(page.server.people, page.cookie)
    page.set_cookie = sessions.new_cookie()
    raise Redirect(page.url("/scoreboard"))


# ------------------------------------------------------------------------------------------------ problems


def _problem_docs(page: Page) -> list[dict[str, Any]]:
    return documents.problems(page.server, page.sight)


def problem_list(page: Page) -> Response:
    """The problems; before the start, the page polls its list (``?fragment=1``) until they appear."""
    if page.query.get("fragment"):
        return page.render("serve/_problem_list.html", problems=_problem_docs(page))
    return page.render("serve/problems.html", problems=_problem_docs(page))


def problem_redirect(page: Page) -> Response:
    raise Redirect(page.url(f"/problems/{page.params['id']}/"))


def problem_page(page: Page) -> Response:
    cp = config.problem(page.server, page.sight, page.params["id"])
    html = Markup(render_statement(cp.problem.statement, cp.problem.constants))  # noqa: S704 - the package's own statement
    samples = list(enumerate(config.samples(cp), start=1))
    info, limit = page.server.contest.info, cp.problem.limits.time_s
    factors = [
        (lang.name, info.time_factor(lang.id), round(limit * info.time_factor(lang.id), 3))
        for lang in page.server.languages.values()
        if info.time_factor(lang.id) != 1.0
    ]
    problem = problem_doc(cp, page.contest_id, page.server.statements)
    files = page.server.statements.files(cp.problem)
    return page.render(
        "serve/problem.html",
        problem=problem,
        statement=html,
        samples=samples,
        time_factors=factors,
        pdf=files.pdf is not None,
        attachments=[(f.name, quote(f.name), f.stat().st_size) for f in files.attachments],
    )


def problem_asset(page: Page) -> Response:
    cp = config.problem(page.server, page.sight, page.params["id"])
    for asset in statement_assets(cp.problem.statement):
        if asset.name == page.params["name"]:
            return Response(asset.read_bytes(), media_type=_image_type(asset))
    raise Refused(404, f"no file {page.params['name']!r} beside the statement")


def _image_type(path: Path) -> str:
    return {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif"}.get(
        path.suffix.lower(), "application/octet-stream"
    )


def sample_file(page: Page) -> Response:
    name, data = config.sample_file(page.server, page.sight, page.params["id"], page.params["file"])
    return Response(
        data, media_type="text/plain; charset=utf-8", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


def samples_zip(page: Page) -> Response:
    """Every sample of the problem in one zip (``1.in``, ``1.ans``, ...), as DOMjudge's team page offers."""
    name, data = config.samples_zip(page.server, page.sight, page.params["id"])
    return download(data, "application/zip", name)


def statement_pdf(page: Page) -> Response:
    """The PDF statement (the package's, or typeset: services/problems/statements.py); 404 when there is none (yet)."""
    cp, files = config.problem_files(page.server, page.sight, page.params["id"])
    if files.pdf is None:
        raise Refused(404, f"problem {cp.id!r} has no PDF statement")
    return download(files.pdf.read_bytes(), PDF, f"{cp.label}-{cp.id}.pdf", inline=True)


def attachment(page: Page) -> Response:
    name, data = config.attachment_file(page.server, page.sight, page.params["id"], page.params["name"])
    return download(data, attachment_mime(name), name)


# ------------------------------------------------------------------------------------------------ submitting


def _submit_context(page: Page) -> dict[str, Any]:
    allows = page.server.contest.info.allows_language  # issue 47: a language the jury forbade is not offered
    langs = [
        {"id": lang.id, "name": lang.name, "extensions": " ".join(lang.extensions)}
        for lang in page.server.languages.values()
        if allows(lang.id)
    ]
    team = page.viewer.team_id
    course = None if team is None else submit_status(page.server, team, page.now)  # a course's (issue 45)
    problems = _problem_docs(page)
    labels = {p["id"]: f"{p['label']}: {p['name']}" for p in problems}
    return {"problems": problems, "languages": langs, "course": course, "labels": labels}


def submit_form(page: Page) -> Response:
    page.need_team()
    chosen = {"problem": page.query.get("problem", ""), "language": "", "code": "", "filename": ""}
    return page.render("serve/submit.html", message=None, chosen=chosen, **_submit_context(page))


def _language_of(page: Page, filename: str) -> str:
    suffix = Path(filename).suffix.lower()
    for lang in page.server.languages.values():
        if suffix in lang.extensions:
            return lang.id
    known = ", ".join(dict.fromkeys(e for lang in page.server.languages.values() for e in lang.extensions))
    raise Refused(400, f"no language has the extension {suffix or '(none)'!r} ({known}): choose the language")


def _safe_name(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not base or base.startswith("."):
        raise Refused(400, f"a bad file name {name!r}")
    return base


def _form_file(page: Page, chosen: dict[str, str]) -> tuple[str, bytes]:
    """(file name, bytes) of the form: the uploaded file, or the pasted code."""
    upload = page.files.get("file")
    if upload is not None and upload.data:
        return _safe_name(upload.filename), upload.data
    if not chosen["code"].strip():
        raise Refused(400, "choose a file or paste your code")
    if not chosen["filename"] and not chosen["language"]:
        raise Refused(400, "pasted code needs a language (or a file name with its extension)")
    name = chosen["filename"]
    if not name:
        lang = page.server.languages.get(chosen["language"])
        if lang is None:
            raise Refused(400, f"unknown language {chosen['language']!r}")
        name = lang.default_file_name
    return _safe_name(name), chosen["code"].replace("\r\n", "\n").encode("utf-8")


def submit(page: Page) -> Response:
    """The same submit service as the API's (the same checks, limits and refusals), with the form's file."""
    page.need_team()
    chosen = {k: page.form.get(k, "") for k in ("problem", "language", "code", "filename")}

    def request() -> SubmissionRequest:
        name, data = _form_file(page, chosen)
        language = chosen["language"] or _language_of(page, name)
        return SubmissionRequest(chosen["problem"], language, SubmissionFiles(files=(SourceFile(name, data),)))

    try:
        sub = submissions.submit(page.server, page.viewer, request, page.now)
    except Refused as exc:
        page.headers.update(exc.headers or {})
        return page.render(
            "serve/submit.html", status=exc.status, message=exc.message, chosen=chosen, **_submit_context(page)
        )
    raise Redirect(page.url(f"/submissions?submitted={sub.id}"))


# ------------------------------------------------------------------------------------------------ my submissions


def my_submissions(page: Page) -> Response:
    page.need_team()
    views = submissions.submission_views(page.server, page.sight, team_id=page.viewer.team_id)
    rows = newest_first(page, views)
    course = course_pages.is_course(page)
    if course:  # what each counts after the late penalty (issue 45)
        course_pages.add_credits(page, views, rows)
    if page.query.get("fragment"):
        return page.render("serve/_my_rows.html", rows=rows, course=course)
    submitted = page.query.get("submitted")  # shown only for one of the team's own submissions (issue 27)
    return page.render(
        "serve/submissions.html",
        rows=rows,
        submitted=submitted if submitted in {r["id"] for r in rows} else None,
        course=course,
    )


def _test_row(page: Page, t: results.TestView, limit_s: float | None) -> dict[str, Any]:
    """One test's row; ``limit_s``: a TLE's time is shown as more than this limit (None: as measured)."""
    r, full = t.run, t.detail is Detail.FULL
    over = limit_s is not None and r.judgement_type == "TLE"
    return {
        "ordinal": r.ordinal,
        "kind": "sample" if r.name.split("/")[0] == "sample" else "secret",
        "name": r.name if full else None,
        "verdict": r.judgement_type,
        "css": verdict_class(r.judgement_type),
        "time": f"> {limit_s:g}" if over else r.run_time,
        "memory_kib": r.memory_kib if full else None,
        "message": r.message if full else None,
        "transcript": r.transcript if full else None,
        # what it printed, the diff against the answer (issue 47: contest.yaml's team_outputs)
        "output_link": page.url(f"/submissions/{r.submission_id}/runs/{r.ordinal}") if t.output else None,
    }


def _time_limit(page: Page, sub: SubmissionRecord) -> float | None:
    """The time limit a submission ran under (the problem's, times its language's factor), as the team is
    shown a TLE's time; None: the viewer sees the time measured (visibility.sees_measured_time)."""
    cp = page.server.contest.problem(sub.problem_id)
    if cp is None or visibility.sees_measured_time(page.sight):
        return None
    return round(cp.problem.limits.time_s * page.server.contest.info.time_factor(sub.language_id), 3)


def domjudge_link(page: Page) -> Response:
    """``/team/submission/<id>``: where DOMjudge's ``submit`` client sends a team after submitting."""
    raise Redirect(page.url(f"/submissions/{quote(page.params['id'], safe='')}"))


def feedback(page: Page) -> Response:
    """A team's own submission (docs/serve.md: samples in full, secret tests verdict only)."""
    page.need_login()
    if page.viewer.staff:
        raise Redirect(page.url(f"/admin/submissions/{page.params['id']}"))
    page.need_team()
    what = page.params["id"]
    fb = results.team_feedback(page.server, page.sight, number_id(what), what=what)
    row = submission_row(page, fb.view)
    row["withheld"] = course_pages.withheld_words(page, fb.view)  # a course's feedback rules (issue 45)
    context: dict[str, Any] = {
        "row": row,
        "runs": [_test_row(page, t, _time_limit(page, fb.view.submission)) for t in fb.tests],
        "compile_message": fb.judgement.compile_message if fb.judgement is not None else None,
        "files": fb.files,
        "credit": course_pages.submission_credit(page, fb.view),  # a course's late penalty (issue 45)
    }
    if page.query.get("fragment"):
        return page.render("serve/_feedback.html", **context)
    context["cx"] = explain_pages.on_page(page, fb.view.submission, fb.judgement)  # issue 46: its own live part
    return page.render("serve/feedback.html", **context)


# ------------------------------------------------------------------------------------------------ scoreboard


def _team_cells(contest: Contest, orgs: Mapping[str, Mapping[str, Any]], team_id: str) -> dict[str, Any]:
    """A row's team: its name and organization (``orgs``: the contest's, by id), as the board shows them."""
    team = contest.team(team_id)
    org = orgs.get(team.organization_id) if team is not None and team.organization_id else None
    return {
        "team_id": team_id,
        "team": (team.display_name or team.name) if team else team_id,
        "organization": org.get("formal_name", org["name"]) if org else None,
    }


def _problem_heads(page: Page, shown: bool) -> list[dict[str, Any]]:
    """The problem columns: none before the problems are public (their names are secret until the start)."""
    if not shown:
        return []
    return [
        {"id": p.id, "label": p.label, "name": p.name, "max_score": p.problem.secret.max_score, "rgb": p.rgb}
        for p in page.server.contest.problems
    ]


def _organizations(contest: Contest) -> dict[str, Mapping[str, Any]]:
    return {o["id"]: o for o in contest.organizations}


def _score_rows(page: Page, board: dict[str, Any], medals: Mapping[str, str]) -> list[dict[str, Any]]:
    contest = page.server.contest
    max_by_id = {p.id: p.problem.secret.max_score for p in contest.problems}
    orgs = _organizations(contest)
    rows = []
    for r in board["rows"]:
        cells = []
        for c in r.get("problems", []):
            full = c["score"] >= max_by_id[c["problem_id"]] - 1e-9
            css = "ac" if full else "partial" if c["score"] > 0 else "wa" if c["num_judged"] else "none"
            cells.append({**c, "css": css})
        rows.append(
            {
                "rank": r["rank"],
                **_team_cells(contest, orgs, r["team_id"]),
                "medal": medals.get(r["team_id"]),
                "score": r["score"]["score"],
                "cells": cells,
            }
        )
    return rows


def _passfail_rows(page: Page, st: Standings, shown: bool, medals: Mapping[str, str]) -> list[dict[str, Any]]:
    contest = page.server.contest
    penalty, orgs = contest.info.penalty_s, _organizations(contest)
    return [
        {
            **row_totals(row),
            **_team_cells(contest, orgs, row.team_id),
            "medal": medals.get(row.team_id),
            "cells": [cell_view(c, penalty) for c in row.cells] if shown else [],
        }
        for row in st.rows
    ]


def board_view(page: Page) -> dict[str, Any]:
    """The board's page: its table is rendered once per ranked board (and whether problems are shown), for
    every viewer who gets that board (it holds nothing of the viewer's: issue 32)."""
    group = page.query.get("group") or None  # the group filter: that group's board (the API's ?group_id=)
    board, ranked = boards.ranked(page.server, page.sight, group)
    shown = visibility.board_view(page.sight).show_problems
    final = visibility.shows_final_results(page.sight)  # the medals, on the final board only
    table = page.server.boards.item(
        ranked, ("table.html", shown, final), lambda: Markup(_board_table(page, board, ranked, shown, final))
    )
    return _board_context(page, board, table, group)


def _board_context(page: Page, board: dict[str, Any], table: Markup, group: str | None) -> dict[str, Any]:
    live = page.viewer.staff and page.sight.phase.board_frozen(page.now)
    groups = [(str(g["id"]), str(g["name"])) for g in documents.groups(page.server, page.sight)]
    return {"board": board, "board_table": table, "staff_live": live, "groups": groups, "group": group}


def _board_table(page: Page, board: dict[str, Any], ranked: boards.Ranked, shown: bool, final: bool) -> str:
    standings = ranked.standings
    medals = awards.medals(page.server, standings) if final else {}
    if standings is not None:
        rows = _passfail_rows(page, standings, shown, medals)
    else:
        rows = _score_rows(page, board, medals)
    return page.env.get_template("serve/_board_table.html").render(
        problems=_problem_heads(page, shown),
        rows=rows,
        pass_fail=standings is not None,
        penalty_minutes=minutes(page.server.contest.info.penalty_s),
    )


def scoreboard(page: Page) -> Response:
    if course_pages.is_course(page):  # a course's board (issue 45)
        return course_pages.board(page)
    return _board_page(page, board_view(page))


def scoreboard_made(page: Page) -> Response | None:
    """The board page when its board and table are made (None: the request thread makes them), on the event
    loop (PageSpec.on_loop): no storage, no ranking, no drawing of the table. When they are behind, a thread
    makes the next after the answer is sent (one at a time: BoardCache.claim). The public's page, or anyone's
    fragment (the page live.js polls): a logged-in viewer's whole page shows the header's notices, which are
    read from storage."""
    if page.viewer.role is not Role.PUBLIC and not page.query.get("fragment") or course_pages.is_course(page):
        return None
    group = page.query.get("group") or None
    found = boards.made(page.server, page.sight, group)
    kind = ("table.html", visibility.board_view(page.sight).show_problems, visibility.shows_final_results(page.sight))
    table = None if found is None else page.server.boards.ready(found.board, kind)
    if found is None or table is None:
        return None
    response = _board_page(page, _board_context(page, found.doc, table[0], group))
    claim = boards.claim_next(page.server, found, kind, table[1])
    if claim is not None:  # a thread makes the next, after this answer
        response.background = BackgroundTask(boards.remake, page.server, claim, lambda: board_view(page))
    return response


def _board_page(page: Page, view: dict[str, Any]) -> Response:
    if page.query.get("fragment"):
        return page.render("serve/_board.html", **view)
    return page.render("serve/scoreboard.html", **view)


def favicon(page: Page) -> Response:
    """``/favicon.ico``, which browsers ask of every site (the pages also name ``/static/favicon.svg``)."""
    page.params = {**page.params, "name": "favicon.ico"}
    return static(page)


def static(page: Page) -> Response:
    name = page.params["name"]
    path = STATIC / name
    if "/" in name or path.suffix not in STATIC_TYPES or not path.is_file():
        raise Refused(404, f"no file {name!r}")
    data = path.read_bytes()
    # cached for 5 minutes, then revalidated: the same bytes are a 304 (no body) by their ETag
    headers = {"Cache-Control": "public, max-age=300", "ETag": f'"{hashlib.sha256(data).hexdigest()[:32]}"'}
    if page.if_none_match is not None and headers["ETag"] in {t.strip() for t in page.if_none_match.split(",")}:
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=STATIC_TYPES[path.suffix], headers=headers)


PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/", home, runner=True),
    # the site-level pages: at the top, never under a contest's base path (web.PageSpec.site)
    PageSpec("GET", "/login", login_form, site=True),
    PageSpec("POST", "/login", login, site=True),
    PageSpec("POST", "/logout", logout, site=True),
    PageSpec("GET", "/static/{name}", static, site=True),
    PageSpec("GET", "/favicon.ico", favicon, site=True),
    PageSpec("GET", "/problems", problem_list),
    PageSpec("GET", "/problems/{id}", problem_redirect),
    PageSpec("GET", "/problems/{id}/", problem_page),
    PageSpec("GET", "/problems/{id}/samples/{file}", sample_file),
    PageSpec("GET", "/problems/{id}/samples.zip", samples_zip),
    PageSpec("GET", "/problems/{id}/statement.pdf", statement_pdf),
    PageSpec("GET", "/problems/{id}/attachments/{name}", attachment),
    PageSpec("GET", "/problems/{id}/{name}", problem_asset),
    PageSpec("GET", "/submit", submit_form),
    PageSpec("POST", "/submit", submit, form_limit="submission"),
    PageSpec("GET", "/submissions", my_submissions),
    PageSpec("GET", "/submissions/{id}", feedback),
    PageSpec("GET", "/team/submission/{id}", domjudge_link),
    PageSpec("GET", "/scoreboard", scoreboard, on_loop=scoreboard_made),
)
