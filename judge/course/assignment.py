"""An assignment (issue 45): its window (open, due, late steps, late-until), the overrides per student and per
section, which submission counts, group work, its rate limits and feedback rules, read from YAML into frozen
records. Pure; every mistake is a ``CourseError`` of one line naming the key.

Where it lives: in a course (a site, docs/course.md) each assignment is a contest, and its rules are the
``assignment:`` mapping of the contest's ``contest.yaml``; `judge grade --assignment FILE` reads the same
mapping from FILE (a contest.yaml, or a file holding only the mapping). The keys::

    assignment:
      open: 2026-09-01T09:00:00+02:00    # optional: before it, submissions are refused
      due: 2026-09-08T23:59:00+02:00     # required: up to it (inclusive), 100 %
      late:                              # optional: the credit after the due time, step by step
        - {for: 1d, credit: 80}          #   80 % for one day after the due time
        - {credit: 50}                   #   50 % until late_until (a step may also end `until: TIME`)
      late_until: 2026-09-15T23:59:00+02:00   # the close (default: the last step's end, else the due time)
      after_close: closed                # closed (refused) | practice (judged, never counted)
      counts: last                       # last | best: which submission of a problem counts
      overrides:                         # a student's beats their section's
        - {students: [s007], extension: 2d, note: medical}
        - {section: B, due: 2026-09-09T23:59:00+02:00}
      groups: {team-1: [s001, s002]}     # group work: the team's submissions count for each member
      rate_limit: {submissions: 5, every: 30m}   # per student and problem: a token bucket
      feedback: {before: samples, after: details, switch: due, score: shown}
      problems:                          # per problem: rate_limit (null: none), feedback
        hello: {rate_limit: {submissions: 10, every: 10m}}

An override moves the whole late timeline with the due time: ``extension: 2d`` (or ``due: TIME``) shifts the
due time, every step's end and the close by the same amount; ``late_until: TIME`` sets the close itself (the
steps are cut there, or the last one runs until it); ``open: TIME`` sets the opening.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from judge.course.feedback import FeedbackRules, parse_feedback
from judge.course.ratelimit import RateLimit
from judge.course.values import (
    CourseError,
    an_id,
    choice,
    ids,
    mapping,
    percent,
    positive_int,
    span_s,
    text,
    time_s,
)
from judge.course.window import AfterClose, LateStep, Window
from judge.scoreboard.times import format_time

KEYS = (
    "name",
    "open",
    "due",
    "late",
    "late_until",
    "after_close",
    "counts",
    "overrides",
    "groups",
    "rate_limit",
    "feedback",
    "problems",
)
STEP_KEYS = ("credit", "for", "until")
OVERRIDE_KEYS = ("student", "students", "section", "sections", "open", "due", "late_until", "extension", "note")
PROBLEM_KEYS = ("rate_limit", "feedback")
RATE_KEYS = ("submissions", "every")


class Counts(Enum):
    LAST = "last"  # the last submission that counts (made on time or late)
    BEST = "best"  # the one with the most points after the penalty (the earliest of equals)


@dataclass(frozen=True)
class Override:
    """A different window for some students or sections (``window`` is theirs, computed when read)."""

    students: tuple[str, ...]
    sections: tuple[str, ...]
    window: Window
    label: str  # what the gradebook says: "extension 2d", "due 2026-09-09T21:59:00+00:00", ...
    note: str = ""


@dataclass(frozen=True)
class Resolved:
    """A student's window and where it comes from (``override`` None: the assignment's own)."""

    window: Window
    override: Override | None
    source: str  # "" | "student" | "section <id>"


@dataclass(frozen=True)
class Assignment:
    window: Window
    counts: Counts = Counts.LAST
    overrides: tuple[Override, ...] = ()
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # team id -> its members' ids
    rate_limit: RateLimit | None = None
    feedback: FeedbackRules = FeedbackRules()
    problem_rate_limits: Mapping[str, RateLimit | None] = field(default_factory=dict)
    problem_feedback: Mapping[str, FeedbackRules] = field(default_factory=dict)
    name: str | None = None

    def resolve(self, student: str, section: str | None) -> Resolved:
        """The window of ``student`` (in ``section``): their own override, else their section's, else ours."""
        for o in self.overrides:
            if student in o.students:
                return Resolved(o.window, o, "student")
        if section is not None:
            for o in self.overrides:
                if section in o.sections:
                    return Resolved(o.window, o, f"section {section}")
        return Resolved(self.window, None, "")

    def owners(self, student: str) -> tuple[str, ...]:
        """Whose submissions are this student's: their own, and their group's."""
        return (student, *sorted(team for team, members in self.groups.items() if student in members))

    def rate_limit_for(self, problem: str) -> RateLimit | None:
        return self.problem_rate_limits[problem] if problem in self.problem_rate_limits else self.rate_limit

    def feedback_for(self, problem: str) -> FeedbackRules:
        return self.problem_feedback.get(problem, self.feedback)

    def windows(self) -> tuple[Window, ...]:
        """Every window a student may have: the latest close of them is when the assignment is over."""
        return (self.window, *(o.window for o in self.overrides))

    @property
    def students_named(self) -> frozenset[str]:
        return frozenset(s for o in self.overrides for s in o.students) | frozenset(
            m for members in self.groups.values() for m in members
        )

    @property
    def sections_named(self) -> frozenset[str]:
        return frozenset(s for o in self.overrides for s in o.sections)


