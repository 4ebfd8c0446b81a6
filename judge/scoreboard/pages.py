"""Template contexts of the scoreboard's pages. Pure: builds dictionaries of plain values, writes nothing.

Page locations (relative to the output folder): ``index.html``, ``problems/<id>/index.html`` and
``submissions/<contestant-slug>/<problem-id>.html``.
"""

from __future__ import annotations

from typing import Any

from judge.scoreboard.charts import Chart, bar_chart, score_bins, value_bins
from judge.scoreboard.explainview import board_explain, submission_explanation
from judge.scoreboard.fuzzview import board_fuzz, cell_fuzz, submission_fuzz
from judge.scoreboard.model import Board, BoardProblem, BoardRun, CellCredit, PassFailBoard, slug
from judge.scoreboard.passfailview import cell_view, minutes, row_totals
from judge.scoreboard.ranking import cell_class, counted_metric, problem_order, standings

VERDICT_NAMES = {
    "AC": "accepted",
    "WA": "wrong answer",
    "TLE": "time limit exceeded",
    "MLE": "memory limit exceeded",
    "RTE": "run-time error",
    "OLE": "output limit exceeded",
    "PV": "protocol violation",
    "CE": "compile error",
    "JE": "judge error (not the contestant's fault)",
}
TRANSCRIPT_LINES = 12


def fmt_score(x: float) -> str:
    return f"{round(x, 2):g}"


def fmt_metric(x: float | None) -> str:
    return "" if x is None else f"{round(x, 2):g}"  # 9.19 moves, not 9.1875


def problem_href(problem_id: str) -> str:
    return f"problems/{slug(problem_id)}/index.html"


def submission_href(contestant: str, problem_id: str) -> str:
    return f"submissions/{slug(contestant)}/{slug(problem_id)}.html"


def _problem_header(p: BoardProblem) -> dict[str, Any]:
    return {
        "id": p.id,
        "name": p.name,
        "href": problem_href(p.id),
        "max_score": fmt_score(p.max_score),
        "metric_name": p.metric_name,
        "better": p.metric_better,
    }


def _cell(p: BoardProblem, run: BoardRun | None, contestant: str, credit: CellCredit | None = None) -> dict[str, Any]:
    if run is None:
        return {
            "cls": "none",
            "score": "–",
            "verdict": "",
            "metric": "",
            "href": None,
            "title": "no submission",
            "fuzz": None,
            "credit": None,
        }
    r = run.result
    metric = ""
    value = counted_metric(run)
    if p.metric_name is not None and value is not None:
        metric = f"{fmt_metric(value)} {p.metric_name}"
    title = f"{VERDICT_NAMES[r.verdict.value]}, {fmt_score(r.score)} of {fmt_score(r.max_score)}"
    fuzz = cell_fuzz(run.fuzz)
    if fuzz is not None:
        title += f"; {fuzz['title']}"
    return {
        "cls": cell_class(run),
        "score": fmt_score(r.score if credit is None else credit.score),
        "verdict": r.verdict.value,
        "metric": metric,
        "href": submission_href(contestant, p.id),
        "title": title if credit is None else f"{title}; counts {fmt_score(credit.score)}: {credit.note}",
        "fuzz": fuzz,
        "credit": credit_view(credit),
    }


def credit_view(credit: CellCredit | None) -> dict[str, str] | None:
    """An assignment's cell: the raw score and the penalty in words (nothing on time without an override)."""
    if credit is None or (credit.percent == 100 and credit.note == "on time"):
        return None
    cls = "late" if 0 < credit.percent < 100 else ("void" if credit.percent == 0 else "extended")
    raw = f"{fmt_score(credit.raw)} × {fmt_score(credit.percent)} %: " if 0 < credit.percent < 100 else ""
    return {"cls": cls, "note": f"{raw}{credit.note}"}


def _passfail_rows(board: Board, pf: PassFailBoard) -> list[dict[str, Any]]:
    rows = []
    for row in pf.standings.rows:
        cells = []
        for p, c in zip(board.problems, row.cells, strict=True):
            href = submission_href(row.team_id, p.id) if (row.team_id, p.id) in board.runs else None
            cells.append(cell_view(c, pf.penalty_s, href))
        rows.append({**row_totals(row), "contestant": row.team_id, "cells": cells})
    return rows


def index_context(board: Board) -> dict[str, Any]:
    pf = board.pass_fail
    if pf is not None:
        return {
            **_index_base(board),
            "pass_fail": True,
            "rows": _passfail_rows(board, pf),
            "penalty_minutes": minutes(pf.penalty_s),
        }
    rows = []
    credits = board.assignment.credits if board.assignment is not None else {}
    for s in standings(board):
        cells = [
            _cell(p, r, s.contestant, credits.get((s.contestant, p.id)))
            for p, r in zip(board.problems, s.runs, strict=True)
        ]
        rows.append({"rank": s.rank, "contestant": s.contestant, "total": fmt_score(s.total), "cells": cells})
    return {**_index_base(board), "pass_fail": False, "rows": rows}


def _index_base(board: Board) -> dict[str, Any]:
    """What the index shows whichever way it is ranked."""
    return {
        "title": board.title,
        "root": "",
        "problems": [_problem_header(p) for p in board.problems],
        "max_total": fmt_score(sum(p.max_score for p in board.problems)),
        "notices": [n for n in board.notices],
        "judge_version": board.judge_version,
        "warnings": list(board.sandbox_warnings),
        "tie_metrics": [p for p in board.problems if p.metric_name is not None],
        "verdict_names": VERDICT_NAMES,
        "fuzz": board_fuzz(board),
        "assignment": None
        if board.assignment is None
        else {"rules": board.assignment.rules, "gradebook": board.assignment.gradebook},
        "explain": board_explain(board),
    }


