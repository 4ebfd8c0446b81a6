"""From graded results to the board's input, ``results.json`` and the terminal summary."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judge.fuzz.outcome import FuzzStatus, show_bytes
from judge.grade.discovery import ContestFolder, Issue
from judge.grade.fuzzing import FuzzSummary, outcome_from_json
from judge.grade.options import BoardOptions
from judge.grade.progress import printable
from judge.grade.schedule import Summary
from judge.grade.storage import StoredFuzz
from judge.package.problem import Problem
from judge.scoreboard.model import Board, BoardFuzz, BoardProblem, BoardRun, FuzzSettings, Notice
from judge.scoreboard.pages import fmt_metric, fmt_score
from judge.scoreboard.ranking import counted_metric, standings
from judge.scoreboard.text import table


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
        constants=p.constants,
    )


def reproduce_command(fuzzed: StoredFuzz, problems_dir: Path, contest_root: Path) -> str:
    """The `judge fuzz` command line that tries the same inputs (no example database, like grading)."""
    k = fuzzed.key
    return (
        f"judge fuzz {problems_dir / k.run.problem} {contest_root / fuzzed.source} "
        f"--examples {k.examples} --seed {k.seed} --no-db"
    )


def board_fuzz(fuzzed: StoredFuzz, problems_dir: Path, contest_root: Path) -> BoardFuzz:
    return BoardFuzz(
        outcome=outcome_from_json(fuzzed.outcome),
        max_examples=fuzzed.key.examples,
        fuzzed_at=fuzzed.fuzzed_at,
        fuzz_version=fuzzed.key.fuzz_version,
        reproduce=reproduce_command(fuzzed, problems_dir, contest_root),
    )


def build_board(
    contest: ContestFolder,
    problems: Mapping[str, Problem],
    summary: Summary,
    issues: Sequence[Issue],
    options: BoardOptions,
    fuzz: FuzzSummary | None = None,
) -> Board:
    """The board's records: ``summary``'s runs (and the sandbox's warnings where they ran), ``issues`` as
    notices. ``fuzz``: the outcomes of ``--fuzz`` (None: graded without it)."""
    fuzzed = fuzz.outcomes if fuzz is not None else {}
    problems_dir = options.problems_dir
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
            fuzz=board_fuzz(fuzzed[key], problems_dir, contest.root) if key in fuzzed else None,
        )
        for key, run in summary.runs.items()
    }
    return Board(
        title=options.title,
        problems=tuple(board_problem(problems[pid]) for pid in sorted(problems)),
        contestants=contest.contestants,
        runs=runs,
        notices=tuple(Notice(i.kind, i.path, i.reason, i.contestant) for i in issues),
        judge_version=summary.judge_version,
        sandbox_warnings=tuple(summary.warnings),
        fuzz=None if fuzz is None else FuzzSettings(fuzz.examples, fuzz.seed),
    )


def fuzz_json(f: BoardFuzz) -> dict[str, Any]:
    """``judge fuzz --json``'s object, with N, when and by which fuzzer, and how to reproduce it."""
    return {
        **f.outcome.to_json(),
        "max_examples": f.max_examples,
        "fuzzed_at": f.fuzzed_at,
        "fuzz_version": f.fuzz_version,
        "reproduce": f.reproduce,
    }


def _run_json(run: BoardRun, with_fuzz: bool) -> dict[str, Any]:
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
    if with_fuzz:
        out["fuzz"] = None if run.fuzz is None else fuzz_json(run.fuzz)
    return out


def results_json(board: Board) -> dict[str, Any]:
    """The `--json` document: problems, standings, and per contestant and problem the full result."""
    results: dict[str, dict[str, Any]] = {c: {} for c in board.contestants}
    for (contestant, pid), run in sorted(board.runs.items()):
        results.setdefault(contestant, {})[pid] = _run_json(run, board.fuzz is not None)
    doc: dict[str, Any] = {
        "judge_version": board.judge_version,
        "problems": [
            {
                "id": p.id,
                "name": p.name,
                "max_score": p.max_score,
                "metric": None if p.metric_name is None else {"name": p.metric_name, "better": p.metric_better},
                "package_hash": p.package_hash,
            }
            for p in board.problems
        ],
        "standings": [{"rank": s.rank, "contestant": s.contestant, "total": s.total} for s in standings(board)],
        "results": results,
        "not_judged": [
            {"kind": n.kind, "path": n.path, "reason": n.reason, "contestant": n.contestant} for n in board.notices
        ],
        "sandbox_warnings": list(board.sandbox_warnings),
    }
    if board.fuzz is not None:  # without --fuzz the document is as it always was
        doc["fuzz"] = {"examples": board.fuzz.examples, "seed": board.fuzz.seed}
    return doc


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


def fuzz_text(board: Board) -> str:
    """The counterexamples and fuzzing errors of a ``--fuzz`` board, for the terminal ("" when none)."""
    lines = []
    for (contestant, pid), run in sorted(board.runs.items()):
        f = run.fuzz
        if f is None or f.outcome.status not in (FuzzStatus.COUNTEREXAMPLE, FuzzStatus.ERROR):
            continue
        o = f.outcome
        cex = o.counterexample
        if o.status is FuzzStatus.COUNTEREXAMPLE and cex is not None:
            shown = show_bytes(cex.input, limit=60, max_lines=1).replace("\n", " ").strip()
            detail = f"{cex.verdict.value} on input {shown!r}"
        else:
            detail = o.message.strip().splitlines()[0] if o.message.strip() else "failed"
        lines.append(printable(f"  {o.scoreboard_note()}: {contestant}/{pid}: {detail}"))
    return "\n".join(lines)
