"""Who may see what: the one place that decides it. Pure functions of who asks (a ``Viewer``), the
contest's phase and the time (together a ``Sight``) and the object; the API, the event feed, the pages,
the scoreboard and the downloads all ask here (docs/serve.md, "Who sees what", has the same rules as a
table, and tests/test_serve_visibility.py states and checks them).

- Staff (judges, admins) see everything, live, including submissions made outside the contest (an
  admin's tests).
- Everyone sees the contest, its state, judgement types, languages, groups, organizations and teams; the
  problems from the start on (staff: always).
- Public and teams see the submissions made during the contest (not their files) and their judgements;
  while the board is frozen, the judgements of submissions made since the freeze only their own team.
- A team sees its own account, its own files and its own runs (per-test results); on its pages, a secret
  test's verdict and time only (sample tests in full).
- The scoreboard: public and teams see it frozen during the freeze (submissions since count as pending),
  with problem columns from the start on; staff see it live.
- An event (a row of the event feed) carries the audience decided here when it was published
  (``*_audience``); ``sees_event`` reads it. At the thaw the frozen judgements are published again, for all.
- Groups marked hidden (and their boards): staff only; their teams are on no main board, nor in an award.
- Awards: as the board the viewer sees (frozen for public and teams during the freeze); the awards page and
  the medals on the board only once the final results are public (the contest over, the board thawed or
  never frozen: ``shows_final_results``); an admin's edited
  award as the admin left it, for everyone. The awards on the feed are final ones (at finalize) and the
  admins' edits after that, for everyone.
- Clarifications: a team sees its own questions, what the jury sent to it (or to a group of its) and what
  was sent to everyone; the public what was sent to everyone; staff all. A team never sees another team's
  question, nor which other teams an answer went to; an answer's ``reply_to_id`` only whoever sees the
  question (the spec's rule), and an answer to everyone brings the question's text (not its team) to the
  others (``clarification_shape``). Each kind of viewer's version is one event (``clarification_audiences``).
- Live fuzzing (issue 33): its counterexamples, the jury's only, at every phase (``sees_fuzzing``).
- Similar submissions (issue 49): the reports and the reviews of their pairs, the jury's only, at every phase
  (``sees_similarity``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from judge.serve.model.phase import Phase
from judge.serve.model.records import (
    Audience,
    ClarificationRecord,
    EventRecord,
    JudgementRecord,
    Scope,
    SubmissionRecord,
)
from judge.serve.model.viewer import Role, Viewer

EVERYONE = Audience(Scope.PUBLIC)
STAFF_ONLY = Audience(Scope.ADMIN)


@dataclass(frozen=True)
class Sight:
    """Who looks, at which phase of the contest, when."""

    viewer: Viewer
    phase: Phase
    now: float

    @property
    def staff(self) -> bool:
        return self.viewer.staff

    def own(self, team_id: str | None) -> bool:
        return team_id is not None and self.viewer.team_id == team_id


# --------------------------------------------------------------------------------------------- objects


def sees_problems(s: Sight) -> bool:
    """Problems (and their statements and samples) are secret until the contest starts."""
    return s.staff or s.phase.started(s.now)


def sees_hidden_teams(s: Sight) -> bool:
    """Whether the scoreboard shows the hidden teams (issue 30: an admin hid them; still judged): staff only."""
    return s.staff


def sees_account(s: Sight, account_id: str) -> bool:
    return s.staff or (s.viewer.account_id is not None and s.viewer.account_id == account_id)


def sees_submission(s: Sight, sub: SubmissionRecord) -> bool:
    """Staff: all; others: those made during the contest (an admin's test outside it stays hidden) and not
    ignored (issue 30: a judge left it out; it counts nowhere)."""
    return s.staff or (not sub.ignored and s.phase.in_contest(sub.time_s))


def sees_judgement(s: Sight, sub: SubmissionRecord) -> bool:
    """A judgement of ``sub`` (its result): as the submission, except that while the board is frozen the
    results of submissions made since the freeze are their own team's only."""
    if not sees_submission(s, sub):
        return False
    return s.staff or s.own(sub.team_id) or not s.phase.hidden_by_freeze(sub.time_s, s.now)


def sees_runs(s: Sight, sub: SubmissionRecord) -> bool:
    """Per-test results: the submission's team and staff."""
    return sees_submission(s, sub) and (s.staff or s.own(sub.team_id))


class FileAccess(StrEnum):
    ALLOWED = "allowed"
    NOT_FOUND = "not found"  # the submission is not visible at all
    LOGIN = "log in"  # visible, but files need an account
    FORBIDDEN = "forbidden"  # another team's


def file_access(s: Sight, sub: SubmissionRecord | None) -> FileAccess:
    """A submission's files: its team and staff."""
    if sub is None or not sees_submission(s, sub):
        return FileAccess.NOT_FOUND
    if s.viewer.role is Role.PUBLIC:
        return FileAccess.LOGIN
    return FileAccess.ALLOWED if s.staff or s.own(sub.team_id) else FileAccess.FORBIDDEN


def shown_verdict(s: Sight, judgement: JudgementRecord) -> str | None:
    """The verdict a page shows: staff our own (PV stays PV), others the spec's judgement type."""
    if not judgement.done:
        return None
    return judgement.verdict if s.staff else judgement.judgement_type


class Detail(StrEnum):
    FULL = "full"  # name, verdict, time, memory, message, transcript
    VERDICT = "verdict"  # verdict and time only


def test_detail(s: Sight, test_name: str) -> Detail:
    """How much of one test's result a page shows: a team sees its sample tests in full and its secret
    tests' verdicts only (names and messages would leak the data); staff see everything."""
    if s.staff or test_name.split("/")[0] == "sample":
        return Detail.FULL
    return Detail.VERDICT


def sees_measured_time(s: Sight) -> bool:
    """A test stopped at its time limit (TLE): staff see the CPU time measured; a team sees "> the limit" on
    its pages (as DOMjudge and Kattis: what was measured past the limit is where the sandbox stopped the
    program, not its running time). The API's runs keep the measured ``run_time``, the spec's number."""
    return s.staff


@dataclass(frozen=True)
class BoardView:
    frozen_from: float | None  # results of submissions from then on count as pending; None: live
    show_problems: bool  # the per-problem cells


def board_view(s: Sight) -> BoardView:
    return BoardView(
        frozen_from=None if s.staff else s.phase.frozen_from(s.now),
        show_problems=s.staff or s.phase.started(s.now),
    )


def shows_final_results(s: Sight) -> bool:
    """The awards page and the medals on the board (issue 43): the final results, for everyone once the
    contest has ended and the board is not frozen for the public (thawed, or never frozen); before that
    nobody gets them there (staff see the awards page, marked as theirs only). The awards endpoint is
    another matter: it gives the awards of the board the viewer sees, at any time."""
    return s.phase.results_public(s.now)


def sees_group(s: Sight, hidden: bool) -> bool:
    """A hidden group (groups.json's ``hidden: true``), its object and its board: staff only."""
    return s.staff or not hidden


def group_audience(hidden: bool) -> Audience:
    return STAFF_ONLY if hidden else EVERYONE


def sees_downloads(s: Sight) -> bool:
    """results.json and the contest package archive (everything, live): staff."""
    return s.staff


def sees_fuzzing(s: Sight) -> bool:
    """Live fuzzing (issue 33): its jobs and counterexamples, the Fuzzing page, the extension endpoint: the
    jury (staff) only, at every phase, also after the contest (docs/live-fuzzing.md)."""
    return s.staff


def sees_similarity(s: Sight) -> bool:
    """Similar submissions (issue 49, docs/similarity.md): the reports, their pairs side by side, computing
    them and marking a pair reviewed: the jury (staff) only, at every phase. Teams and the public never learn
    that a report exists, nor which teams it pairs."""
    return s.staff


def sees_previews(s: Sight) -> bool:
    """Package versions and rejudge previews (issue 33): reading them and starting a preview ("add as
    test"): the jury, like the fuzzing they come from."""
    return s.staff


def changes_packages(s: Sight) -> bool:
    """Applying or discarding a preview, uploading a package version (issue 33): admins only."""
    return s.viewer.role is Role.ADMIN


# --------------------------------------------------------------------------------------------- events


def submission_audience(phase: Phase, sub: SubmissionRecord) -> Audience:
    return Audience(Scope.PUBLIC if phase.in_contest(sub.time_s) and not sub.ignored else Scope.ADMIN, sub.team_id)


def judgement_audience(phase: Phase, sub: SubmissionRecord, now: float) -> Audience:
    """Everyone's (if the submission was made during the contest), frozen while the freeze hides it."""
    if not phase.in_contest(sub.time_s) or sub.ignored:
        return Audience(Scope.ADMIN, sub.team_id)
    return Audience(Scope.PUBLIC, sub.team_id, frozen=phase.hidden_by_freeze(sub.time_s, now))


def run_audience(phase: Phase, sub: SubmissionRecord) -> Audience:
    if not phase.in_contest(sub.time_s) or sub.ignored:
        return Audience(Scope.ADMIN, sub.team_id)
    return Audience(Scope.OWNER, sub.team_id)


def problems_audience(phase: Phase, now: float) -> Audience:
    return EVERYONE if phase.started(now) else STAFF_ONLY


def account_audience(team_id: str | None) -> Audience:
    """A team's account: that team (and staff); a judge's or admin's: staff."""
    return Audience(Scope.OWNER, team_id) if team_id else STAFF_ONLY


def sees_event(s: Sight, event: EventRecord) -> bool:
    return sees_audience(s, event.audience)


def sees_audience(s: Sight, a: Audience) -> bool:
    """Whether an event published for ``a`` is in the viewer's feed. It depends on who looks and the audience
    only, never on the time: a viewer's stream only grows, so the tokens that number it (services/core/events.py)
    never change."""
    if s.staff:
        return a.staff
    return reach(a).includes(s.viewer.team_id)


@dataclass(frozen=True)
class Reach:
    """Which of those who are not staff an audience reaches: the teams named (``but`` False), or everyone
    but them (``but`` True); the public is the team None. The event feed groups a stretch of the log by it
    once for all open feeds (services/core/events.py) instead of asking each event for each feed."""

    teams: frozenset[str] = frozenset()
    but: bool = False

    def includes(self, team_id: str | None) -> bool:
        if self.but:
            return team_id not in self.teams
        return team_id is not None and team_id in self.teams


EVERYBODY, NOBODY = Reach(but=True), Reach()


def reach(a: Audience) -> Reach:
    """Whom of those not staff an event published for ``a`` reaches (sees_audience's rule for them)."""
    if a.scope is Scope.PUBLIC and not a.frozen:
        return EVERYBODY
    if a.scope in (Scope.PUBLIC, Scope.OWNER):  # frozen, or the owner's: its team only
        return NOBODY if a.team_id is None else Reach(frozenset((a.team_id,)))
    if a.scope is Scope.TEAMS:
        return Reach(frozenset(a.team_ids))
    if a.scope is Scope.OTHERS:
        return Reach(frozenset(a.team_ids), but=True)
    return NOBODY


# --------------------------------------------------------------------------------------------- clarifications


def _reach(c: ClarificationRecord) -> frozenset[str] | None:
    """The teams a clarification is for besides staff: a question its team; None: everyone, the public too."""
    if c.from_team_id is not None:
        return frozenset((c.from_team_id,))
    return None if c.recipients is None else frozenset(c.recipients)


def sees_clarification(s: Sight, c: ClarificationRecord) -> bool:
    """Staff: all. A team: its own questions and what was sent to it; everyone: what was sent to everyone
    (announcements and answers to all), before the start too."""
    if s.staff:
        return True
    reach = _reach(c)
    return reach is None or (s.viewer.team_id is not None and s.viewer.team_id in reach)


@dataclass(frozen=True)
class ClarShape:
    """How a viewer who sees a clarification is shown it."""

    link: bool  # reply_to_id: only to whoever sees the clarification it answers (the spec's rule)
    quote: bool  # the answered question's text comes with the answer (never its team): an answer to everyone
    teams: tuple[str, ...] | None  # the to_team_ids shown; None: as sent (staff; or it has none)


def _shown_teams(team_id: str | None, c: ClarificationRecord) -> tuple[str, ...] | None:
    """A team sees itself among the recipients, never the other teams (they asked, or were told)."""
    if c.to_team_ids is None:
        return None
    return (team_id,) if team_id is not None and team_id in c.to_team_ids else ()


def clarification_shape(s: Sight, c: ClarificationRecord, replied: ClarificationRecord | None) -> ClarShape:
    """For a clarification ``s`` sees, answering ``replied`` (None: it answers nothing)."""
    link = replied is not None and sees_clarification(s, replied)
    quote = replied is not None and not link and replied.question and c.to_everyone
    return ClarShape(link, quote, None if s.staff else _shown_teams(s.viewer.team_id, c))


def clarification_audiences(
    c: ClarificationRecord, replied: ClarificationRecord | None
) -> tuple[tuple[Audience, ClarShape], ...]:
    """The versions of a clarification the event feed publishes, each with its audience: together, every
    viewer who sees it (``sees_clarification``) gets exactly the version ``clarification_shape`` gives it."""
    full = ClarShape(replied is not None, False, None)
    reach, seen = _reach(c), None if replied is None else _reach(replied)
    if reach is None:
        if replied is None or seen is None:
            return ((EVERYONE, full),)
        teams = tuple(sorted(seen))
        cut = ClarShape(False, replied.question, None)
        return (
            (Audience(Scope.TEAMS, team_ids=teams), full),
            (Audience(Scope.OTHERS, team_ids=teams, staff=False), cut),
        )
    by_shape: dict[ClarShape, list[str]] = {}
    for team in sorted(reach):
        link = replied is not None and (seen is None or team in seen)
        by_shape.setdefault(ClarShape(link, False, _shown_teams(team, c)), []).append(team)
    versions = [(Audience(Scope.TEAMS, team_ids=tuple(t), staff=shape == full), shape) for shape, t in by_shape.items()]
    if full not in by_shape:
        versions.insert(0, (STAFF_ONLY, full))
    return tuple(versions)
