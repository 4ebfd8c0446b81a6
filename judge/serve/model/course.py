"""A contest served as a course's assignment (issue 45, docs/course.md): contest.yaml's ``assignment:`` read with
judge/course's rules and checked against the people and the contest's times when `judge serve` starts, and
what a request needs of it: each team's window (its override, its section's), the feedback a viewer gets of a
submission now. Pure; judge/course decides everything (windows, credits, rate limits, feedback levels).

A team is a student when it is the roster's (the group ``students``); its section is its group of ``type:
section``. Any other team (a group-work team, a test team) gets the assignment's own window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from judge.course.assignment import Assignment, Resolved, parse_assignment
from judge.course.feedback import EVERYTHING, NOTHING, Shown, Viewer, shown
from judge.course.folder import check_roster, check_times
from judge.course.gradebook import Submission
from judge.course.roster import Roster, Student
from judge.course.sitefiles import SECTION_TYPE, STUDENTS_GROUP, roster_from
from judge.course.sitefiles import People as RosterFiles
from judge.course.values import CourseError
from judge.course.window import Window
from judge.serve.model.contest import Contest, People
from judge.serve.model.contest_values import ContestError
from judge.serve.model.records import Counted, JudgementRecord


@dataclass(frozen=True)
class ServedAssignment:
    """contest.yaml's ``assignment:`` as written (``raw``, re-read with the overrides set while serving) and
    as read (``assignment``); ``where`` names it in messages."""

    raw: Mapping[str, Any]
    where: str
    assignment: Assignment


def course_roster(people: People, root: Path) -> Roster:
    """The students and the withdrawn of ``people`` (judge/course's reading of a site's files: sitefiles.py)."""
    teams = tuple({"id": t.id, "name": t.name, "group_ids": list(t.group_ids)} for t in people.teams)
    files = RosterFiles(teams, people.groups, (), root / "teams.json", root / "groups.json", root / "accounts.yaml")
    return roster_from(files)


def load_assignment(contest: Contest, people: People, site_root: Path) -> ServedAssignment | None:
    """``contest``'s assignment (None: its contest.yaml has none): read, its students and sections checked
    against ``people``, its windows against the contest's times. Raises ContestError (one line)."""
    path = next(contest.root / f"contest{e}" for e in (".yaml", ".json") if (contest.root / f"contest{e}").is_file())
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:  # load_info read it a moment ago
        raise ContestError(f"cannot read {path}: {type(exc).__name__}") from None
    raw = data.get("assignment") if isinstance(data, dict) else None
    if raw is None:
        return None
    where = f"{path}: assignment"
    info = contest.info
    try:
        assignment = parse_assignment(raw, where)
        check_roster(assignment, course_roster(people, site_root), where)
        check_times(assignment, info.start_s, info.end_s, str(path))
        unknown = sorted(set(assignment.problem_feedback) | set(assignment.problem_rate_limits))
        unknown = [p for p in unknown if contest.problem(p) is None]
        if unknown:
            raise CourseError(f"{where}.problems: {unknown[0]!r} is not a problem of the contest (problems.yaml)")
    except CourseError as exc:
        raise ContestError(str(exc)) from None
    return ServedAssignment(raw, where, assignment)


def section_of(contest: Contest, team_id: str) -> str | None:
    """The team's section: its first group of ``type: section`` (None: none, or no such team)."""
    team = contest.team(team_id)
    if team is None:
        return None
    sections = {str(g["id"]) for g in contest.groups if g.get("type") == SECTION_TYPE}
    return next((g for g in team.group_ids if g in sections), None)


def students_of(contest: Contest, assignment: Assignment) -> tuple[Student, ...]:
    """The students of the contest, by id: the teams of the group ``students`` (the roster's); a contest
    without that group (a contest folder given an assignment) has every team that is no group of the
    assignment's as a student, as `judge grade --assignment` without a roster."""
    teams = contest.teams
    if any(str(g["id"]) == STUDENTS_GROUP for g in contest.groups):
        teams = tuple(t for t in teams if STUDENTS_GROUP in t.group_ids)
    else:
        teams = tuple(t for t in teams if t.id not in assignment.groups)
    names = {str(g["id"]): str(g.get("name", g["id"])) for g in contest.groups}
    out = []
    for t in teams:
        section = section_of(contest, t.id)
        out.append(Student(t.id, t.display_name or t.name, "", "" if section is None else names[section]))
    return tuple(sorted(out))


def course_submissions(counted: Iterable[Counted]) -> list[Submission]:
    """The stored submissions as the gradebook grades them (``Reader.counted``: ignored ones left out): each
    with its current judgement's score; None (counts nothing yet) when pending or a judge error."""
    out = []
    for c in counted:
        j, s = c.judgement, c.submission
        score = None if j is None or j.verdict in (None, "JE") else j.score
        out.append(Submission(s.team_id, s.problem_id, s.time_s, score, str(s.id)))
    return out


@dataclass(frozen=True)
class CourseView:
    """A course's rules as they are now, with the contest whose teams they apply to: what visibility.py and the
    services ask of a course (``Sight.course``)."""

    assignment: Assignment  # contest.yaml's, with the overrides set while serving
    contest: Contest
    published_s: float | None = None  # when the instructor published the grades (None: not published)

    @property
    def published(self) -> bool:
        return self.published_s is not None

    def resolved(self, team_id: str) -> Resolved:
        """The team's window and where it comes from."""
        return self.assignment.resolve(team_id, section_of(self.contest, team_id))

    def window(self, team_id: str) -> Window:
        return self.resolved(team_id).window

    def changed(self, since: float, now: float) -> set[str]:
        """The teams whose submissions' feedback differs between ``since`` and ``now`` for their own eyes (a
        switch passed: their due time, their close): what the event feed must publish again."""
        problems = [p.id for p in self.contest.problems]
        return {
            t.id
            for t in self.contest.teams
            if any(self.shown(True, False, t.id, p, since) != self.shown(True, False, t.id, p, now) for p in problems)
        }

    def shown(self, owner: bool, staff: bool, team_id: str, problem_id: str, now: float) -> Shown:
        """What a viewer sees now of a submission of ``team_id`` for ``problem_id`` (feedback.shown)."""
        if staff:
            return EVERYTHING
        if not owner:
            return NOTHING
        rules = self.assignment.feedback_for(problem_id)
        return shown(rules, Viewer.OWNER, self.window(team_id), now, self.published)


def withheld(j: JudgementRecord, shown: Shown) -> JudgementRecord:
    """``j`` as a viewer who is ``shown`` that much sees it: without its verdict and score (``samples``: the
    verdict would tell how the secret tests went), or without its score (the score hidden until the grades are
    published). A judgement being judged is shown as it is (nothing in it yet)."""
    if not j.done or shown.verdict and shown.score:
        return j
    if not shown.verdict:
        return replace(j, verdict=None, judgement_type=None, score=None, max_run_time=None, metric=None)
    return replace(j, score=None, metric=None)
