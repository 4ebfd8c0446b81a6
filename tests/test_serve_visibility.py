"""Who sees what in `judge serve` (issue 26): judge/serve/visibility.py's rules as a table a reader can
check against docs/serve.md ("Roles: who sees what", "Freeze", "Feedback"), and a Hypothesis property
that drives random small contests through the real app and checks that, for every role, the API, the
event feed, the pages, the scoreboard and the downloads reveal exactly the same objects, and exactly
those the rules allow (an oracle written from docs/serve.md, not from visibility.py).

The judging is the scripted JudgeFn (serve_fixtures.ScriptedJudge): AC for SUM_AC, WA for SUM_WA.
"""

from __future__ import annotations

import asyncio
import io
import json
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from serve_channels import Browser, LoopApi, api_board, by_id, feedback, folded, log_in, page_board, page_rows
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, Api, FakeClock, feed, make_server, write_contest

from judge.serve.model.contest import ContestInfo
from judge.serve.model.phase import Phase
from judge.serve.model.records import (
    Audience,
    ClarificationRecord,
    EventRecord,
    JudgementRecord,
    Scope,
    SubmissionRecord,
)
from judge.serve.model.times import format_time, parse_time
from judge.serve.model.viewer import PUBLIC, Role, Viewer
from judge.serve.services.lifecycle import control
from judge.serve.site.server import Server
from judge.serve.visibility import (
    Detail,
    FileAccess,
    Sight,
    board_view,
    clarification_audiences,
    clarification_shape,
    file_access,
    group_audience,
    judgement_audience,
    problems_audience,
    run_audience,
    sees_audience,
    sees_clarification,
    sees_downloads,
    sees_event,
    sees_group,
    sees_hidden_teams,
    sees_judgement,
    sees_problems,
    sees_runs,
    sees_submission,
    shows_final_results,
    submission_audience,
)
from judge.serve.visibility import (
    test_detail as detail_of,  # (not "test_*": pytest would collect it)
)

# The fixture contest (serve_fixtures.write_contest): 5 hours from T0, the last hour frozen.
START, FREEZE, END = T0, T0 + 4 * HOUR, T0 + 5 * HOUR
C = "/api/contests/test"
TEAMS = ("team1", "team2", "team3")
STAFF = ("judge", "admin")
USERS: tuple[str | None, ...] = (None, *TEAMS, *STAFF)  # None: the public

# ================================================================================================= the table

INFO = ContestInfo("test", "Test contest", "Test contest", start_s=START, duration_s=5 * HOUR, freeze_duration_s=HOUR)
THAW = END + HOUR / 2

# state -> (the phase, now)
STATES: dict[str, tuple[Phase, float]] = {
    "before": (Phase(INFO, freeze_s=FREEZE, thaw_s=None), START - HOUR),
    "running": (Phase(INFO, freeze_s=FREEZE, thaw_s=None), START + HOUR),
    "frozen": (Phase(INFO, freeze_s=FREEZE, thaw_s=None), START + 4.5 * HOUR),
    "thawed": (Phase(INFO, freeze_s=FREEZE, thaw_s=THAW, thawed_at=THAW), END + HOUR),
}

# team1's submissions: before the freeze, during it, and an admin's test before the start (outside the contest)
SUBMISSIONS: dict[str, SubmissionRecord] = {
    "pre": SubmissionRecord(1, "team1", "team1", "sum", "python3", "sum.py", START + HOUR / 2),
    "during": SubmissionRecord(2, "team1", "team1", "sum", "python3", "sum.py", START + 4.2 * HOUR),
    "outside": SubmissionRecord(3, "team1", "admin", "sum", "python3", "sum.py", START - 2 * HOUR),
}

# a finished judgement of a submission (the contests of these tables require no verification: issue 47)
JUDGED = JudgementRecord(1, 1, True, START, end_s=START + 60, verdict="AC", judgement_type="AC")

VIEWERS: dict[str, Viewer] = {
    "public": PUBLIC,
    "own": Viewer(Role.TEAM, "team1", "team1", "team1"),  # the submission's team
    "other": Viewer(Role.TEAM, "team2", "team2", "team2"),
    "judge": Viewer(Role.JUDGE, "judge", "judge"),
    "admin": Viewer(Role.ADMIN, "admin", "admin"),
}

# an event about team1's objects, for each kind of audience
AUDIENCES: dict[str, Audience] = {
    "public": Audience(Scope.PUBLIC, "team1"),
    "frozen": Audience(Scope.PUBLIC, "team1", frozen=True),
    "owner": Audience(Scope.OWNER, "team1"),
    "admin": Audience(Scope.ADMIN, "team1"),
}

Y, N = True, False
OK, NF, LOGIN, NO = FileAccess.ALLOWED, FileAccess.NOT_FOUND, FileAccess.LOGIN, FileAccess.FORBIDDEN
FULL, VERD = Detail.FULL, Detail.VERDICT