@dataclass(frozen=True)
class _Shape:
    """The late timeline in terms of the due time, which overrides move: each step's end after the due time."""

    open_s: float | None
    due_s: float
    ends_after_due_s: tuple[float, ...]
    percents: tuple[float, ...]
    close_after_due_s: float
    after: AfterClose

    def window(self, where: str, open_s: float | None, due_s: float, close_s: float) -> Window:
        if close_s < due_s:
            raise CourseError(f"{where}: the window would close ({format_time(close_s)}) before it is due")
        if open_s is not None and open_s > due_s:
            raise CourseError(f"{where}: the window would open ({format_time(open_s)}) after it is due")
        if close_s > due_s and not self.percents:
            raise CourseError(f"{where}: a close after the due time needs the assignment's `late` credit steps")
        steps: list[LateStep] = []
        for end_after, pct in zip(self.ends_after_due_s, self.percents, strict=True):
            end = min(due_s + end_after, close_s)
            if end <= (steps[-1].until_s if steps else due_s):
                break
            steps.append(LateStep(end, pct))
        if steps and steps[-1].until_s < close_s:
            steps[-1] = LateStep(close_s, steps[-1].percent)
        return Window(open_s, due_s, tuple(steps), self.after)


def _late(value: Any, where: str, due: float, late_until: float | None) -> tuple[list[float], list[float]]:
    """The late steps' ends (absolute) and credits; the last may run until ``late_until``."""
    if not isinstance(value, list) or not value:
        raise CourseError(f"{where}: expected a list of steps like {{for: 1d, credit: 80}}")
    ends: list[float] = []
    pcts: list[float] = []
    for i, raw in enumerate(value):
        at = f"{where}[{i}]"
        step = mapping(raw, at, STEP_KEYS)
        if "credit" not in step:
            raise CourseError(f"{at}: `credit` is required (the percentage a late submission keeps)")
        pcts.append(percent(step["credit"], f"{at}.credit"))
        previous = ends[-1] if ends else due
        if "for" in step and "until" in step:
            raise CourseError(f"{at}: give `for` or `until`, not both")
        if "for" in step:
            ends.append(previous + span_s(step["for"], f"{at}.for"))
        elif "until" in step:
            ends.append(time_s(step["until"], f"{at}.until"))
        elif i == len(value) - 1 and late_until is not None:
            ends.append(late_until)
        else:
            raise CourseError(f"{at}: needs `for: SPAN` or `until: TIME` (only the last step may run until late_until)")
        if ends[-1] <= previous:
            raise CourseError(f"{at}: ends at {format_time(ends[-1])}, not after the step before it")
    return ends, pcts


def _shape(data: Mapping[str, Any], where: str) -> _Shape:
    if "due" not in data:
        raise CourseError(f"{where}: `due` is required (e.g. due: 2026-09-08T23:59:00+02:00)")
    due = time_s(data["due"], f"{where}.due")
    open_s = None if data.get("open") is None else time_s(data["open"], f"{where}.open")
    late_until = None if data.get("late_until") is None else time_s(data["late_until"], f"{where}.late_until")
    ends: list[float] = []
    pcts: list[float] = []
    if data.get("late") is not None:
        ends, pcts = _late(data["late"], f"{where}.late", due, late_until)
    if late_until is None:
        late_until = ends[-1] if ends else due
    if late_until < due:
        raise CourseError(f"{where}.late_until: {format_time(late_until)} is before the due time")
    if ends and ends[-1] > late_until:
        raise CourseError(f"{where}.late: the last step ends after late_until ({format_time(late_until)})")
    if ends and ends[-1] < late_until:
        ends[-1] = late_until  # the last step runs until the close
    if late_until > due and not ends:
        raise CourseError(f"{where}.late_until: a late period needs `late` steps (e.g. [{{credit: 50}}])")
    if open_s is not None and open_s > due:
        raise CourseError(f"{where}.open: {format_time(open_s)} is after the due time")
    after = AfterClose(choice(data.get("after_close", "closed"), f"{where}.after_close", ("closed", "practice")))
    return _Shape(open_s, due, tuple(e - due for e in ends), tuple(pcts), late_until - due, after)


