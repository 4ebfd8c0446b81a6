"""An assignment's rules and credits in words (issue 45), the same on every board: `judge grade --assignment`'s
static board, `judge serve`'s board and a student's submission pages. Pure.

- ``late_words(61)`` is ``1 h 1 min``;
- ``credit_note`` says why a submission counts what it counts: ``on time``, ``late 1 h 1 min``,
  ``extension 2d: on time``, ``section B: on time``, ``after the close: practice, counts 0``, ...;
- ``cell_credit`` is a board cell's ``CellCredit`` (scoreboard/model.py) of a student's grade on a problem;
- ``rules_text`` is the assignment's rules in one line.
"""

from __future__ import annotations

from datetime import UTC, datetime

from judge.course.assignment import Assignment, Counts, Resolved
from judge.course.gradebook import AssignmentGrade, ProblemGrade, Submission
from judge.course.window import AfterClose, Phase, Window, credit_at, minutes_late
from judge.scoreboard.model import CellCredit
from judge.scoreboard.pages import fmt_score

_VOID = {
    Phase.PRACTICE: "after the close: practice, counts 0",
    Phase.CLOSED: "after the close: counts 0",
    Phase.EARLY: "before the opening: counts 0",
}


def late_words(minutes: int) -> str:
    """``61`` -> ``1 h 1 min``; ``1500`` -> ``1 d 1 h``."""
    d, rest = divmod(minutes, 1440)
    h, m = divmod(rest, 60)
    parts = [f"{d} d" if d else "", f"{h} h" if h else "", f"{m} min" if m and not d else ""]
    return " ".join(p for p in parts if p) or "0 min"


def override_words(source: str, label: str) -> str:
    """Whose window it was, as a note starts: the student's own override says what it is (``extension 2d``),
    a section's says whose (``section B``)."""
    return label if source == "student" else source


def credit_note(phase: Phase | None, minutes: int, extended: str = "") -> str:
    """Why a submission made in ``phase`` (``minutes`` late) counts what it counts; ``extended``: the override's
    words when it made a submission after the assignment's own due time on time. ``phase`` None: nothing was
    submitted."""
    if phase is None:
        return "no submission"
    if phase in _VOID:
        return _VOID[phase]
    if phase is Phase.LATE:
        return f"late {late_words(minutes)}"
    return f"{extended}: on time" if extended else "on time"


def attempt_note(resolved: Resolved, base_due_s: float, t: float) -> str:
    """``credit_note`` of one submission made at ``t`` by a student whose window is ``resolved``."""
    credit = credit_at(resolved.window, t)
    extended = ""
    if resolved.override is not None and credit.phase is Phase.ON_TIME and t > base_due_s:
        extended = override_words(resolved.source, resolved.override.label)
    return credit_note(credit.phase, minutes_late(resolved.window, t), extended)


def grade_note(g: AssignmentGrade, p: ProblemGrade, base_due_s: float) -> str:
    """``credit_note`` of the submission that counts for a problem (else of the last one: why it counts 0)."""
    if p.counted is None:
        return "not judged: counts 0" if p.phase is not None and p.phase.counts else credit_note(p.phase, 0)
    extended = ""
    if g.override and p.counted.time_s > base_due_s and p.phase is Phase.ON_TIME:
        extended = override_words(g.override, g.override_label)
    return credit_note(p.phase, p.minutes_late, extended)


def cell_credit(g: AssignmentGrade, p: ProblemGrade, shown: Submission, base_due_s: float) -> CellCredit:
    """A board cell of ``g``'s grade on ``p``: the score that counts and why (``shown``: the submission the cell
    shows, the counted one, else the last one)."""
    return CellCredit(p.score, shown.score or 0.0, p.percent, p.minutes_late, grade_note(g, p, base_due_s))


def when(t: float) -> str:
    """``2030-01-10 12:00 UTC``: a time on a board."""
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M UTC")


def window_text(w: Window) -> str:
    """A window in words: ``due ...; 80 % until ...; then 50 % until ...; then closed``."""
    parts = [f"due {when(w.due_s)}"]
    previous = "after"
    for step in w.late:
        parts.append(f"{fmt_score(step.percent)} % until {when(step.until_s)}")
        previous = "then"
    after = "practice (judged, counts 0)" if w.after is AfterClose.PRACTICE else "closed"
    parts.append(f"{previous} {after}")
    return "; ".join(parts)


def rules_text(a: Assignment) -> str:
    """The assignment's rules in words, for a board."""
    parts = [window_text(a.window)]
    parts.append("the last submission counts" if a.counts is Counts.LAST else "the best submission counts")
    if a.overrides:
        parts.append(f"{len(a.overrides)} override(s)")
    return "; ".join(parts)
