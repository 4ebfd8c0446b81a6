"""From graded results to the board's input, ``results.json`` and the terminal summary."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judge.grade.discovery import Contest, Issue
from judge.grade.progress import printable
from judge.grade.schedule import Summary
from judge.problem import Problem
from judge.scoreboard.model import Board, BoardProblem, BoardRun, Notice
from judge.scoreboard.pages import fmt_metric, fmt_score
from judge.scoreboard.ranking import counted_metric, standings
from judge.textreport import table


def board_problem(p: Problem) -> BoardProblem:
    return BoardProblem(
        id=p.id,
        name=p.name,
        max_score=p.secret.max_score,
        metric_name=p.metric.name if p.metric else None,
        metric_better=p.metric.better if p.metric else "lower",
        interactive=p.interactive,
        statement=p.statement,
        package_hash=p.content_hash,
        tests=len(p.tests()),
    )


def build_board(
    title: str,
    contest: Contest,
    problems: Mapping[str, Problem],
    summary: Summary,
    issues: Sequence[Issue],
    warnings: Sequence[str] = (),
) -> Board:
    runs = {
        key: BoardRun(
            contestant=run.key.contestant,
            problem=run.key.problem,
            source=run.source,
            result=run.result,
            judge_version=run.key.judge_version,
            package_hash=run.key.package_hash,
            source_hash=run.key.source_hash,
            judged_at=run.judged_at,
            seeds=run.seeds,
        )
        for key, run in summary.runs.items()
    }
    return Board(
        title=title,
        problems=tuple(board_problem(problems[pid]) for pid in sorted(problems)),
        contestants=contest.contestants,
        runs=runs,
        notices=tuple(Notice(i.kind, i.path, i.reason, i.contestant) for i in issues),
        judge_version=summary.judge_version,
        sandbox_warnings=tuple(warnings),
    )


def _run_json(run: BoardRun) -> dict[str, Any]:
    r = run.result
    out = r.to_json()
    for test_json, t in zip(out["tests"], r.tests, strict=True):
        test_json["metric"] = t.metric
        test_json["wall_time_s"] = round(t.wall_time_s, 4)
        test_json["passes"] = t.passes
    out.update(
        {
            "contestant": run.contestant,
            "source_hash": run.source_hash,
            "package_hash": run.package_hash,
            "judge_version": run.judge_version,
            "judged_at": run.judged_at,
            "seeds": run.seeds,
        }
    )
    return out


def results_json(board: Board) -> dict[str, Any]:
    """The `--json` document: problems, standings, and per contestant and problem the full result."""
    results: dict[str, dict[str, Any]] = {c: {} for c in board.contestants}
    for (contestant, pid), run in sorted(board.runs.items()):
        results.setdefault(contestant, {})[pid] = _run_json(run)
    return {
        "judge_version": board.judge_version,
        "problems": [
            {
                "id": p.id,
                "name": p.name,
                "max_score": p.max_score,
                "metric": None
                if p.metric_name is None
                else {"name": p.metric_name, "better": p.metric_better},
                "package_hash": p.package_hash,
            }
            for p in board.problems
        ],
        "standings": [
            {"rank": s.rank, "contestant": s.contestant, "total": s.total} for s in standings(board)
        ],
        "results": results,
        "not_judged": [
            {"kind": n.kind, "path": n.path, "reason": n.reason, "contestant": n.contestant}
            for n in board.notices
        ],
        "sandbox_warnings": list(board.sandbox_warnings),
    }


def write_results_json(board: Board, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(results_json(board), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def standings_table(board: Board) -> str:
    """The board as a plain-text table for the terminal."""
    headers = ["rank", "contestant", *[p.id for p in board.problems], "total"]
    rows = []
    for s in standings(board):
        cells = []
        for p, run in zip(board.problems, s.runs, strict=True):
            if run is None:
                cells.append("-")
                continue
            r = run.result
            value = counted_metric(run)
            metric = f" {fmt_metric(value)} {p.metric_name}" if p.metric_name and value is not None else ""
            cells.append(f"{fmt_score(r.score)} {r.verdict.value}{metric}")
        rows.append([str(s.rank), printable(s.contestant), *cells, fmt_score(s.total)])
    return table(headers, rows)


def issues_text(issues: Sequence[Issue]) -> str:
    return "\n".join(f"  not judged: {printable(i.path)}: {i.kind}: {printable(i.reason)}" for i in issues)