def _override(raw: Any, where: str, shape: _Shape) -> Override:
    data = mapping(raw, where, OVERRIDE_KEYS)
    students: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    for key in ("student", "students"):
        if key in data:
            students += ids(data[key], f"{where}.{key}")
    for key in ("section", "sections"):
        if key in data:
            sections += ids(data[key], f"{where}.{key}")
    if not students and not sections:
        raise CourseError(f"{where}: names no `students` or `sections`")
    if students and sections:
        raise CourseError(f"{where}: give `students` or `sections`, not both (a student's override beats a section's)")
    if "extension" in data and "due" in data:
        raise CourseError(f"{where}: give `extension` or `due`, not both")
    labels = []
    due = shape.due_s
    if "extension" in data:
        due += span_s(data["extension"], f"{where}.extension")
        labels.append(f"extension {data['extension']}")
    if "due" in data:
        due = time_s(data["due"], f"{where}.due")
        labels.append(f"due {format_time(due)}")
    open_s = shape.open_s if "open" not in data else time_s(data["open"], f"{where}.open")
    if "open" in data:
        labels.append(f"open {format_time(open_s or 0)}")
    close = due + shape.close_after_due_s
    if "late_until" in data:
        close = time_s(data["late_until"], f"{where}.late_until")
        labels.append(f"late until {format_time(close)}")
    if not labels:
        raise CourseError(f"{where}: changes nothing (give extension, due, open or late_until)")
    note = "" if data.get("note") is None else text(data["note"], f"{where}.note")
    return Override(students, sections, shape.window(where, open_s, due, close), ", ".join(labels), note)


def _rate_limit(value: Any, where: str) -> RateLimit | None:
    if value is None:
        return None
    data = mapping(value, where, RATE_KEYS)
    if "submissions" not in data or "every" not in data:
        raise CourseError(f"{where}: expected {{submissions: N, every: SPAN}} (N at once, one back every SPAN)")
    return RateLimit(positive_int(data["submissions"], f"{where}.submissions"), span_s(data["every"], f"{where}.every"))


def _groups(value: Any, where: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise CourseError(f"{where}: expected a mapping of team id: [member ids]")
    out: dict[str, tuple[str, ...]] = {}
    seen: dict[str, str] = {}
    for team, members in value.items():
        tid = an_id(team, f"{where}: team")
        out[tid] = ids(members, f"{where}.{tid}")
        for m in out[tid]:
            if m in seen:
                raise CourseError(f"{where}: {m!r} is in two groups ({seen[m]} and {tid})")
            seen[m] = tid
    clash = sorted(set(out) & set(seen))
    if clash:
        raise CourseError(f"{where}: {clash[0]!r} is both a group and a member")
    return out


def _unique_targets(overrides: Sequence[Override], where: str) -> None:
    for attr in ("students", "sections"):
        seen: set[str] = set()
        for o in overrides:
            for name in getattr(o, attr):
                if name in seen:
                    raise CourseError(f"{where}: {name!r} has two overrides (one per student or section)")
                seen.add(name)


def parse_assignment(value: Any, where: str) -> Assignment:
    """The ``assignment:`` mapping (``where`` names it in messages, e.g. ``contests/hw1/contest.yaml: assignment``)."""
    data = mapping(value, where, KEYS)
    shape = _shape(data, where)
    base = shape.window(where, shape.open_s, shape.due_s, shape.due_s + shape.close_after_due_s)
    raw_overrides = data.get("overrides") or []
    if not isinstance(raw_overrides, list):
        raise CourseError(f"{where}.overrides: expected a list of overrides")
    overrides = tuple(_override(o, f"{where}.overrides[{i}]", shape) for i, o in enumerate(raw_overrides))
    _unique_targets(overrides, f"{where}.overrides")
    feedback = (
        FeedbackRules() if data.get("feedback") is None else parse_feedback(data["feedback"], f"{where}.feedback")
    )
    problem_limits: dict[str, RateLimit | None] = {}
    problem_feedback: dict[str, FeedbackRules] = {}
    problems = data.get("problems") or {}
    if not isinstance(problems, dict):
        raise CourseError(f"{where}.problems: expected a mapping of problem id: {{rate_limit, feedback}}")
    for pid, raw in problems.items():
        at = f"{where}.problems.{pid}"
        settings = mapping(raw, at, PROBLEM_KEYS)
        problem = an_id(pid, at)
        if "rate_limit" in settings:
            problem_limits[problem] = _rate_limit(settings["rate_limit"], f"{at}.rate_limit")
        if settings.get("feedback") is not None:
            problem_feedback[problem] = parse_feedback(settings["feedback"], f"{at}.feedback", feedback)
    return Assignment(
        window=base,
        counts=Counts(choice(data.get("counts", "last"), f"{where}.counts", ("last", "best"))),
        overrides=overrides,
        groups=_groups(data["groups"], f"{where}.groups") if data.get("groups") else {},
        rate_limit=_rate_limit(data.get("rate_limit"), f"{where}.rate_limit"),
        feedback=feedback,
        problem_rate_limits=problem_limits,
        problem_feedback=problem_feedback,
        name=None if data.get("name") is None else text(data["name"], f"{where}.name"),
    )
