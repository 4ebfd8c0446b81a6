"""Why a run failed (issue 47): one run's page (what each pass printed, how it ended, the validator's
messages, the test's input and answer, the diff of the output against the answer) and the downloads of
each whole: the jury's (``/admin/judgements/<judgement>/runs/<n>``, any judgement, a rejudging set's held
ones too) and a team's (``/submissions/<id>/runs/<n>``: its submission's current judgement, the runs
contest.yaml's ``team_outputs`` shows it). Both ask services/judging/run_output.py, which asks
visibility.py."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from judge.serve.http.files import download
from judge.serve.http.ids import number_id
from judge.serve.http.pages.rows import verdict_class
from judge.serve.http.pages.web import Page, PageSpec
from judge.serve.model.apijson import judgement_id
from judge.serve.services.judging import run_output
from judge.serve.services.judging.run_output import PassOutput, RunOutput, Shown


def _file(shown: Shown | None) -> dict[str, Any] | None:
    if shown is None:
        return None
    return {"text": shown.text, "size": shown.size, "shown": len(shown.head), "cut": shown.cut}


def _ended(p: PassOutput) -> str:
    d = p.detail
    if d.signal is not None:
        return f"killed by signal {d.signal}"
    if d.exit_code is None:
        return "did not run to its end"
    return f"exit status {d.exit_code}"


def _pass_view(p: PassOutput, out: RunOutput) -> dict[str, Any]:
    d = p.detail
    return {
        "n": d.pass_n,
        "verdict": d.verdict,
        "css": verdict_class(d.verdict),
        "ended": _ended(p),
        "time_s": d.time_s,
        "wall_time_s": d.wall_time_s,
        "memory_kib": d.memory_kib,
        "kept": p.kept,
        "output": _file(p.output),
        "output_bytes": d.output_bytes,
        "stderr": _file(p.stderr),
        "input": _file(p.input),
        "judge_message": d.judge_message if out.messages else "",
        "team_message": d.team_message,
        "diff": p.diff,
    }


def run_view(out: RunOutput, links: str) -> dict[str, Any]:
    """What ``_run_output.html`` draws of a run; ``links``: the URL its downloads hang under."""
    r, j = out.run, out.judgement
    return {
        "run": {
            "ordinal": r.ordinal,
            "name": r.name,
            "verdict": r.verdict if out.messages else r.judgement_type,
            "css": verdict_class(r.verdict if out.messages else r.judgement_type),
            "time": r.run_time,
            "memory_kib": r.memory_kib,
            "message": r.message if out.messages else "",
            "transcript": r.transcript,
        },
        "judgement": judgement_id(j.submission_id, j.ordinal) if not j.held else f"held {j.id}",
        "submission_id": out.submission.id,
        "interactive": out.interactive,
        "passes": [_pass_view(p, out) for p in out.passes],
        "input": _file(out.input),
        "answer": _file(out.answer),
        "links": links,
        "staff": out.messages,
    }


def staff_links(judgement_db_id: int, ordinal: int) -> str:
    return f"/admin/judgements/{judgement_db_id}/runs/{ordinal}"


def _found(page: Page) -> run_output.FoundRun:
    ordinal = number_id(page.params["n"])
    if "judgement" in page.params:
        page.need_staff()
        return run_output.find_run(
            page.server, page.sight, ordinal=ordinal, judgement_id=number_id(page.params["judgement"])
        )
    page.need_team()
    return run_output.find_run(page.server, page.sight, ordinal=ordinal, submission_id=number_id(page.params["id"]))


def _links(page: Page, found: run_output.FoundRun) -> str:
    if "judgement" in page.params:
        return page.url(staff_links(found.judgement.id, found.run.ordinal))
    return page.url(f"/submissions/{found.submission.id}/runs/{found.run.ordinal}")


def run_page(page: Page) -> Response:
    found = _found(page)
    out = run_output.run_output(page.server, page.sight, found)
    back = (
        page.url(f"/admin/submissions/{found.submission.id}")
        if page.viewer.staff
        else page.url(f"/submissions/{found.submission.id}")
    )
    return page.render("serve/run_output.html", out=run_view(out, _links(page, found)), back=back)


def run_download(page: Page) -> Response:
    found = _found(page)
    pass_n = number_id(page.query.get("pass", "1")) or 1
    name, data = run_output.run_file(page.server, page.sight, found, page.params["file"], pass_n)
    return download(data, "application/octet-stream", name)


RUN_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/judgements/{judgement}/runs/{n}", run_page),
    PageSpec("GET", "/admin/judgements/{judgement}/runs/{n}/{file}", run_download),
    PageSpec("GET", "/submissions/{id}/runs/{n}", run_page),
    PageSpec("GET", "/submissions/{id}/runs/{n}/{file}", run_download),
)
