"""The pages of the public and of the teams: login/logout, problems and statements (sample files
downloadable), submit, "my submissions" (live), a submission's feedback, the live scoreboard.

What a team sees of its own submission (decision, as Kattis and DOMjudge): its source, the compiler's
message, and per test: for the **sample** tests everything (verdict, time, memory, the validator's
message, the sample's input and answer), for the **secret** tests the verdict and time only (no name, no
message: they would leak the data). Nothing of other teams' submissions beyond the scoreboard (404).
During the freeze a team still sees its own results, as in the API.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.responses import Response

from judge.scoreboard.statements import render_statement, statement_assets
from judge.serve import actions, api
from judge.serve.auth import AuthError, Role
from judge.serve.context import number_id
from judge.serve.records import (
    judgement_json,
    judgements_visible,
    runs_visible,
    select_judgements,
    select_runs,
    select_submissions,
    submission_json,
    submissions_visible,
)
from judge.serve.upload import Refused, pack, unpack
from judge.serve.web import Page, PageSpec, Redirect
from judge.serve.web_auth import basic_header

STATIC = Path(__file__).resolve().parent / "static"
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


# ------------------------------------------------------------------------------------------------ shared views


def verdict_class(verdict: str | None) -> str:
    return "none" if verdict is None else verdict.lower()


def submission_rows(page: Page, where: str = "1", args: tuple[Any, ...] = (), limit: int | None = None) -> list[dict]:
    """Submissions the viewer may see (``where`` on ``s``), newest first, each with its current judgement
    as the API shows it; staff also get our own verdict (PV, not WA)."""
    server, viewer = page.server, page.viewer
    info = server.contest.info
    conn = server.db.conn()
    subs = select_submissions(conn, submissions_visible(viewer, info), where, args)
    frozen_from = server.timeline.frozen_from(page.now)
    judged = {
        r["submission_id"]: r
        for r in select_judgements(
            conn, judgements_visible(viewer, info, frozen_from), f"{where} AND j.current = 1", args
        )
    }
    rows = []
    for s in reversed(subs[-limit:] if limit else subs):
        obj = submission_json(s, info)
        j = judged.get(s["id"])
        jobj = judgement_json(j, info) if j is not None else None
        verdict = None
        if j is not None and j["end_s"] is not None:
            verdict = j["verdict"] if viewer.staff else j["judgement_type"]
        cp = server.contest.problem(s["problem_id"])
        team = server.contest.team(s["team_id"])
        rows.append(
            {
                "id": obj["id"],
                "contest_time": obj["contest_time"].split(".")[0],
                "problem": cp.label if cp else s["problem_id"],
                "problem_id": s["problem_id"],
                "problem_name": cp.name if cp else s["problem_id"],
                "team_id": s["team_id"],
                "team": (team.display_name or team.name) if team else s["team_id"],
                "language": s["language_id"],
                "verdict": verdict,
                "css": verdict_class(verdict),
                "score": None if jobj is None else jobj.get("score"),
                "max_score": None if cp is None else cp.problem.secret.max_score,
                "hidden": j is None and frozen_from is not None and not viewer.staff,
            }
        )
    return rows


def visible_problem(page: Page, pid: str) -> Any:
    if all(p["id"] != pid for p in api.problems(page.api())):
        raise Refused(404, f"no problem {pid!r}")
    cp = page.server.contest.problem(pid)
    assert cp is not None
    return cp


def source_files(data: bytes) -> list[dict[str, str]]:
    files = unpack(bytes(data), 1 << 30)
    return [{"name": f.name, "text": f.data.decode("utf-8", errors="replace")} for f in files]


def test_kind(name: str) -> str:
    return "sample" if name.split("/")[0] == "sample" else "secret"


# ------------------------------------------------------------------------------------------------ login


def home(page: Page) -> Response:
    if page.viewer.staff:
        raise Redirect("/admin")
    if page.viewer.role is Role.TEAM:
        raise Redirect("/submissions")
    raise Redirect("/scoreboard")


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
    page.set_session = page.sessions.new(viewer.username, page.now)  # a new session id: no fixation
    raise Redirect("/admin" if viewer.staff else "/submissions" if viewer.role is Role.TEAM else "/scoreboard")


def logout(page: Page) -> Response:
    page.set_session = page.sessions.new(None, page.now)
    raise Redirect("/scoreboard")


# ------------------------------------------------------------------------------------------------ problems


def problem_list(page: Page) -> Response:
    problems = api.problems(page.api())
    return page.render("serve/problems.html", problems=problems)


def problem_redirect(page: Page) -> Response:
    raise Redirect(f"/problems/{page.params['id']}/")


def samples(cp: Any) -> list[Any]:
    return list(cp.problem.sample.all_tests()) if cp.problem.sample is not None else []


def problem_page(page: Page) -> Response:
    cp = visible_problem(page, page.params["id"])
    html = Markup(render_statement(cp.problem.statement))  # noqa: S704 - the package's own statement
    problem = next(p for p in api.problems(page.api()) if p["id"] == cp.id)
    return page.render(
        "serve/problem.html", problem=problem, statement=html, samples=list(enumerate(samples(cp), start=1))
    )


def problem_asset(page: Page) -> Response:
    cp = visible_problem(page, page.params["id"])
    for asset in statement_assets(cp.problem.statement):
        if asset.name == page.params["name"]:
            return Response(asset.read_bytes(), media_type=_image_type(asset))
    raise Refused(404, f"no file {page.params['name']!r} beside the statement")


def _image_type(path: Path) -> str:
    return {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif"}.get(
        path.suffix.lower(), "application/octet-stream"
    )


def sample_file(page: Page) -> Response:
    cp = visible_problem(page, page.params["id"])
    stem, _, ext = page.params["file"].partition(".")
    n = number_id(stem)
    tests = samples(cp)
    if n is None or not 1 <= n <= len(tests) or ext not in ("in", "ans"):
        raise Refused(404, f"no sample file {page.params['file']!r}")
    t = tests[n - 1]
    path = t.input_path if ext == "in" else t.answer_path
    data = path.read_bytes() if path is not None else b""
    name = f"{cp.id}-{n}.{ext}"
    return Response(
        data, media_type="text/plain; charset=utf-8", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


# ------------------------------------------------------------------------------------------------ submitting


def _submit_context(page: Page) -> dict[str, Any]:
    langs = [
        {"id": lang.id, "name": lang.name, "extensions": " ".join(lang.extensions)}
        for lang in page.server.languages.values()
    ]
    return {"problems": api.problems(page.api()), "languages": langs}


def submit_form(page: Page) -> Response:
    page.need_team()
    chosen = {"problem": page.query.get("problem", ""), "language": "", "code": "", "filename": ""}
    return page.render("serve/submit.html", message=None, chosen=chosen, **_submit_context(page))


def _language_of(page: Page, filename: str) -> str:
    suffix = Path(filename).suffix.lower()
    for lang in page.server.languages.values():
        if suffix in lang.extensions:
            return lang.id
    known = ", ".join(e for lang in page.server.languages.values() for e in lang.extensions)
    raise Refused(400, f"no language has the extension {suffix or '(none)'!r} ({known}): choose the language")


def _safe_name(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not base or base.startswith("."):
        raise Refused(400, f"a bad file name {name!r}")
    return base


def submit(page: Page) -> Response:
    """The API's submit (actions.submit: the same checks, limits and refusals) with the form's file."""
    page.need_team()
    form = page.form
    chosen = {k: form.get(k, "") for k in ("problem", "language", "code", "filename")}
    try:
        upload = page.files.get("file")
        if upload is not None and upload.data:
            name, data = _safe_name(upload.filename), upload.data
        elif chosen["code"].strip():
            if not chosen["filename"] and not chosen["language"]:
                raise Refused(400, "pasted code needs a language (or a file name with its extension)")
            name = chosen["filename"]
            if not name:
                lang = page.server.languages.get(chosen["language"])
                if lang is None:
                    raise Refused(400, f"unknown language {chosen['language']!r}")
                name = ("Main" if lang.id == "java" else "main") + lang.extensions[0]
            name, data = _safe_name(name), chosen["code"].replace("\r\n", "\n").encode("utf-8")
        else:
            raise Refused(400, "choose a file or paste your code")
        language = chosen["language"] or _language_of(page, name)
        body = {
            "problem_id": chosen["problem"],
            "language_id": language,
            "files": [{"data": base64.b64encode(pack({name: data})).decode()}],
        }
        answer = actions.submit(page.api(body=body))
    except Refused as exc:
        page.headers.update(exc.headers or {})
        return page.render(
            "serve/submit.html", status=exc.status, message=exc.message, chosen=chosen, **_submit_context(page)
        )
    sid = json.loads(bytes(answer.body))["id"]
    raise Redirect(f"/submissions?submitted={sid}")


# ------------------------------------------------------------------------------------------------ my submissions


def my_submissions(page: Page) -> Response:
    page.need_team()
    rows = submission_rows(page, "s.team_id = ?", (page.viewer.team_id,))
    if page.query.get("fragment"):
        return page.render("serve/_my_rows.html", rows=rows)
    return page.render("serve/submissions.html", rows=rows, submitted=page.query.get("submitted"))


def feedback(page: Page) -> Response:
    """A team's own submission (docs/serve.md: samples in full, secret tests verdict only)."""
    page.need_login()
    sid = number_id(page.params["id"])
    if page.viewer.staff:
        raise Redirect(f"/admin/submissions/{page.params['id']}")
    page.need_team()
    rows = submission_rows(page, "s.id = ? AND s.team_id = ?", (sid, page.viewer.team_id)) if sid else []
    if not rows:
        raise Refused(404, f"you have no submission {page.params['id']!r}")
    row = rows[0]
    server, info = page.server, page.server.contest.info
    conn = server.db.conn()
    judgement = select_judgements(
        conn,
        judgements_visible(page.viewer, info, server.timeline.frozen_from(page.now)),
        "s.id = ? AND j.current = 1",
        (sid,),
    )
    runs, compile_message = [], None
    if judgement and judgement[0]["end_s"] is not None:
        compile_message = judgement[0]["compile_message"]
        for r in select_runs(conn, runs_visible(page.viewer, info), "j.id = ?", (judgement[0]["id"],)):
            sample = test_kind(r["name"]) == "sample"
            runs.append(
                {
                    "ordinal": r["ordinal"],
                    "kind": "sample" if sample else "secret",
                    "name": r["name"] if sample else None,
                    "verdict": r["judgement_type"],
                    "css": verdict_class(r["judgement_type"]),
                    "time": r["run_time"],
                    "memory_kib": r["memory_kib"] if sample else None,
                    "message": r["message"] if sample else None,
                    "transcript": r["transcript"] if sample else None,
                }
            )
    files = conn.execute("SELECT files FROM submissions WHERE id = ?", (sid,)).fetchone()["files"]
    context = {"row": row, "runs": runs, "compile_message": compile_message, "files": source_files(files)}
    if page.query.get("fragment"):
        return page.render("serve/_feedback.html", **context)
    return page.render("serve/feedback.html", **context)