def problem_charts(problem: BoardProblem, runs: list[BoardRun]) -> list[Chart]:
    """The distribution of scores, and of the problem's metric, across the contestants who submitted."""
    scores = [r.result.score for r in runs]
    charts = [
        bar_chart(
            score_bins(scores, problem.max_score),
            title=f"Scores ({len(scores)} submissions)",
            x_caption=f"score (of {fmt_score(problem.max_score)})",
            unit="submissions",
        )
    ]
    if problem.metric_name is not None:
        values = [v for v in (counted_metric(r) for r in runs) if v is not None]
        better = "lower" if problem.metric_better == "lower" else "higher"
        charts.append(
            bar_chart(
                value_bins(values),
                title=f"{problem.metric_name} of the {len(values)} accepted submissions ({better} is better)",
                x_caption=problem.metric_name,
                unit="submissions",
            )
        )
    return charts


def problem_context(board: Board, problem: BoardProblem, statement_html: str) -> dict[str, Any]:
    runs = {c: r for (c, pid), r in board.runs.items() if pid == problem.id}
    ordered = problem_order(runs, problem)
    results = [
        {
            "contestant": r.contestant,
            "href": "../../" + submission_href(r.contestant, problem.id),
            "cls": cell_class(r),
            "verdict": r.result.verdict.value,
            "score": fmt_score(r.result.score),
            "metric": fmt_metric(counted_metric(r)),
            "language": r.result.language,
            "time_s": f"{r.result.time_s:.2f}",
            "fuzz": cell_fuzz(r.fuzz),
        }
        for r in ordered
    ]
    return {
        "title": f"{problem.name} — {board.title}",
        "root": "../../",
        "problem": _problem_header(problem),
        "statement_html": statement_html,
        "charts": problem_charts(problem, ordered),
        "results": results,
        "package_hash": problem.package_hash,
        "interactive": problem.interactive,
        "judge_version": board.judge_version,
        "warnings": list(board.sandbox_warnings),
        "fuzz": board_fuzz(board),
    }


def _test_rows(run: BoardRun, interactive: bool) -> list[dict[str, Any]]:
    r = run.result
    scores = r.test_scores or tuple(0.0 for _ in r.tests)
    heads = run.seeds.get("tests", {}) if isinstance(run.seeds, dict) else {}
    rows = []
    for t, s in zip(r.tests, scores, strict=True):
        transcript = ""
        if interactive and t.transcript:
            transcript = "\n".join(t.transcript.splitlines()[:TRANSCRIPT_LINES])
        seed = heads.get(t.name, {}) if isinstance(heads, dict) else {}
        rows.append(
            {
                "name": t.name,
                "verdict": t.verdict.value,
                "cls": test_class(t.verdict.value, t.fraction),
                "score": fmt_score(s),
                "time_s": f"{t.time_s:.3f}",
                "memory_kib": t.memory_kib,
                "message": t.message,
                "metric": fmt_metric(t.metric),
                "transcript": transcript,
                "passes": t.passes,
                "skipped": t.skipped,
                "input": seed.get("head", "") if isinstance(seed, dict) else "",
                "input_sha256": seed.get("input_sha256", "") if isinstance(seed, dict) else "",
            }
        )
    return rows


def test_class(verdict: str, fraction: float) -> str:
    if verdict == "AC":
        return "ac" if fraction >= 1 - 1e-9 else "partial"
    return verdict.lower()


def submission_context(board: Board, problem: BoardProblem, run: BoardRun) -> dict[str, Any]:
    r = run.result
    credit = board.assignment.credits.get((run.contestant, problem.id)) if board.assignment is not None else None
    return {
        "credit": None if credit is None else {"score": fmt_score(credit.score), "note": credit.note},
        "title": f"{run.contestant} — {problem.name}",
        "root": "../../",
        "contestant": run.contestant,
        "problem": _problem_header(problem),
        "source": run.source,
        "language": r.language,
        "verdict": r.verdict.value,
        "verdict_name": VERDICT_NAMES[r.verdict.value],
        "cls": cell_class(run),
        "score": fmt_score(r.score),
        "max_score": fmt_score(r.max_score),
        "metric_name": problem.metric_name,
        "metric": fmt_metric(r.metric),
        "time_s": f"{r.time_s:.3f}",
        "memory_kib": r.memory_kib,
        "compile_message": r.compile_message,
        "tests": _test_rows(run, problem.interactive),
        "interactive": problem.interactive,
        "groups": [
            {
                "name": g.name,
                "score": fmt_score(g.score),
                "max_score": fmt_score(g.max_score),
                "verdict": g.verdict.value,
            }
            for g in r.groups
            if g.name != "sample"
        ],
        "judge_version": run.judge_version,
        "package_hash": run.package_hash,
        "source_hash": run.source_hash,
        "judged_at": run.judged_at,
        "env_seeds": dict(run.seeds.get("env", {})) if isinstance(run.seeds, dict) else {},
        "warnings": list(r.sandbox_warnings),
        "fuzz": submission_fuzz(run.fuzz),
        "explanation": submission_explanation(run.explanation),
    }
