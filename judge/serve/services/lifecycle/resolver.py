"""The resolver page's ceremony (scoreboard/resolver.py): the main board's teams, every submission made
during the contest with its result, those the freeze hides, and each team's final award citations (the
awards module's, the admins' edits applied). Admins, once the contest has ended; pass-fail contests."""

from __future__ import annotations

from judge.scoreboard.passfail import Team
from judge.scoreboard.resolver import Ceremony
from judge.serve.model.board import attempts, passfail_tries
from judge.serve.model.errors import Refused
from judge.serve.services.board import board
from judge.serve.services.board.context import ServedBoard
from judge.serve.services.lifecycle import awards
from judge.serve.services.people import access
from judge.serve.visibility import Sight


def ceremony(server: ServedBoard, sight: Sight) -> Ceremony:
    """Refused (403) but for admins, (409) before the end or for a score contest."""
    access.admin(sight.viewer, "run the resolver")
    contest, phase = server.contest, sight.phase
    info = contest.info
    if not info.pass_fail:
        raise Refused(409, "the resolver is for pass-fail contests")
    if info.start_s is None or info.end_s is None or sight.now < info.end_s:
        raise Refused(409, "the resolver opens once the contest has ended")
    main = board.main_contest(board.without_hidden(contest))  # the audience's: no hidden team
    with server.storage.read() as r:
        tries = attempts(r.counted((info.start_s, info.end_s)), frozen_from=None)
        final = awards.final(r, contest)
    freeze = phase.freeze_s
    hidden = {i for i, a in enumerate(tries) if freeze is not None and a.time_s >= freeze}
    citations: dict[str, list[str]] = {}
    for award in final:
        for team_id in award.team_ids or ():
            citations.setdefault(team_id, []).append(award.citation)
    teams = [Team(t.id, t.name) for t in main.teams]
    return Ceremony(
        problem_ids=[p.id for p in contest.problems],
        teams=teams,
        tries=passfail_tries(main, tries),
        hidden=hidden,
        citations=citations,
        penalty_s=info.penalty_s,
    )