# Columns: the problems; the submission, its judgement, its runs, its files; the board (frozen: frozen_from
# is the freeze, else None (live); cells: show_problems); sees_event for an event of team1's whose audience is
# public / public but frozen / team1 (owner) / staff (admin); test_detail of a sample and of a secret test;
# the downloads (results.json, the contest package).
# fmt: off
TABLE = [
    # role    state      submission probs  sub  judg runs files  frozen cells  ev: pub frz own adm  sample secret dl
    ("public", "before",  "outside", N,    N,   N,   N,   NF,    N,     N,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "running", "pre",     Y,    Y,   Y,   N,   LOGIN, N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "running", "outside", Y,    N,   N,   N,   NF,    N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "frozen",  "pre",     Y,    Y,   Y,   N,   LOGIN, Y,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "frozen",  "during",  Y,    Y,   N,   N,   LOGIN, Y,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "frozen",  "outside", Y,    N,   N,   N,   NF,    Y,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "thawed",  "pre",     Y,    Y,   Y,   N,   LOGIN, N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "thawed",  "during",  Y,    Y,   Y,   N,   LOGIN, N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("public", "thawed",  "outside", Y,    N,   N,   N,   NF,    N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("own",    "before",  "outside", N,    N,   N,   N,   NF,    N,     N,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "running", "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "running", "outside", Y,    N,   N,   N,   NF,    N,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "frozen",  "pre",     Y,    Y,   Y,   Y,   OK,    Y,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "frozen",  "during",  Y,    Y,   Y,   Y,   OK,    Y,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "frozen",  "outside", Y,    N,   N,   N,   NF,    Y,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "thawed",  "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "thawed",  "during",  Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("own",    "thawed",  "outside", Y,    N,   N,   N,   NF,    N,     Y,         Y,  Y,  Y,  N,   FULL,  VERD,  N),
    ("other",  "before",  "outside", N,    N,   N,   N,   NF,    N,     N,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "running", "pre",     Y,    Y,   Y,   N,   NO,    N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "running", "outside", Y,    N,   N,   N,   NF,    N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "frozen",  "pre",     Y,    Y,   Y,   N,   NO,    Y,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "frozen",  "during",  Y,    Y,   N,   N,   NO,    Y,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "frozen",  "outside", Y,    N,   N,   N,   NF,    Y,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "thawed",  "pre",     Y,    Y,   Y,   N,   NO,    N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "thawed",  "during",  Y,    Y,   Y,   N,   NO,    N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("other",  "thawed",  "outside", Y,    N,   N,   N,   NF,    N,     Y,         Y,  N,  N,  N,   FULL,  VERD,  N),
    ("judge",  "before",  "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "running", "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "running", "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "frozen",  "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "frozen",  "during",  Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "frozen",  "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "thawed",  "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "thawed",  "during",  Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("judge",  "thawed",  "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "before",  "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "running", "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "running", "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "frozen",  "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "frozen",  "during",  Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "frozen",  "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "thawed",  "pre",     Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "thawed",  "during",  Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
    ("admin",  "thawed",  "outside", Y,    Y,   Y,   Y,   OK,    N,     Y,         Y,  Y,  Y,  Y,   FULL,  FULL,  Y),
]

# The audience an event gets when it is published (the feed reads it back with sees_event): for team1's
# submission, its judgement and its runs, in each state; and the problems.
# state      submission  submission    judgement     frozen  runs          problems
AUDIENCE_TABLE = [
    ("before",  "outside", Scope.ADMIN,  Scope.ADMIN,  N,      Scope.ADMIN,  Scope.ADMIN),
    ("running", "pre",     Scope.PUBLIC, Scope.PUBLIC, N,      Scope.OWNER,  Scope.PUBLIC),
    ("running", "outside", Scope.ADMIN,  Scope.ADMIN,  N,      Scope.ADMIN,  Scope.PUBLIC),
    ("frozen",  "pre",     Scope.PUBLIC, Scope.PUBLIC, N,      Scope.OWNER,  Scope.PUBLIC),
    ("frozen",  "during",  Scope.PUBLIC, Scope.PUBLIC, Y,      Scope.OWNER,  Scope.PUBLIC),
    ("frozen",  "outside", Scope.ADMIN,  Scope.ADMIN,  N,      Scope.ADMIN,  Scope.PUBLIC),
    ("thawed",  "pre",     Scope.PUBLIC, Scope.PUBLIC, N,      Scope.OWNER,  Scope.PUBLIC),
    ("thawed",  "during",  Scope.PUBLIC, Scope.PUBLIC, N,      Scope.OWNER,  Scope.PUBLIC),
    ("thawed",  "outside", Scope.ADMIN,  Scope.ADMIN,  N,      Scope.ADMIN,  Scope.PUBLIC),
]
# fmt: on


def row_id(row: Sequence[Any]) -> str:
    return "-".join(str(x) for x in row[:3])


@pytest.mark.parametrize("row", TABLE, ids=row_id)
def test_who_sees_what(row: tuple[Any, ...]) -> None:
    role, state, which, problems, submission, judgement, runs, files, frozen, cells, *rest = row
    ev_public, ev_frozen, ev_owner, ev_admin, sample, secret, downloads = rest
    phase, now = STATES[state]
    s = Sight(VIEWERS[role], phase, now)
    sub = SUBMISSIONS[which]
    assert sub.time_s <= now  # the situation exists: the submission was made by now
    board = board_view(s)
    seen = {
        "problems": sees_problems(s),
        "submission": sees_submission(s, sub),
        "judgement": sees_judgement(s, sub),
        "runs": sees_runs(s, sub, JUDGED),
        "files": file_access(s, sub),
        "board": (board.frozen_from, board.show_problems),
        "events": tuple(sees_event(s, EventRecord(1, "judgements", "1", "{}", a, now)) for a in AUDIENCES.values()),
        "tests": (detail_of(s, "sample/00"), detail_of(s, "secret/01")),
        "downloads": sees_downloads(s),
    }
    want = {
        "problems": problems,
        "submission": submission,
        "judgement": judgement,
        "runs": runs,
        "files": files,
        "board": (FREEZE if frozen else None, cells),
        "events": (ev_public, ev_frozen, ev_owner, ev_admin),
        "tests": (sample, secret),
        "downloads": downloads,
    }
    assert seen == want
    assert file_access(s, None) is NF  # no such submission: the same answer as one not visible


def test_the_table_covers_every_role_state_and_submission() -> None:
    """Every role in every state, with every submission that exists by then (none has been left out)."""
    wanted = {
        (role, state, which)
        for role in VIEWERS
        for state, (_, now) in STATES.items()
        for which, sub in SUBMISSIONS.items()
        if sub.time_s <= now
    }
    assert {tuple(r[:3]) for r in TABLE} == wanted and len(TABLE) == len(wanted)


# Issue 30, in every state: whether a role sees the hidden teams on the board, and team1's ignored submission
# (made during the contest, before the freeze): the submission, its judgement, its runs, its files.
# fmt: off
LIVE_TABLE = [
    # role    hidden teams  ignored: sub  judg runs files
    ("public", N,                    N,   N,   N,   NF),
    ("own",    N,                    N,   N,   N,   NF),
    ("other",  N,                    N,   N,   N,   NF),
    ("judge",  Y,                    Y,   Y,   Y,   OK),
    ("admin",  Y,                    Y,   Y,   Y,   OK),
]
# fmt: on


@pytest.mark.parametrize("state", [s for s in STATES if s != "before"])
@pytest.mark.parametrize("row", LIVE_TABLE, ids=lambda r: str(r[0]))
def test_hidden_teams_and_ignored_submissions(row: tuple[Any, ...], state: str) -> None:
    role, hidden, submission, judgement, runs, files = row
    phase, now = STATES[state]
    s = Sight(VIEWERS[role], phase, now)
    ignored = replace(SUBMISSIONS["pre"], ignored=True)
    assert sees_hidden_teams(s) is hidden
    seen = (
        sees_submission(s, ignored),
        sees_judgement(s, ignored),
        sees_runs(s, ignored, JUDGED),
        file_access(s, ignored),
    )
    assert seen == (submission, judgement, runs, files)
    # its events are the staff's only, whatever the state
    audiences = (submission_audience(phase, ignored), judgement_audience(phase, ignored, now, JUDGED))
    assert audiences == (Audience(Scope.ADMIN, "team1"), Audience(Scope.ADMIN, "team1"))
    assert run_audience(phase, ignored, JUDGED) == Audience(Scope.ADMIN, "team1")


@pytest.mark.parametrize("row", AUDIENCE_TABLE, ids=lambda r: f"{r[0]}-{r[1]}")
def test_the_audience_of_an_event(row: tuple[Any, ...]) -> None:
    state, which, submission, judgement, frozen, runs, problems = row
    phase, now = STATES[state]
    sub = SUBMISSIONS[which]
    assert submission_audience(phase, sub) == Audience(submission, "team1")
    assert judgement_audience(phase, sub, now, JUDGED) == Audience(judgement, "team1", frozen=frozen)
    assert run_audience(phase, sub, JUDGED) == Audience(runs, "team1")
    assert problems_audience(phase, now).scope is problems


# issue 31: a hidden group (groups.json's ``hidden: true``), its object, feed event and board: staff only, in
# every state; a group that is not hidden: everyone.
# fmt: off
GROUP_TABLE = [
    # role     hidden  shown
    ("public", Y,      N),
    ("public", N,      Y),
    ("own",    Y,      N),
    ("own",    N,      Y),
    ("judge",  Y,      Y),
    ("judge",  N,      Y),
    ("admin",  Y,      Y),
    ("admin",  N,      Y),
]
# fmt: on


@pytest.mark.parametrize("row", GROUP_TABLE, ids=lambda r: f"{r[0]}-{'hidden' if r[1] else 'shown'}")
def test_who_sees_a_group(row: tuple[Any, ...]) -> None:
    role, hidden, shown = row
    for phase, now in STATES.values():
        s = Sight(VIEWERS[role], phase, now)
        assert sees_group(s, hidden) is shown
        assert sees_audience(s, group_audience(hidden)) is shown  # the feed agrees with the endpoint


def test_the_final_results_are_everyones_after_the_thaw_and_nobodys_before() -> None:
    """The awards page and the medals on the board (issue 43): for every role once the contest is over and
    the board thawed, or never frozen; at no other state (staff's awards page says it is theirs only)."""
    ended_frozen = (Phase(INFO, freeze_s=FREEZE, thaw_s=None, finalized_at=END + 60), END + HOUR)
    never = Phase(replace(INFO, freeze_duration_s=0), freeze_s=None, thaw_s=None)
    cases = {**STATES, "finalized, frozen": ended_frozen, "never frozen, running": (never, START + HOUR)}
    cases["never frozen, over"] = (never, END)
    for state, (phase, now) in cases.items():
        for viewer in VIEWERS.values():
            want = state in ("thawed", "never frozen, over")
            assert shows_final_results(Sight(viewer, phase, now)) is want, (state, viewer)


# ================================================================================================= the channels


# ================================================================================================= the oracle


@dataclass(frozen=True)
class Made:
    id: str
    team_id: str
    time_s: float


@dataclass(frozen=True)
class Model:
    """What the test did, and the rules of docs/serve.md over it (independent of visibility.py): when the
    board froze (contest.yaml's freeze, or an admin's earlier one), when it thaws, the submissions made."""

    freeze_s: float = FREEZE
    thaw_s: float | None = None
    made: tuple[Made, ...] = ()

    def thawed(self, now: float) -> bool:
        return self.thaw_s is not None and now >= self.thaw_s

    def frozen(self, now: float) -> bool:
        return now >= self.freeze_s and not self.thawed(now)

    def sub(self, sid: str) -> Made:
        (found,) = [m for m in self.made if m.id == sid]
        return found

    def submissions(self, user: str | None) -> set[str]:
        """Staff: all; others: those made during the contest (an admin's test outside it stays hidden)."""
        return {m.id for m in self.made if user in STAFF or START <= m.time_s < END}

    def judged(self, user: str | None, now: float) -> set[str]:
        """The submissions whose judgements ``user`` sees: as the submissions, except that while the board
        is frozen the results of submissions made since the freeze are their team's only."""
        return {
            sid
            for sid in self.submissions(user)
            if user in STAFF
            or user == self.sub(sid).team_id
            or not (self.frozen(now) and self.sub(sid).time_s >= self.freeze_s)
        }

    def with_runs(self, user: str | None) -> set[str]:
        """The submissions whose runs ``user`` sees: the team's own, and staff all."""
        return {sid for sid in self.submissions(user) if user in STAFF or user == self.sub(sid).team_id}


def problem_max(server: Server) -> dict[str, float]:
    return {p.id: p.problem.secret.max_score for p in server.contest.problems}


def expected_cells(
    subs: Mapping[str, Any], judgements: Mapping[str, Any], maxima: Mapping[str, float]
) -> dict[str, dict[str, tuple[float, int, int]]]:
    """The board's cells (score, judged, pending) as the given (visible) submissions and judgements make
    them: per team and problem, the best current result counts; submissions without a visible result are
    pending; judged ones count up to the first with the full score."""
    current = {j["submission_id"]: j for j in judgements.values() if j["current"] and "judgement_type_id" in j}
    tries = sorted(
        (parse_time(s["time"], "time"), int(s["id"]), s)
        for s in subs.values()
        if START <= parse_time(s["time"], "time") < END
    )
    cells: dict[str, dict[str, tuple[float, int, int]]] = {t: {p: (0, 0, 0) for p in maxima} for t in TEAMS}
    for team in TEAMS:
        for problem, full in maxima.items():
            mine = [(t, s) for t, _, s in tries if s["team_id"] == team and s["problem_id"] == problem]
            judged = [(t, current[s["id"]]["score"]) for t, s in mine if s["id"] in current]
            full_at = next((t for t, score in judged if score >= full - 1e-9), None)
            counted = [score for t, score in judged if full_at is None or t <= full_at]
            cells[team][problem] = (
                max((score for _, score in judged), default=0),
                len(counted),
                len(mine) - len(judged),
            )
    return cells


# ================================================================================================= the actions


@dataclass(frozen=True)
class Advance:
    minutes: int


@dataclass(frozen=True)
class TeamSubmits:
    team: str
    accepted: bool


@dataclass(frozen=True)
class AdminSubmits:
    """An admin submits for a team: a test before the start or after the end, or one dated ``minutes_ago``
    (dated ahead only outside the contest: see test_an_admin_cannot_date_a_submission_ahead_...)."""

    team: str
    accepted: bool
    when: str  # before | after | ago
    minutes_ago: int


@dataclass(frozen=True)
class JudgePending:
    pass


@dataclass(frozen=True)
class Rejudge:
    pick: int


@dataclass(frozen=True)
class FreezeNow:
    pass


@dataclass(frozen=True)
class Thaw:
    minutes_after: int  # the thaw time: the end or now, whichever is later, plus this


@dataclass(frozen=True)
class Check:
    """Compare every channel now (and always after the last action)."""


Action = Advance | TeamSubmits | AdminSubmits | JudgePending | Rejudge | FreezeNow | Thaw | Check

ACTION_KINDS: dict[str, st.SearchStrategy[Action]] = {
    "advance": st.builds(Advance, st.sampled_from([1, 10, 40, 90])),  # across the start, the freeze and the end
    "submit": st.builds(TeamSubmits, st.sampled_from(TEAMS), st.booleans()),
    "admin submits": st.builds(
        AdminSubmits,
        st.sampled_from(TEAMS),
        st.booleans(),
        st.sampled_from(["before", "after", "ago"]),
        st.integers(0, 90),
    ),
    "judge": st.just(JudgePending()),
    "rejudge": st.builds(Rejudge, st.integers(0, 20)),
    "freeze": st.just(FreezeNow()),
    "thaw": st.builds(Thaw, st.sampled_from([0, 30])),
    "check": st.just(Check()),
}
# submitting and judging are as likely as everything else together
WEIGHTED = ["submit"] * 4 + ["judge"] * 3 + [k for k in ACTION_KINDS if k not in ("submit", "judge")]
ACTIONS = st.sampled_from(WEIGHTED).flatmap(ACTION_KINDS.__getitem__)
# when the contest clock starts, in minutes from the start: just before the start, before the freeze, in the
# freeze (most often: that is where the rules differ), near the end, or anywhere
START_MINUTES = st.one_of(st.sampled_from([-10, 200, 235, 245, 255, 270, 290]), st.integers(-60, 330))


@dataclass(frozen=True)
class World:
    """The server under test and the ways in: the API, and a browser for each role (None: the public)."""

    server: Server
    clock: FakeClock
    api: LoopApi
    pages: Mapping[str | None, Browser]


def act(w: World, model: Model, action: Action) -> Model:
    """Do ``action`` through the app; the model of what it did (and assert the app did what the rules say)."""
    w.clock.advance(1)  # requests at least a second apart (see test_a_freeze_at_the_instant_of_a_submission_...)
    now = w.clock.now()
    running = START <= now < END
    if isinstance(action, Advance):
        w.clock.advance(action.minutes * 60)
    elif isinstance(action, TeamSubmits):
        r = w.api.submit(action.team, files={"sum.py": SUM_AC if action.accepted else SUM_WA})
        assert r.status_code in ((201, 429) if running else (403,)), r.text
        if r.status_code == 201:
            return replace(model, made=(*model.made, Made(r.json()["id"], action.team, now)))
    elif isinstance(action, AdminSubmits):
        at = {"before": START - HOUR / 2, "after": END + HOUR / 2, "ago": now - action.minutes_ago * 60}[action.when]
        source = {"sum.py": SUM_AC if action.accepted else SUM_WA}
        r = w.api.submit("admin", files=source, team_id=action.team, time=format_time(at))
        assert r.status_code == 201, r.text
        event(f"an admin submits: {action.when}")
        return replace(model, made=(*model.made, Made(r.json()["id"], action.team, parse_time(r.json()["time"], "t"))))
    elif isinstance(action, JudgePending):
        w.server.judging.run_pending()
    elif isinstance(action, Rejudge) and model.made:
        sid = model.made[action.pick % len(model.made)].id
        assert w.api.request("POST", f"{C}/submissions/{sid}/rejudge", "admin").status_code == 202
        event("a rejudge")
    elif isinstance(action, FreezeNow):
        r = w.pages["admin"].post("/admin/freeze")
        assert r.status_code == 303
        frozen = r.headers["location"] == "/admin?message=the+scoreboard+is+frozen"
        assert frozen == (running and now < model.freeze_s), r.headers["location"]
        if frozen:
            event("an early freeze")
            return replace(model, freeze_s=now)
    elif isinstance(action, Check):
        check(w, model)
    elif isinstance(action, Thaw):
        at = max(now, END) + action.minutes_after * 60
        body = {"id": "test", "scoreboard_thaw_time": format_time(at)}
        r = w.api.request("PATCH", C, "admin", json=body)
        if model.thawed(now):
            assert r.status_code == 403, r.text
        else:
            assert r.status_code == (200 if at <= now else 204), r.text
            event("a thaw now" if at <= now else "a thaw scheduled")
            return replace(model, thaw_s=now if at <= now else at)
    return model


# ================================================================================================= the checks


def check(w: World, model: Model) -> None:
    """Every channel, for every role, against the others and against the model."""
    now = w.clock.now()
    api: dict[str | None, dict[str, dict[str, dict[str, Any]]]] = {}
    events: dict[str | None, dict[str, dict[str, dict[str, Any]]]] = {}
    for user in USERS:
        seen = {kind: by_id(w.api.get(f"{C}/{kind}", user).json()) for kind in ("submissions", "judgements", "runs")}
        seen["problems"] = by_id(w.api.get(f"{C}/problems", user).json())
        api[user] = seen
        events[user] = folded(feed(w.api, user))
        for kind, objects in seen.items():
            assert events[user].get(kind, {}) == objects, (user, kind)  # the feed: the same objects and values

    truth = api["admin"]
    if model.thawed(now) and any(m.time_s >= model.freeze_s for m in model.made):
        event("checked: thawed, with submissions made during the freeze")
    assert set(truth["submissions"]) == {m.id for m in model.made}
    judgement_of = {jid: j["submission_id"] for jid, j in truth["judgements"].items()}
    submission_of_run = {rid: judgement_of[r["judgement_id"]] for rid, r in truth["runs"].items()}
    for user in USERS:
        seen = api[user]
        assert set(seen["problems"]) == (set(problem_max(w.server)) if user in STAFF or now >= START else set())
        assert set(seen["submissions"]) == model.submissions(user), user
        want = {jid for jid, sid in judgement_of.items() if sid in model.judged(user, now)}
        assert set(seen["judgements"]) == want, user
        assert set(seen["runs"]) == {rid for rid, sid in submission_of_run.items() if sid in model.with_runs(user)}
        for kind in ("submissions", "judgements", "runs"):
            for oid, obj in seen[kind].items():
                assert obj == truth[kind][oid]  # never another shape or an older state than staff see
        # nothing a viewer may not see leaks: the results of others' submissions made since the freeze
        if user not in STAFF and model.frozen(now):
            hidden = {m.id for m in model.made if m.time_s >= model.freeze_s and m.team_id != user}
            assert not hidden & {j["submission_id"] for j in seen["judgements"].values()}, user
            assert not hidden & {j["submission_id"] for j in events[user].get("judgements", {}).values()}, user
            if hidden & set(judgement_of.values()):
                event("checked: a judgement hidden by the freeze")

    # the scoreboard: the API's is what the viewer's judgements make it (public and teams: the public's,
    # frozen; staff: everything, live), and the page shows the same cells
    maxima = problem_max(w.server)
    for user in USERS:
        board = w.api.get(f"{C}/scoreboard", user).json()
        basis = api[user] if user in STAFF else api[None]
        cells = expected_cells(basis["submissions"], basis["judgements"], maxima)
        for r in board["rows"]:
            if user in STAFF or now >= START:
                got = {c["problem_id"]: (c["score"], c["num_judged"], c["num_pending"]) for c in r["problems"]}
                assert got == cells[r["team_id"]], (user, r)
            else:
                assert "problems" not in r
            assert r["score"]["score"] == pytest.approx(sum(score for score, _, _ in cells[r["team_id"]].values()))
        assert page_board(w.pages[user].get("/scoreboard?fragment=1").text) == api_board(board), user

    # a team's submissions page: its own submissions, with the verdict of the current judgement it sees
    for team in TEAMS:
        seen = api[team]
        current = {j["submission_id"]: j.get("judgement_type_id") for j in seen["judgements"].values() if j["current"]}
        want_rows = {sid: current.get(sid) for sid, s in seen["submissions"].items() if s["team_id"] == team}
        assert page_rows(w.pages[team].get("/submissions?fragment=1").text) == want_rows, team
    # the organizers' page: every submission (our own verdicts: AC and WA here, as the spec's)
    current = {j["submission_id"]: j.get("judgement_type_id") for j in truth["judgements"].values() if j["current"]}
    for staff in STAFF:
        assert page_rows(w.pages[staff].get("/admin?fragment=1").text) == {
            s: current.get(s) for s in truth["submissions"]
        }

    # the contest package: what the API serves the admin
    archive = zipfile.ZipFile(io.BytesIO(w.pages["admin"].get("/admin/contest-package.zip").content))
    for kind in ("submissions", "judgements", "runs"):
        assert json.loads(archive.read(f"{kind}.json")) == list(truth[kind].values()), kind
    assert folded([json.loads(line) for line in archive.read("event-feed.ndjson").decode().splitlines()]) == folded(
        feed(w.api, "admin")
    )
    assert {n for n in archive.namelist() if n.startswith("submissions/")} == {
        f"submissions/{sid}/files.zip" for sid in truth["submissions"]
    }


def check_files_and_feedback(w: World, model: Model) -> None:
    """A submission's files: its team and staff; another team 403, the public 401; invisible ones 404. A
    team's feedback page: its own submissions made during the contest only (others' are a 404), with the
    verdict and the runs of the current judgement it sees in the API, the sample tests by name and the
    secret tests' verdicts only (no name, no message or transcript)."""
    for m in model.made:
        for user in USERS:
            status = w.api.get(f"{C}/submissions/{m.id}/files", user).status_code
            if m.id not in model.submissions(user):
                assert status == 404, (user, m)
            elif user in STAFF or user == m.team_id:
                assert status == 200, (user, m)
            else:
                assert status == (401 if user is None else 403), (user, m)
        for team in TEAMS:
            r = w.pages[team].request("GET", f"/submissions/{m.id}")
            if team != m.team_id or m.id not in model.submissions(team):
                assert r.status_code == 404, (team, m)
                continue
            assert r.status_code == 200, (team, m)
            judgements = w.api.get(f"{C}/judgements", team, params={"submission_id": m.id}).json()
            current = [j for j in judgements if j["current"] and "judgement_type_id" in j]
            runs = w.api.get(f"{C}/runs", team).json()
            shown = [run for run in runs if current and run["judgement_id"] == current[0]["id"]]
            assert feedback(r.text) == (current[0]["judgement_type_id"] if current else None, len(shown)), (team, m)
            assert "secret/" not in r.text and ("sample/00" in r.text) == bool(shown), (team, m)


# Scenarios that always run (then the random ones): what the rules are about, checked on the way.
FREEZE_AND_THAW = (
    230,  # 3 h 50 min into the contest: 10 minutes before the freeze
    [
        TeamSubmits("team1", True),
        TeamSubmits("team2", False),
        JudgePending(),
        Check(),
        Advance(15),  # frozen
        TeamSubmits("team2", True),
        TeamSubmits("team3", False),
        TeamSubmits("team1", False),
        AdminSubmits("team3", True, "ago", 5),  # dated into the freeze
        AdminSubmits("team1", True, "before", 0),  # an admin's test before the start
        JudgePending(),
        Check(),  # the results since the freeze: their team's (and staff's) only
        Rejudge(2),
        Rejudge(0),
        JudgePending(),
        Check(),
        Advance(90),  # over, still frozen
        Thaw(30),  # scheduled
        Check(),
        Advance(40),  # thawed
    ],
)
EARLY_FREEZE = (
    60,
    [
        TeamSubmits("team1", True),
        JudgePending(),
        Advance(10),
        FreezeNow(),
        TeamSubmits("team2", True),
        TeamSubmits("team2", False),
        JudgePending(),
        Check(),
        Rejudge(1),
        AdminSubmits("team2", False, "after", 0),  # an admin's test after the end
        JudgePending(),
        FreezeNow(),  # refused: frozen already
        Thaw(0),  # at the end
        Advance(90),
        Check(),
        Advance(90),
        Advance(90),  # thawed at the end
    ],
)
BEFORE_THE_START = (
    -10,
    [
        TeamSubmits("team1", True),  # refused: not started
        AdminSubmits("team1", True, "ago", 0),  # a test before the start
        JudgePending(),
        Check(),
        Advance(10),
        TeamSubmits("team3", False),
        FreezeNow(),  # a second after team3's submission: its result stays everyone's
        JudgePending(),
    ],
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@example(*FREEZE_AND_THAW)
@example(*EARLY_FREEZE)
@example(*BEFORE_THE_START)
@given(start_minutes=START_MINUTES, actions=st.lists(ACTIONS, min_size=3, max_size=12))
def test_every_channel_reveals_the_same(start_minutes: int, actions: list[Action]) -> None:
    """For a random small contest and every role: the API, the event feed, the pages, the scoreboard and the
    downloads show the same submissions, judgements and runs, and exactly those docs/serve.md allows; at
    every Check and at the end."""
    with tempfile.TemporaryDirectory() as tmp, asyncio.Runner() as runner:
        clock = FakeClock(T0 + start_minutes * 60)
        server = make_server(write_contest(Path(tmp) / "contest"), clock)
        try:
            api = LoopApi(server, runner)
            w, model = World(server, clock, api, {user: log_in(api, user) for user in USERS}), Model()
            for action in actions:
                model = act(w, model, action)
            check(w, model)
            check_files_and_feedback(w, model)
        finally:
            server.close()


# ================================================================================================= the freeze's edges

# An event's audience is decided once, when it is published (visibility.judgement_audience); whether a submission
# counts as "made since the freeze" must therefore never change after its result was published. Two ways it
# could, both closed: an admin dating a contest submission later than now (refused), and a freeze made at the very
# instant of a submission (the freeze starts after it). Each checks that the API and the feed agree.


def channels(api: Api, user: str | None) -> tuple[set[str], set[str]]:
    """The judgement ids the API and the event feed show ``user``."""
    shown = {j["id"] for j in api.get(f"{C}/judgements", user).json()}
    return shown, set(folded(feed(api, user)).get("judgements", {}))


def test_an_admin_cannot_date_a_submission_ahead_and_a_past_date_into_the_freeze_stays_hidden(tmp_path: Path) -> None:
    clock = FakeClock(T0 + HOUR)
    server = make_server(write_contest(tmp_path / "contest"), clock)
    try:
        api = Api.of(server)
        r = api.submit("admin", team_id="team2", time=format_time(FREEZE + HOUR / 2))  # dated into the freeze
        assert r.status_code == 400 and "later than now" in r.json()["message"]
        assert api.get(f"{C}/submissions", "admin").json() == []  # nothing stored
        clock.advance(FREEZE + 0.75 * HOUR - clock.now())  # frozen now: a date in the freeze is in the past
        r = api.submit("admin", team_id="team2", time=format_time(FREEZE + HOUR / 2))
        assert r.status_code == 201
        server.judging.run_pending()
        assert channels(api, "team2") == ({"1"}, {"1"})
        assert channels(api, None) == (set(), set())
        assert channels(api, "team1") == (set(), set())
    finally:
        server.close()


def test_a_freeze_at_the_instant_of_a_submission_starts_after_it(tmp_path: Path) -> None:
    clock = FakeClock(T0 + HOUR)
    server = make_server(write_contest(tmp_path / "contest"), clock)
    try:
        api = Api.of(server)
        assert api.submit("team2").status_code == 201
        server.judging.run_pending()  # published for everyone
        control.freeze_now(server, VIEWERS["admin"], clock.now())  # the same clock reading as the submission
        assert server.timeline.phase.board_frozen(clock.now() + 1e-3)
        for user in ("team2", None, "team1"):
            assert channels(api, user) == ({"1"}, {"1"}), user  # made before the freeze, in every channel
        clock.advance(1)
        assert api.submit("team1").status_code == 201  # made in the freeze: hidden from the others everywhere
        server.judging.run_pending()
        assert channels(api, "team1") == ({"1", "2"}, {"1", "2"})
        assert channels(api, None) == ({"1"}, {"1"})
    finally:
        server.close()


# ================================================================================================= clarifications

# team1's question, and what the jury sends: to everyone, to chosen teams or groups, and answers to team1's
# question with each mix of recipients; and a team's question about an answer. The viewers: team1 who asked
# ("own"), team2 ("other"), the public, staff; the events are checked for team3 too (it gets none of them).


def clar(cid: int, **kw: Any) -> ClarificationRecord:
    fields: dict[str, Any] = dict(
        id=cid,
        public_id=f"c{cid}",
        from_team_id=None,
        to_team_ids=None,
        to_group_ids=None,
        recipients=None,
        reply_to_id=None,
        problem_id=None,
        text=f"text {cid}",
        time_s=START + HOUR,
        account_id="judge",
    )
    return ClarificationRecord(**{**fields, **kw})


def chosen(cid: int, teams: tuple[str, ...], groups: tuple[str, ...], reached: tuple[str, ...], **kw: Any) -> Any:
    return clar(cid, to_team_ids=teams, to_group_ids=groups, recipients=reached, **kw)


QUESTION = clar(1, from_team_id="team1", problem_id="sum", account_id="team1")
CLARS: dict[str, tuple[ClarificationRecord, ClarificationRecord | None]] = {
    "question": (QUESTION, None),
    "announcement": (clar(2), None),
    "to team1": (chosen(3, ("team1",), (), ("team1",)), None),
    "to group of team2": (chosen(4, (), ("g2",), ("team2",)), None),
    "answer to the asker": (chosen(5, ("team1",), (), ("team1",), reply_to_id=1), QUESTION),
    "answer to all": (clar(6, reply_to_id=1), QUESTION),
    "answer to team2": (chosen(7, ("team2",), (), ("team2",), reply_to_id=1), QUESTION),
    "answer to team1, team2": (chosen(8, ("team1", "team2"), (), ("team1", "team2"), reply_to_id=1), QUESTION),
    "answer to a group of both": (chosen(9, (), ("g",), ("team1", "team2"), reply_to_id=1), QUESTION),
    "answer to team2 of an announcement": (chosen(10, ("team2",), (), ("team2",), reply_to_id=2), clar(2)),
    "team1 asks about an answer to all": (clar(11, from_team_id="team1", reply_to_id=6), clar(6, reply_to_id=1)),
}
NO = None  # not seen
T1, T2, NONE_ = ("team1",), ("team2",), ()

# role -> kind -> (link, quote, to_team_ids shown) of what it sees, or NO. Staff see everything, linked, as sent.
# fmt: off
CLAR_TABLE: dict[str, dict[str, tuple[bool, bool, tuple[str, ...] | None] | None]] = {
    "public": {
        "question": NO, "announcement": (N, N, None), "to team1": NO, "to group of team2": NO,
        "answer to the asker": NO, "answer to all": (N, Y, None), "answer to team2": NO,
        "answer to team1, team2": NO, "answer to a group of both": NO, "answer to team2 of an announcement": NO,
        "team1 asks about an answer to all": NO,
    },
    "own": {  # team1, who asked
        "question": (N, N, None), "announcement": (N, N, None), "to team1": (N, N, T1), "to group of team2": NO,
        "answer to the asker": (Y, N, T1), "answer to all": (Y, N, None), "answer to team2": NO,
        "answer to team1, team2": (Y, N, T1), "answer to a group of both": (Y, N, NONE_),
        "answer to team2 of an announcement": NO, "team1 asks about an answer to all": (Y, N, None),
    },
    "other": {  # team2: never team1's question, nor that team1 got the same answer
        "question": NO, "announcement": (N, N, None), "to team1": NO, "to group of team2": (N, N, NONE_),
        "answer to the asker": NO, "answer to all": (N, Y, None), "answer to team2": (N, N, T2),
        "answer to team1, team2": (N, N, T2), "answer to a group of both": (N, N, NONE_),
        "answer to team2 of an announcement": (Y, N, T2), "team1 asks about an answer to all": NO,
    },
}
# fmt: on


@pytest.mark.parametrize("role", [*CLAR_TABLE, "judge", "admin"])
@pytest.mark.parametrize("kind", list(CLARS))
def test_who_sees_which_clarification_and_how(role: str, kind: str) -> None:
    c, replied = CLARS[kind]
    for state in STATES:  # the same before, during and after the contest
        phase, now = STATES[state]
        s = Sight(VIEWERS[role], phase, now)
        want = CLAR_TABLE[role][kind] if role in CLAR_TABLE else (replied is not None, False, None)
        seen = sees_clarification(s, c)
        assert seen == (want is not None), (role, kind, state)
        if want is not None:
            shape = clarification_shape(s, c, replied)
            assert (shape.link, shape.quote, shape.teams) == want, (role, kind, state)


@pytest.mark.parametrize("kind", list(CLARS))
def test_the_events_of_a_clarification_give_each_viewer_its_version_once(kind: str) -> None:
    """For every viewer (the public, each team, staff): of the versions published for a clarification it sees
    exactly one, the one clarification_shape gives it; of one it does not see, none."""
    c, replied = CLARS[kind]
    versions = clarification_audiences(c, replied)
    phase, now = STATES["running"]
    viewers = [PUBLIC, *(Viewer(Role.TEAM, t, t, t) for t in ("team1", "team2", "team3")), VIEWERS["judge"]]
    for viewer in viewers:
        s = Sight(viewer, phase, now)
        got = [
            shape for a, shape in versions if sees_event(s, EventRecord(1, "clarifications", c.public_id, "{}", a, now))
        ]
        assert got == ([clarification_shape(s, c, replied)] if sees_clarification(s, c) else []), (kind, viewer)


# The audiences themselves, as published (scope, team_ids, staff): one version for all who see the same thing.
# fmt: off
CLAR_AUDIENCES = {
    "question": [(Scope.TEAMS, T1, Y)],
    "announcement": [(Scope.PUBLIC, NONE_, Y)],
    "to group of team2": [(Scope.TEAMS, T2, N), (Scope.ADMIN, NONE_, Y)],  # team2 is not shown in to_team_ids
    "answer to all": [(Scope.TEAMS, T1, Y), (Scope.OTHERS, T1, N)],  # the others: no link, the question quoted
    "answer to team1, team2": [(Scope.TEAMS, T1, N), (Scope.TEAMS, T2, N), (Scope.ADMIN, NONE_, Y)],
    "answer to a group of both": [(Scope.TEAMS, T1, N), (Scope.TEAMS, T2, N), (Scope.ADMIN, NONE_, Y)],
}
# fmt: on


@pytest.mark.parametrize("kind", list(CLAR_AUDIENCES))
def test_the_audiences_of_a_clarification(kind: str) -> None:
    got = sorted((a.scope, a.team_ids, a.staff) for a, _ in clarification_audiences(*CLARS[kind]))
    assert got == sorted(CLAR_AUDIENCES[kind])
