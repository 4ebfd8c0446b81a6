"""A contest's database brought in line with its package when it is opened (the wiring, site/server.py): the
database claimed for the contest (its id, its scoreboard type kept once it has submissions) and its people
(the accounts table as the roster makes it), the configuration's events published (the contest, judgement
types, languages, the people), and what a phase change or a typeset statement publishes again."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from argon2 import PasswordHasher

from judge.serve.model.apijson import judgement_types_json, language_json, with_penalty
from judge.serve.model.contest import Contest, ContestError, People
from judge.serve.model.roster import Roster
from judge.serve.services.core.events import publish_if_changed, sync_collection
from judge.serve.services.judging.publishing import republish_judgements
from judge.serve.services.lifecycle.finalize import publish_if_final
from judge.serve.services.people import sessions
from judge.serve.services.people.accounts import sync_accounts
from judge.serve.services.people.live_roster import publish_people, stored_roster
from judge.serve.services.problems.statements import problem_doc
from judge.serve.storage import Storage, Writer
from judge.serve.visibility import problems_audience

if TYPE_CHECKING:
    from judge.serve.site.server import Server


def claim_contest(w: Writer, contest: Contest, storage: Storage) -> None:
    """Claim the contest's database for ``contest`` (its id, its scoreboard type)."""
    owner = w.get_meta("contest_id")
    if owner is not None and owner != contest.info.id:
        raise ContestError(
            f"{storage.where} holds contest {owner!r}, but contest.yaml says {contest.info.id!r}: "
            "move the database away to start a new contest"
        )
    w.set_meta("contest_id", contest.info.id)
    _claim_type(w, contest, storage)


def claim_people(w: Writer, people: People, hasher: PasswordHasher) -> Roster:
    """The people's roster in force (the files' with the stored changes over it), whose accounts the accounts
    table now holds; the sessions of an account whose password changed (or that is gone) end."""
    roster = stored_roster(people, w)
    for account_id in sync_accounts(w, roster.accounts, hasher):
        sessions.end_all(w, account_id)  # a changed password (or a removed account) ends its sessions
    return roster


def _claim_type(w: Writer, contest: Contest, storage: Storage) -> None:
    """A contest keeps its scoreboard type once it has submissions (a board ranked one way, then the other,
    would tell everyone a different story). The spec's default, pass-fail, applies when contest.yaml has
    no ``scoreboard_type``: a contest of an earlier release (all score contests) must now say so."""
    kind = contest.info.scoreboard_type.value
    before = w.get_meta("scoreboard_type")
    if before is not None and before != kind and w.latest_submission_s(math.inf) is not None:
        raise ContestError(
            f"{storage.where} holds the submissions of a {before} contest, but contest.yaml makes it {kind} "
            f"(without `scoreboard_type` a contest is pass-fail, as the spec says): write `scoreboard_type: "
            f"{before}` in contest.yaml, or move the database away to start a new contest"
        )
    w.set_meta("scoreboard_type", kind)


def publish_configuration(w: Writer, server: Server, now: float) -> None:
    contest, languages = server.contest, server.languages
    publish_if_changed(w, "contest", None, server.timeline.contest_json(), now=now)
    types = judgement_types_json()
    sync_collection(w, "judgement-types", with_penalty(types) if contest.info.pass_fail else types, now=now)
    factor, allows = contest.info.time_factor, contest.info.allows_language  # (allows: issue 47)
    langs = [language_json(lang, factor(lang.id), allows(lang.id)) for lang in languages.values()]
    sync_collection(w, "languages", langs, now=now)
    publish_people(w, contest, now)


def publish_problems(server: Server, w: Writer, now: float) -> None:
    """The problems' events: what changed (a PDF statement made), to whom the phase shows them."""
    phase, contest = server.timeline.phase, server.contest
    problems = [problem_doc(p, contest.info.id, server.statements) for p in contest.problems]
    audience = problems_audience(phase, now)
    sync_collection(w, "problems", problems, now=now, audience=lambda o: audience)


def on_phase_change(server: Server) -> Callable[[Writer, float, float | None], None]:
    """What a phase change reveals: the problems at the start, the frozen judgements at the thaw (and then,
    when the results were finalized before it, the final awards: services/lifecycle/finalize.py)."""

    def on_change(w: Writer, now: float, thawed_from: float | None) -> None:
        publish_problems(server, w, now)
        if thawed_from is not None:
            republish_judgements(w, server.timeline.phase, thawed_from, now, server.course.view(server.contest))
            publish_if_final(w, server, now)

    return on_change


def on_statement(server: Server) -> Callable[[], None]:
    """A PDF statement was typeset: the problems are published again (their ``statement`` is the PDF now)."""

    def on_ready() -> None:
        with server.storage.write() as w:
            publish_problems(server, w, server.clock.now())
        server.bus.notify()

    return on_ready
