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
- Counterexamples for rejected submissions (issue 46, docs/explain.md): staff see every search and its
  input, whatever the policy; the submission's team sees the searches queued under ``counterexamples: team``
  (the problem's view when queued), the input only of those found within its limit (``per_team``), how
  the others stand without an input; nobody else learns that a search exists (``counterexample_sight``).
- Similar submissions (issue 49): the reports and the reviews of their pairs, the jury's only, at every phase
  (``sees_similarity``).
- A site of contests (issue 44): staff accounts see every contest, hidden or archived; everyone else sees the
  contests that are not hidden (``sees_contest``), a hidden one being exactly as unknown (a 404 like an
  unknown id); in each contest an account is seen as that contest sees it (``contest_viewer``): a team
  whose team does not take part is the public there. Everything of a contest is decided by its own rules
  above, over its own database: no object, id, count or event of another contest reaches it.
- What a run printed (issue 47): staff all of it; a team, of its own runs it sees, what contest.yaml's
  ``team_outputs`` allows (the sample tests' by default; never a secret test's input, answer or output
  unless it says ``all``): ``sees_run_output``.
- Verification (issue 47, contest.yaml's ``verification_required``): a judgement finished while it was required
  and not verified yet (``awaits_verification``) is the jury's only; everyone else is shown it as still being
  judged, and the judgement it replaces as current (``shown_judgements``: as they were published), the public
  board and the balloons the same; its runs too.
- Rejudging sets (issue 47): a set's judgements not applied yet are in no document (storage leaves them
  out); the jury reads and starts sets (``sees_previews``), judges and admins apply or cancel a rejudge set,
  admins a package version's (``changes_packages``).
- A balloon runner (accounts.yaml's ``type: balloon``, issue 47) sees the balloons and nothing else
  (``runner_only``): every other page and endpoint refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from judge.course.feedback import Shown
from judge.serve.model.counterexamples import CounterexampleView
from judge.serve.model.course import CourseView, withheld
from judge.serve.model.explanations import ExplainRecord, ExplainState
from judge.serve.model.phase import Phase
from judge.serve.model.records import (
    Audience,
    ClarificationRecord,
    EventRecord,
    JudgementRecord,
    Scope,
    SubmissionRecord,
)
from judge.serve.model.viewer import PUBLIC, Role, Viewer

EVERYONE = Audience(Scope.PUBLIC)
STAFF_ONLY = Audience(Scope.ADMIN)


@dataclass(frozen=True)
class Sight:
    """Who looks, at which phase of the contest, when."""

    viewer: Viewer
    phase: Phase
    now: float
    course: CourseView | None = None  # a course's assignment (issue 45): its rules and its teams' windows

    @property
    def staff(self) -> bool:
        return self.viewer.staff

    def own(self, team_id: str | None) -> bool:
        return team_id is not None and self.viewer.team_id == team_id


# --------------------------------------------------------------------------------------------- contests


def sees_contest(viewer: Viewer, hidden: bool) -> bool:
    """Whether a contest of the site exists for ``viewer`` (issue 44): staff see every contest; a hidden one
    is staff only (its teams too, from the moment it is hidden); the others are everyone's (a team that does
    not take part sees it as the public: ``contest_viewer``)."""
    return viewer.staff or not hidden


def contest_viewer(viewer: Viewer, takes_part: bool) -> Viewer:
    """``viewer`` (an account of the site, or the public) as one contest sees it: a team account whose team
    does not take part in the contest is the public there (it may not submit, and sees what the public sees);
    staff are staff in every contest."""
    if viewer.role is Role.TEAM and not takes_part:
        return PUBLIC
    return viewer


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
    ignored (issue 30: a judge left it out; it counts nowhere); in a course's assignment (issue 45), their own
    only (``course_owner``)."""
    return s.staff or (not sub.ignored and s.phase.in_contest(sub.time_s) and course_owner(s, sub))


def sees_judgement(s: Sight, sub: SubmissionRecord) -> bool:
    """A judgement of ``sub`` (its result): as the submission, except that while the board is frozen the
    results of submissions made since the freeze are their own team's only."""
    if not sees_submission(s, sub):
        return False
    return s.staff or s.own(sub.team_id) or not s.phase.hidden_by_freeze(sub.time_s, s.now)


def sees_runs(s: Sight, sub: SubmissionRecord, judgement: JudgementRecord) -> bool:
    """Per-test results: the submission's team and staff (the team once the judgement is verified, when the
    contest requires verification: issue 47)."""
    if not sees_submission(s, sub):
        return False
    return s.staff or (s.own(sub.team_id) and not awaits_verification(judgement))


def awaits_verification(judgement: JudgementRecord) -> bool:
    """A judgement finished while the contest required verification (issue 47, DOMjudge's
    ``verification_required``) that no judge verified yet: the jury's only until then. (Turning the option
    on later hides nothing already shown; turning it off shows what waited.)"""
    return judgement.done and judgement.awaiting


def shown_judgements(s: Sight, judgements: Sequence[JudgementRecord]) -> list[JudgementRecord]:
    """One submission's judgements (oldest first) as the viewer is shown them. Staff: as they are. Others,
    while verification is required: a judgement that awaits it as it was published when it was taken
    (being judged; current only if it is the submission's first), and then the newest verified one before
    it as current (its replacement was not published to them): what the event feed gave them."""
    return list(judgements) if s.staff else published_judgements(judgements)


def published_judgements(judgements: Sequence[JudgementRecord]) -> list[JudgementRecord]:
    """``shown_judgements`` for those who are not staff (the public board counts these too)."""
    if not any(awaits_verification(j) for j in judgements):
        return list(judgements)
    replaced = any(j.current and awaits_verification(j) for j in judgements)
    final = [j for j in judgements if j.done and not awaits_verification(j)]
    still = final[-1].id if replaced and final else None
    out = []
    for j in judgements:
        if awaits_verification(j):
            out.append(
                replace(
                    j,
                    current=j.ordinal == 1,
                    end_s=None,
                    verdict=None,
                    judgement_type=None,
                    score=None,
                    max_score=None,
                    max_run_time=None,
                    memory_kib=None,
                    metric=None,
                )
            )
        else:
            out.append(replace(j, current=True) if j.id == still else (replace(j, current=False) if replaced else j))
    return out


def sees_run_output(s: Sight, sub: SubmissionRecord, judgement: JudgementRecord, test_name: str) -> bool:
    """What a run printed (issue 47: its output, the diff against the answer, stderr, the validator's
    messages, and the test's input and answer): staff always; a team, of its own runs it sees, as
    contest.yaml's ``team_outputs`` says: the sample tests' (default), none, or all (then a secret test's
    input and answer too)."""
    if not sees_runs(s, sub, judgement):
        return False
    if s.staff:
        return True
    rule = s.phase.info.team_outputs
    return rule == "all" or (rule == "samples" and test_name.split("/")[0] == "sample")


def sees_run_messages(s: Sight) -> bool:
    """The output validator's ``judgemessage.txt`` (issue 47): the jury's; a team reads ``teammessage.txt``
    (of the runs ``sees_run_output`` shows it)."""
    return s.staff


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
    verified_only: bool = False  # judgements awaiting verification count as shown_judgements shows them


def board_view(s: Sight) -> BoardView:
    return BoardView(
        frozen_from=None if s.staff else s.phase.frozen_from(s.now),
        show_problems=s.staff or s.phase.started(s.now),
        # (only while verification is required: else the public's board is the staff's, one cache entry)
        verified_only=not s.staff and s.phase.info.verification_required,
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


def applies_rejudgings(s: Sight) -> bool:
    """Applying or cancelling a rejudging set that judges again (issue 47): the jury, who may rejudge."""
    return s.staff


def runner_only(viewer: Viewer) -> bool:
    """A balloon runner's account (issue 47): the balloons page and its endpoints, nothing else."""
    return viewer.role is Role.BALLOON


def sees_balloons(s: Sight) -> bool:
    """The balloons (issue 30): the jury and the balloon runners (issue 47)."""
    return s.staff or s.viewer.role is Role.BALLOON


class CounterexampleSight(StrEnum):
    """How much of a rejected submission's counterexample search a viewer sees (issue 46)."""

    NONE = "none"  # nothing, not even that there is one (the same 404 as for a submission that has none)
    STATE = "state"  # how the search stands (searching, none found, withheld, the team's limit), no input
    FULL = "full"  # the input, the reference's answer, the program's output, the validator's message


def counterexample_sight(s: Sight, sub: SubmissionRecord, search: ExplainRecord) -> CounterexampleSight:
    """A counterexample search of ``sub`` (issue 46): staff see it all, whatever the policy; the submission's
    team sees those queued under ``show: team`` (the policy stored with the search: a change applies to later
    searches only), the input only once found within its per-team limit (``team_shown``), and nothing of a
    cancelled search (a rejudge accepted the submission, or the policy turned its problem off before it ran);
    everyone else nothing."""
    if not sees_submission(s, sub):
        return CounterexampleSight.NONE
    if s.staff:
        return CounterexampleSight.FULL
    if not s.own(sub.team_id) or search.policy.show is not CounterexampleView.TEAM:
        return CounterexampleSight.NONE
    if search.state is ExplainState.CANCELLED:
        return CounterexampleSight.NONE
    return CounterexampleSight.FULL if search.team_shown else CounterexampleSight.STATE


def awaits_counterexample(s: Sight, sub: SubmissionRecord, view: CounterexampleView) -> bool:
    """Whether a page of ``sub`` waits for a counterexample search the viewer would see, the problem's view of
    the policy being ``view`` now: staff unless it is off, the submission's team when it is ``team``."""
    if not sees_submission(s, sub) or view is CounterexampleView.OFF:
        return False
    return s.staff or (s.own(sub.team_id) and view is CounterexampleView.TEAM)


# --------------------------------------------------------------------------------------------- events


def submission_audience(phase: Phase, sub: SubmissionRecord, course: CourseView | None = None) -> Audience:
    """Everyone's (made during the contest, not ignored); a course's (issue 45): its student's."""
    seen = Scope.OWNER if course is not None else Scope.PUBLIC
    return Audience(seen if phase.in_contest(sub.time_s) and not sub.ignored else Scope.ADMIN, sub.team_id)


def judgement_audience(phase: Phase, sub: SubmissionRecord, now: float, judgement: JudgementRecord) -> Audience:
    """Everyone's (if the submission was made during the contest), frozen while the freeze hides it; the
    jury's while it awaits verification (issue 47)."""
    if not phase.in_contest(sub.time_s) or sub.ignored or awaits_verification(judgement):
        return Audience(Scope.ADMIN, sub.team_id)
    return Audience(Scope.PUBLIC, sub.team_id, frozen=phase.hidden_by_freeze(sub.time_s, now))


def run_audience(
    phase: Phase,
    sub: SubmissionRecord,
    judgement: JudgementRecord,
    course: CourseView | None = None,
    run_name: str = "",
    now: float = 0.0,
) -> Audience:
    """Its team's (and staff's); the jury's while its judgement awaits verification (issue 47); a course's
    (issue 45): staff only while the feedback rules hide the test from its student (``course_sees_run``;
    published again when that changes: services/judging/course_feedback.py)."""
    if not phase.in_contest(sub.time_s) or sub.ignored or awaits_verification(judgement):
        return Audience(Scope.ADMIN, sub.team_id)
    if course is not None and not _run_shown(course.shown(True, False, sub.team_id, sub.problem_id, now), run_name):
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


# --------------------------------------------------------------------------------------------- a course (issue 45)


def course_shown(s: Sight, team_id: str, problem_id: str) -> Shown | None:
    """In a course's assignment (``s.course``), what the viewer sees now of a submission of ``team_id`` for
    ``problem_id`` (judge/course/feedback.py): staff everything; the student (the team) what the feedback level
    in force gives (before or after their switch: their due time, their close, or the grades published; the
    score until published when the instructor says so); anyone else nothing. None: the contest is no course's
    (the rules above apply)."""
    if s.course is None:
        return None
    return s.course.shown(s.own(team_id), s.staff, team_id, problem_id, s.now)


def sees_course_row(s: Sight, team_id: str) -> bool:
    """A course's board (its scores after the late penalty): staff see every student's row, a student their own
    row only (no rank among the others), the public no row: a class's board is not public."""
    return s.staff or s.own(team_id)


def course_owner(s: Sight, sub: SubmissionRecord) -> bool:
    """In a course's assignment (``s.course``) a submission is its student's (and staff's) only: another student
    and the public do not learn it exists. Outside a course: True (the contest's rules)."""
    return s.course is None or s.own(sub.team_id)


def course_judgement(s: Sight, sub: SubmissionRecord, j: JudgementRecord) -> JudgementRecord:
    """A judgement of ``sub`` as the viewer may see it: in a course, without the verdict and the score, or without
    the score, while the feedback rules hide them from the student (``course_shown``; model/course.withheld);
    otherwise as it is."""
    shown = course_shown(s, sub.team_id, sub.problem_id)
    return j if shown is None else withheld(j, shown)


def _run_shown(shown: Shown, run_name: str) -> bool:
    return shown.sample_tests if run_name.split("/")[0] == "sample" else shown.secret_verdicts


def course_sees_run(s: Sight, sub: SubmissionRecord, run_name: str) -> bool:
    """One test's result of ``sub`` (the viewer sees its runs: ``sees_runs``): in a course, a sample test's while
    the feedback rules show the samples, a secret test's while they show each test's verdict. In `judge serve`
    a secret test's message and output are never a team's (``test_detail``), so a course's ``verdicts`` and
    ``details`` levels show the same: each secret test's verdict and time."""
    shown = course_shown(s, sub.team_id, sub.problem_id)
    return shown is None or _run_shown(shown, run_name)


def judgement_versions(
    phase: Phase, sub: SubmissionRecord, j: JudgementRecord, now: float, course: CourseView | None = None
) -> tuple[tuple[Audience, JudgementRecord], ...]:
    """The versions of a judgement the event feed publishes, each with its audience: ``judgement_audience``'s;
    in a course (issue 45), the student's own (``Scope.OWNER``), or, while the feedback rules withhold some of
    it from them, the whole for staff and the cut one (model/course.withheld) for the student."""
    audience = judgement_audience(phase, sub, now, j)
    if course is None:
        return ((audience, j),)
    if audience.scope is Scope.ADMIN:
        return ((audience, j),)
    cut = withheld(j, course.shown(True, False, sub.team_id, sub.problem_id, now))
    if cut == j:
        return ((Audience(Scope.OWNER, sub.team_id), j),)
    return ((Audience(Scope.ADMIN, sub.team_id), j), (Audience(Scope.TEAMS, team_ids=(sub.team_id,), staff=False), cut))
