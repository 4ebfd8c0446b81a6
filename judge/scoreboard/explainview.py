"""Template contexts for counterexamples of rejected submissions (`judge grade --explain`, docs/explain.md):
the section of a submission's page and the note under the board. Pure; every string is escaped by the
templates (inputs and program output are contestant-controlled)."""

from __future__ import annotations

from typing import Any

from judge.fuzz.explanation import ExplainStatus
from judge.fuzz.outcome import show_bytes
from judge.scoreboard.model import Board, BoardExplanation

SHOWN_BYTES = 4000
SHOWN_LINES = 40
TRANSCRIPT_LINES = 60


def _text(data: bytes | None) -> str:
    return show_bytes(data, limit=SHOWN_BYTES, max_lines=SHOWN_LINES)


def _budget(e: BoardExplanation) -> str:
    b = e.explanation.budget
    return f"{b.examples} generated inputs or {b.seconds:g} s"


def submission_explanation(e: BoardExplanation | None) -> dict[str, Any] | None:
    """The "An input your program fails on" section of a submission's page (None: nothing to show: not
    searched, or a status that says nothing to the contestant: no fuzz.py, a TLE not searched, not built)."""
    if e is None:
        return None
    x = e.explanation
    base = {
        "status": x.status.value,
        "budget": _budget(e),
        "seed": x.seed,
        "explained_at": e.explained_at,
        "version": e.version,
        "examples": x.examples,
        "elapsed_s": f"{x.elapsed_s:.1f}",
        "note": x.note,
    }
    match x.status:
        case ExplainStatus.FOUND:
            failure = x.failure.value if x.failure is not None else ""
            transcript = "\n".join(x.transcript.splitlines()[:TRANSCRIPT_LINES])
            if transcript:  # interactive, multi-pass: what the program wrote is in the exchange
                output = "(what it wrote is in the exchange below)"
            elif x.output is None:
                output = f"(no output: {failure})"
            else:
                output = _text(x.output)
            return {
                **base,
                "input": _text(x.input),
                "input_bytes": len(x.input or b""),
                "answer": _text(x.answer),
                "output": output,
                "failure": failure,
                "message": x.message,
                "transcript": transcript,
            }
        case ExplainStatus.WITHHELD | ExplainStatus.NOT_FOUND | ExplainStatus.ERROR:
            return base
    return None


def board_explain(board: Board) -> dict[str, Any] | None:
    """What the board says about ``--explain`` (None without it)."""
    if board.explain is None:
        return None
    counts = {s: 0 for s in ExplainStatus}
    for run in board.runs.values():
        if run.explanation is not None:
            counts[run.explanation.explanation.status] += 1
    return {
        "examples": board.explain.examples,
        "seconds": f"{board.explain.seconds:g}",
        "searched": sum(counts[s] for s in ExplainStatus if s is not ExplainStatus.UNAVAILABLE),
        "found": counts[ExplainStatus.FOUND],
        "withheld": counts[ExplainStatus.WITHHELD],
        "errors": counts[ExplainStatus.ERROR],
    }
