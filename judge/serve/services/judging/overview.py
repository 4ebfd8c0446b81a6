"""The jury's overviews (issue 47): each team at a glance (logged in now, or when last seen; its rank,
submissions, problems solved, pending, open questions), and the statistics per problem and per language
(attempts, accepted, teams, the first solve) with the submissions over contest time in buckets, for a chart.
Both read the database as the jury sees it (live, every team, ignored submissions left out as the board
leaves them out); judges and admins only."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from judge.judging.verdict import Verdict
from judge.serve.model.records import Counted
from judge.serve.model.viewer import Viewer
from judge.serve.services.board import board
from judge.serve.services.board.context import ServedBoard
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.people import access
from judge.serve.storage import Reader

BUCKETS = 30  # the chart's bars over the contest's time


class ServedOverview(ServedJudging, ServedBoard, Protocol):
    """What the team overview reads: the judging's parts and the board (its ranks)."""


# --------------------------------------------------------------------------------------------- teams


@dataclass(frozen=True)
class TeamRow:
    team_id: str
    name: str
    rank: int | None
    logged_in: int  # live page sessions
    last_seen_s: float | None  # the newest of its login kept, submission, question, print-out
    submissions: int
    solved: int  # problems with a current accepted judgement
    pending: int  # submissions without a finished judgement (queued or being judged)
    open_questions: int  # its questions no judge has answered yet
    last_submission_s: float | None


def _counted(r: Reader, server: ServedJudging) -> list[Counted]:
    info = server.contest.info
    window = None if info.start_s is None or info.end_s is None else (info.start_s, info.end_s)
    return r.counted(window) if window is not None else []


def _open_questions(r: Reader) -> Counter[str]:
    clars = r.clarifications()
    answered = {x.reply_to_id for x in clars if not x.question}
    return Counter(x.from_team_id for x in clars if x.question and x.id not in answered and x.from_team_id)


def teams(server: ServedOverview, viewer: Viewer, now: float) -> list[TeamRow]:
    """Every team (hidden ones too), by rank on the jury's board, then by name."""
    access.staff(viewer, "see the team overview")
    sight = server.sight(viewer, now)
    _, ranked = board.ranked(server, sight)
    ranks = {row["team_id"]: row.get("rank") for row in ranked.rows}
    with server.storage.read() as r:
        counted = _counted(r, server)
        subs = [s for s in r.submissions() if not s.ignored]
        sessions = r.team_sessions(now)
        prints = r.last_prints()
        questions = _open_questions(r)
        asked: dict[str, float] = {}
        for clar in r.clarifications():
            if clar.from_team_id is not None:
                asked[clar.from_team_id] = max(asked.get(clar.from_team_id, 0.0), clar.time_s)
    solved: dict[str, set[str]] = {}
    pending: Counter[str] = Counter()
    for c in counted:
        if c.judgement is None:
            pending[c.submission.team_id] += 1
        elif c.judgement.verdict == Verdict.AC.value and (c.judgement.score or 0) >= (c.judgement.max_score or 0):
            solved.setdefault(c.submission.team_id, set()).add(c.submission.problem_id)
    count: Counter[str] = Counter(s.team_id for s in subs)
    last_sub: dict[str, float] = {}
    for s in subs:
        last_sub[s.team_id] = max(last_sub.get(s.team_id, 0.0), s.time_s)
    out = []
    for t in server.contest.teams:
        login = sessions.get(t.id)
        seen = [x for x in (login and login.last_login_s, last_sub.get(t.id), asked.get(t.id), prints.get(t.id)) if x]
        out.append(
            TeamRow(
                t.id,
                t.display_name or t.name,
                ranks.get(t.id),
                login.live if login else 0,
                max(seen) if seen else None,
                count[t.id],
                len(solved.get(t.id, ())),
                pending[t.id],
                questions[t.id],
                last_sub.get(t.id),
            )
        )
    return sorted(out, key=lambda row: (row.rank is None, row.rank or 0, row.name))


# --------------------------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class ProblemStats:
    problem_id: str
    label: str
    name: str
    rgb: str | None
    attempts: int
    accepted: int  # accepted submissions
    teams_tried: int
    teams_solved: int
    first_solve_s: float | None  # contest time of the first accepted submission
    first_team: str | None
    verdicts: dict[str, int]  # of its judged submissions


@dataclass(frozen=True)
class LanguageStats:
    language_id: str
    name: str
    attempts: int
    accepted: int
    teams: int


@dataclass(frozen=True)
class Bucket:
    start_s: float  # contest time
    accepted: int
    rejected: int
    pending: int


@dataclass(frozen=True)
class Statistics:
    problems: list[ProblemStats]
    languages: list[LanguageStats]
    buckets: list[Bucket]
    bucket_s: float
    duration_s: float
    total: int


def _accepted(c: Counted) -> bool:
    j = c.judgement
    return j is not None and j.verdict == Verdict.AC.value and (j.score or 0) >= (j.max_score or 0)


def statistics(server: ServedJudging, viewer: Viewer) -> Statistics:
    access.staff(viewer, "see the statistics")
    contest, info = server.contest, server.contest.info
    with server.storage.read() as r:
        counted = _counted(r, server)
    problems = []
    for p in contest.problems:
        mine = [c for c in counted if c.submission.problem_id == p.id]
        good = [c for c in mine if _accepted(c)]
        first = min(good, key=lambda c: (c.submission.time_s, c.submission.id)) if good else None
        team = contest.team(first.submission.team_id) if first else None
        problems.append(
            ProblemStats(
                p.id,
                p.label,
                p.name,
                p.rgb,
                len(mine),
                len(good),
                len({c.submission.team_id for c in mine}),
                len({c.submission.team_id for c in good}),
                info.contest_time_s(first.submission.time_s) if first else None,
                (team.display_name or team.name) if team else (first.submission.team_id if first else None),
                dict(Counter(str(c.judgement.verdict) for c in mine if c.judgement is not None)),
            )
        )
    languages = []
    for lang in server.languages.values():
        mine = [c for c in counted if c.submission.language_id == lang.id]
        languages.append(
            LanguageStats(
                lang.id,
                lang.name,
                len(mine),
                sum(1 for c in mine if _accepted(c)),
                len({c.submission.team_id for c in mine}),
            )
        )
    duration = max(info.duration_s, 1.0)
    size = max(60.0, math.ceil(duration / BUCKETS / 60) * 60)  # whole minutes
    buckets = [Bucket(i * size, 0, 0, 0) for i in range(max(1, math.ceil(duration / size)))]
    tallies = [[0, 0, 0] for _ in buckets]
    for c in counted:
        i = min(len(buckets) - 1, max(0, int(info.contest_time_s(c.submission.time_s) // size)))
        tallies[i][0 if _accepted(c) else 2 if c.judgement is None else 1] += 1
    buckets = [Bucket(b.start_s, *t) for b, t in zip(buckets, tallies, strict=True)]
    return Statistics(problems, languages, buckets, size, duration, len(counted))
