"""What a pass-fail board's HTML shows of a cell and a row (the static board of `judge grade --scoreboard
pass-fail` and the pages of `judge serve` alike; the macro is templates/_passfail.html). Pure.

A cell: the tries and the solve minute, ``2 / 47``; green when solved, a distinct colour for the first
solve of the problem, red when tried and not solved, marked when submissions are pending.
"""

from __future__ import annotations

from typing import Any

from judge.scoreboard.passfail import Cell, Row


def minutes(time_s: float) -> str:
    """Seconds as minutes: ``47``, or ``20.5`` for a penalty of 20 min 30 s."""
    return f"{round(time_s / 60, 2):g}"


def cell_class(c: Cell) -> str:
    if c.solved:
        return "pf-first" if c.first else "pf-solved"
    if c.num_pending:
        return "pf-pending"
    return "pf-tried" if c.num_judged else "none"


def _title(c: Cell, penalty_s: float) -> str:
    tries = f"{c.num_judged} {'try' if c.num_judged == 1 else 'tries'}"
    if c.solved and c.time_s is not None:
        rejected = c.num_judged - 1
        cost = f" + {rejected} × {minutes(penalty_s)} penalty minutes" if rejected else ""
        first = "; first to solve it" if c.first else ""
        text = f"solved at minute {minutes(c.time_s)} ({tries}): {minutes(c.penalty_s)} minutes{cost}{first}"
    else:
        text = f"not solved, {tries}" if c.num_judged else "no judged submission"
    if c.num_pending:
        text += f"; {c.num_pending} pending"
    return text


def cell_view(c: Cell, penalty_s: float, href: str | None = None) -> dict[str, Any]:
    """The template's values of one cell (``shown``: anything to show at all)."""
    return {
        "css": cell_class(c),
        "shown": bool(c.num_judged or c.num_pending),
        "tries": c.num_judged,
        "minute": minutes(c.time_s) if c.time_s is not None else None,
        "pending": c.num_pending,
        "title": _title(c, penalty_s),
        "href": href,
    }


def row_totals(row: Row) -> dict[str, Any]:
    """The row's rank, problems solved and total time (minutes)."""
    return {"rank": row.rank, "solved": row.num_solved, "time": minutes(row.total_time_s)}
