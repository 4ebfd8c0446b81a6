"""From graded results to the board's input, ``results.json`` and the terminal summary."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.outcome import FuzzStatus, show_bytes
from judge.grade.discovery import ContestFolder, Issue
from judge.grade.explaining import ExplainSummary
from judge.grade.fuzzing import FuzzSummary, outcome_from_json
from judge.grade.options import BoardOptions, PassFailSettings
from judge.grade.progress import printable
from judge.grade.schedule import Summary
from judge.grade.storage import StoredExplanation, StoredFuzz
from judge.package.problem import Problem
from judge.scoreboard.model import (
    Board,
    BoardExplanation,
    BoardFuzz,
    BoardProblem,
    BoardRun,
    ExplainSettings,
    FuzzSettings,
    Notice,
    PassFailBoard,
)
from judge.scoreboard.pages import fmt_metric, fmt_score
from judge.scoreboard.passfail import Outcome, Team, Try, outcome, rank
from judge.scoreboard.passfailview import minutes
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


def board_explanation(stored: StoredExplanation) -> BoardExplanation:
    return BoardExplanation(Explanation.from_json(stored.explanation), stored.explained_at, stored.key.explain_version)


def build_board(
    contest: ContestFolder,
    problems: Mapping[str, Problem],
    summary: Summary,
    issues: Sequence[Issue],
    options: BoardOptions,
    fuzz: FuzzSummary | None = None,
    explain: ExplainSummary | None = None,
) -> Board:
    """The board's records: ``summary``'s runs (and the sandbox's warnings where they ran), ``issues`` as
    notices. ``fuzz``: the outcomes of ``--fuzz``, ``explain``: the searches of ``--explain`` (None: graded
    without it)."""
    fuzzed = fuzz.outcomes if fuzz is not None else {}
    explained = explain.outcomes if explain is not None else {}
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
            explanation=board_explanation(explained[key]) if key in explained else None,
        )
        for key, run in summary.runs.items()
    }
    board = Board(
        title=options.title,
        problems=tuple(board_problem(problems[pid]) for pid in sorted(problems)),
        contestants=contest.contestants,
        runs=runs,
        notices=tuple(Notice(i.kind, i.path, i.reason, i.contestant) for i in issues),
        judge_version=summary.judge_version,
        sandbox_warnings=tuple(summary.warnings),
        fuzz=None if fuzz is None else FuzzSettings(fuzz.examples, fuzz.seed),
        explain=None if explain is None else ExplainSettings(explain.budget.examples, explain.budget.seconds),
    )
    return board if options.pass_fail is None else pass_fail_board(board, contest, summary, options.pass_fail)


def pass_fail_board(board: Board, contest: ContestFolder, summary: Summary, settings: PassFailSettings) -> Board:
    """``board`` ranked the ICPC way (scoreboard/passfail.py, as `judge serve`'s pass-fail contests) from every
    judged attempt and when it was made; each cell's run is the attempt that decided it: the first accepted
    one, else the last."""
    tries: list[Try] = []
    cells: dict[tuple[str, str], list[tuple[Try, tuple[str, str]]]] = {}
    for order, e in enumerate(contest.entries):
        run = summary.runs.get(e.key)
        if run is None:
            continue  # not judged (its toolchain is missing): a notice, not a try
        t = Try(e.contestant, e.problem, settings.times[e.rel], outcome(run.result.verdict), order)
        tries.append(t)
        cells.setdefault((e.contestant, e.problem), []).append((t, e.key))
    runs = {}
    for cell, mine in cells.items():
        mine.sort(key=lambda m: (m[0].time_s, m[0].order))
        solved = [m for m in mine if m[0].outcome is Outcome.SOLVED]
        runs[cell] = board.runs[(solved[0] if solved else mine[-1])[1]]
    teams = [Team(c, c) for c in contest.contestants]
    standings = rank([p.id for p in board.problems], teams, tries, settings.penalty_s)
    attempts = {cell: len(mine) for cell, mine in cells.items()}
    return replace(board, runs=runs, pass_fail=PassFailBoard(standings, settings.penalty_s, attempts))


def fuzz_json(f: BoardFuzz) -> dict[str, Any]:
    """``judge fuzz --json``'s object, with N, when and by which fuzzer, and how to reproduce it."""
    return {
        **f.outcome.to_json(),
        "max_examples": f.max_examples,
        "fuzzed_at": f.fuzzed_at,
        "fuzz_version": f.fuzz_version,
        "reproduce": f.reproduce,
    }


def explanation_json(e: BoardExplanation) -> dict[str, Any]:
    """``Explanation.to_json()``, with when and by which fuzzer it was searched."""
    return {**e.explanation.to_json(), "explained_at": e.explained_at, "explain_version": e.version}


def _run_json(run: BoardRun, with_fuzz: bool, with_explain: bool = False) -> dict[str, Any]:
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
    if with_explain:
        out["explanation"] = None if run.explanation is None else explanation_json(run.explanation)
    return out


def results_json(board: Board) -> dict[str, Any]:
    """The `--json` document: problems, standings, and per contestant and problem the full result."""
    results: dict[str, dict[str, Any]] = {c: {} for c in board.contestants}
    for (contestant, pid), run in sorted(board.runs.items()):
        results.setdefault(contestant, {})[pid] = _run_json(run, board.fuzz is not None, board.explain is not None)
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
        **_pass_fail_json(board),
        **_assignment_json(board),
        "results": results,
        "not_judged": [
            {"kind": n.kind, "path": n.path, "reason": n.reason, "contestant": n.contestant} for n in board.notices
        ],
        "sandbox_warnings": list(board.sandbox_warnings),
    }
    if board.fuzz is not None:  # without --fuzz the document is as it always was
        doc["fuzz"] = {"examples": board.fuzz.examples, "seed": board.fuzz.seed}
    if board.explain is not None:  # so is it without --explain
        doc["explain"] = {"examples": board.explain.examples, "seconds": board.explain.seconds}
    return doc


def _pass_fail_json(board: Board) -> dict[str, Any]:
    """A pass-fail board's standings, in the Contest API's scoreboard rows' terms (times in minutes here);
    nothing for a score board (its document is as it always was)."""
    pf = board.pass_fail
    if pf is None:
        return {}
    rows = [
        {
            "rank": r.rank,
            "contestant": r.team_id,
            "num_solved": r.num_solved,
            "total_time_minutes": r.total_time_s / 60,
            "last_solve_minute": None if r.last_solve_s is None else r.last_solve_s / 60,
            "problems": {
                c.problem_id: {
                    "attempts": pf.attempts.get((r.team_id, c.problem_id), 0),
                    "num_judged": c.num_judged,
                    "solved": c.solved,
                    "minute": None if c.time_s is None else c.time_s / 60,
                    "first_to_solve": c.first,
                }
                for c in r.cells
            },
        }
        for r in pf.standings.rows
    ]
    return {"scoreboard_type": "pass-fail", "penalty_minutes": pf.penalty_s / 60, "pass_fail_standings": rows}


def _assignment_json(board: Board) -> dict[str, Any]:
    """An assignment's board (`--assignment`): the rules, and per student and problem what counts; nothing else."""
    a = board.assignment
    if a is None:
        return {}
    credits: dict[str, dict[str, Any]] = {c: {} for c in board.contestants}
    for (who, pid), c in sorted(a.credits.items()):
        credits.setdefault(who, {})[pid] = {
            "score": c.score,
            "raw": c.raw,
            "percent": c.percent,
            "minutes_late": c.minutes_late,
            "note": c.note,
        }
    return {"assignment": {"rules": a.rules, "gradebook": a.gradebook, "counts": credits}}


def write_results_json(board: Board, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(results_json(board), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def standings_table(board: Board) -> str:
    """The board as a plain-text table for the terminal."""
    if board.pass_fail is not None:
        return _pass_fail_table(board, board.pass_fail)
    headers = ["rank", "contestant", *[p.id for p in board.problems], "total"]
    credits = board.assignment.credits if board.assignment is not None else {}
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
            credit = credits.get((s.contestant, p.id))
            late = "" if credit is None or credit.percent == 100 else f" ({fmt_score(credit.percent)} %)"
            score = r.score if credit is None else credit.score
            cells.append(f"{fmt_score(score)} {r.verdict.value}{metric}{late}")
        rows.append([str(s.rank), printable(s.contestant), *cells, fmt_score(s.total)])
    note = "\n(an assignment: the points that count, after the late penalty; (80 %): the credit applied)"
    return table(headers, rows) + (note if credits else "")


def _pass_fail_table(board: Board, pf: PassFailBoard) -> str:
    """Per cell tries / solve minute (``2/47``; ``1/-`` tried; ``-`` nothing), then solved and time."""
    headers = ["rank", "contestant", *[p.id for p in board.problems], "solved", "time"]
    rows = []
    for r in pf.standings.rows:
        cells = []
        for c in r.cells:
            shown = f"{c.num_judged}/{minutes(c.time_s) if c.time_s is not None else '-'}"
            cells.append((shown + ("*" if c.first else "")) if c.num_judged else "-")
        rows.append([str(r.rank), printable(r.team_id), *cells, str(r.num_solved), minutes(r.total_time_s)])
    return table(headers, rows) + "\n(tries/minute of the first accepted one; * the first to solve it)"


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


def explain_text(board: Board) -> str:
    """The counterexamples and failed searches of an ``--explain`` board, for the terminal ("" when none)."""
    lines = []
    for (contestant, pid), run in sorted(board.runs.items()):
        if run.explanation is None:
            continue
        x = run.explanation.explanation
        if x.status is ExplainStatus.FOUND and x.failure is not None:
            shown = show_bytes(x.input, limit=60, max_lines=1).replace("\n", " ").strip()
            detail = f"fails ({x.failure.value}) on input {shown!r}"
        elif x.status is ExplainStatus.ERROR:
            detail = "search failed: " + (x.note.strip().splitlines()[0] if x.note.strip() else "")
        else:
            continue
        lines.append(printable(f"  explain: {contestant}/{pid}: {detail}"))
    return "\n".join(lines)
