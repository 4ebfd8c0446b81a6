"""Template contexts for fuzzing outcomes (`judge grade --fuzz N`): the note in a board cell, the section
of a submission's page, and the explanation under the board. Pure; every string is escaped by the
templates (program output and inputs are contestant-controlled)."""

from __future__ import annotations

from typing import Any

from judge.fuzz.outcome import FuzzStatus, show_bytes
from judge.scoreboard.model import Board, BoardFuzz

SHOWN_BYTES = 4000
SHOWN_LINES = 40

_CLASSES = {
    FuzzStatus.COUNTEREXAMPLE: "fuzz-cex",
    FuzzStatus.PASSED: "fuzz-ok",
    FuzzStatus.NOT_BUILT: "fuzz-error",
    FuzzStatus.ERROR: "fuzz-error",
    FuzzStatus.UNAVAILABLE: "fuzz-ok",
}


def fuzz_class(f: BoardFuzz) -> str:
    return _CLASSES[f.outcome.status]


def cell_fuzz(f: BoardFuzz | None) -> dict[str, str] | None:
    """The line under a cell's verdict (None: nothing, e.g. without --fuzz or below the full score)."""
    if f is None or not f.outcome.scoreboard_note():
        return None
    o = f.outcome
    title = o.scoreboard_note()
    if o.status is FuzzStatus.COUNTEREXAMPLE and o.counterexample is not None:
        title = f"fuzzing found an input it fails ({o.counterexample.verdict.value}); the score is unchanged"
    return {"note": o.scoreboard_note(), "cls": fuzz_class(f), "title": title}


def _text(data: bytes | None) -> str:
    return show_bytes(data, limit=SHOWN_BYTES, max_lines=SHOWN_LINES)


def submission_fuzz(f: BoardFuzz | None) -> dict[str, Any] | None:
    """The "Fuzzing" section of a submission's page."""
    if f is None:
        return None
    o = f.outcome
    cex = None
    if o.counterexample is not None:
        c = o.counterexample
        cex = {
            "input": _text(c.input),
            "answer": _text(c.answer),
            "output": _text(c.output) if c.output is not None else f"(no answer: {c.verdict.value})",
            "verdict": c.verdict.value,
            "message": c.message,
            "confirmed": c.confirmed,
        }
    if o.status is FuzzStatus.COUNTEREXAMPLE:
        where = "replayed" if o.replayed else f"after {o.examples} of {f.max_examples} examples"
        summary = f"the program disagrees with the reference {where}; shrunk with {o.shrink_runs} more runs"
    elif o.status is FuzzStatus.PASSED:
        summary = f"no disagreement in {o.examples} examples ({o.runs} distinct inputs run)"
    elif o.status is FuzzStatus.NOT_BUILT:
        summary = "the fuzzer could not build the program"
    else:
        summary = "fuzzing failed: the package's fuzz.py or the judge (not the contestant's fault)"
    return {
        "note": o.scoreboard_note() or o.status.value,
        "cls": fuzz_class(f),
        "status": o.status.value,
        "summary": summary,
        "max_examples": f.max_examples,
        "seed": o.seed,
        "checker": o.checker,
        "message": o.message,
        "counterexample": cex,
        "fuzzed_at": f.fuzzed_at,
        "fuzz_version": f.fuzz_version,
        "reproduce": f.reproduce,
    }


def board_fuzz(board: Board) -> dict[str, Any] | None:
    """What the board says about fuzzing (None without --fuzz)."""
    if board.fuzz is None:
        return None
    counts = {s: 0 for s in FuzzStatus}
    for run in board.runs.values():
        if run.fuzz is not None:
            counts[run.fuzz.outcome.status] += 1
    return {
        "examples": board.fuzz.examples,
        "seed": board.fuzz.seed,
        "fuzzed": sum(counts.values()),
        "counterexamples": counts[FuzzStatus.COUNTEREXAMPLE],
        "errors": counts[FuzzStatus.ERROR] + counts[FuzzStatus.NOT_BUILT],
    }