# ------------------------------------------------------------------------------------------------ scoreboard


def board_view(page: Page) -> dict[str, Any]:
    board = api.get_scoreboard(page.api())
    contest = page.server.contest
    problems = [
        {"id": p.id, "label": p.label, "name": p.name, "max_score": p.problem.secret.max_score}
        for p in contest.problems
    ]
    max_by_id = {p["id"]: p["max_score"] for p in problems}
    rows = []
    for r in board["rows"]:
        team = contest.team(r["team_id"])
        cells = []
        for c in r.get("problems", []):
            full = c["score"] >= max_by_id[c["problem_id"]] - 1e-9
            css = "ac" if full else "partial" if c["score"] > 0 else "wa" if c["num_judged"] else "none"
            cells.append({**c, "css": css})
        rows.append(
            {
                "rank": r["rank"],
                "team_id": r["team_id"],
                "team": (team.display_name or team.name) if team else r["team_id"],
                "score": r["score"]["score"],
                "cells": cells,
            }
        )
    live = page.viewer.staff and page.server.timeline.board_frozen(page.now)
    return {"board": board, "problems": problems, "rows": rows, "staff_live": live}


def scoreboard(page: Page) -> Response:
    view = board_view(page)
    if page.query.get("fragment"):
        return page.render("serve/_board.html", **view)
    return page.render("serve/scoreboard.html", **view)


def static(page: Page) -> Response:
    name = page.params["name"]
    path = STATIC / name
    if "/" in name or path.suffix not in STATIC_TYPES or not path.is_file():
        raise Refused(404, f"no file {name!r}")
    return Response(
        path.read_bytes(), media_type=STATIC_TYPES[path.suffix], headers={"Cache-Control": "public, max-age=300"}
    )


PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/", home),
    PageSpec("GET", "/login", login_form),
    PageSpec("POST", "/login", login),
    PageSpec("POST", "/logout", logout),
    PageSpec("GET", "/static/{name}", static),
    PageSpec("GET", "/problems", problem_list),
    PageSpec("GET", "/problems/{id}", problem_redirect),
    PageSpec("GET", "/problems/{id}/", problem_page),
    PageSpec("GET", "/problems/{id}/samples/{file}", sample_file),
    PageSpec("GET", "/problems/{id}/{name}", problem_asset),
    PageSpec("GET", "/submit", submit_form),
    PageSpec("POST", "/submit", submit, form_limit="submission"),
    PageSpec("GET", "/submissions", my_submissions),
    PageSpec("GET", "/submissions/{id}", feedback),
    PageSpec("GET", "/scoreboard", scoreboard),
)
