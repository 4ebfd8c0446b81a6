"""Balloons (issue 30): each team's first accepted submission of each problem, in the order they were
made, with the problem's colour and whether it was the first solve of the problem in the contest. Pure:
from the submissions the board counts (ignored ones are not among them), live (the freeze does not apply:
runners are staff)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from judge.judging.verdict import Verdict
from judge.serve.model.contest import Contest
from judge.serve.model.records import Counted


@dataclass(frozen=True)
class Balloon:
    submission_id: int
    time_s: float
    team_id: str
    team: str
    problem_id: str
    label: str
    rgb: str | None
    color: str | None
    first_to_solve: bool
    done: bool


def balloons(counted: Sequence[Counted], contest: Contest, done: Collection[int]) -> list[Balloon]:
    """One balloon per (team, problem) solved, in the order of the solving submissions."""
    out: list[Balloon] = []
    given: set[tuple[str, str]] = set()
    solved: set[str] = set()
    for c in counted:  # in the order they were made
        s, j = c.submission, c.judgement
        if j is None or j.verdict != Verdict.AC.value or (s.team_id, s.problem_id) in given:
            continue
        cp, team = contest.problem(s.problem_id), contest.team(s.team_id)
        given.add((s.team_id, s.problem_id))
        out.append(
            Balloon(
                submission_id=s.id,
                time_s=s.time_s,
                team_id=s.team_id,
                team=(team.display_name or team.name) if team else s.team_id,
                problem_id=s.problem_id,
                label=cp.label if cp else s.problem_id,
                rgb=cp.rgb if cp else None,
                color=cp.color if cp else None,
                first_to_solve=s.problem_id not in solved,
                done=s.id in done,
            )
        )
        solved.add(s.problem_id)
    return out
