"""The Contest API's documents for whoever asks: each endpoint's collection as JSON, made from the
services' records (what the viewer may see: visibility.py). The API's handlers and the contest package
archive both take them from here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from judge.serve.model.apijson import (
    account_json,
    judgement_json,
    judgement_types_json,
    language_json,
    run_json,
    submission_json,
    team_json,
    with_penalty,
)
from judge.serve.services.board import board
from judge.serve.services.context import ServedContest
from judge.serve.services.desk import clarifications as clars
from judge.serve.services.judging import results, submissions
from judge.serve.services.lifecycle import awards as award_service
from judge.serve.services.problems import config
from judge.serve.services.problems.statements import problem_doc
from judge.serve.visibility import Sight, sees_group

Doc = dict[str, Any]


def contest(server: ServedContest, sight: Sight) -> Doc:
    return server.timeline.contest_json()


def state(server: ServedContest, sight: Sight) -> Doc:
    return sight.phase.state_json(sight.now)


def judgement_types(server: ServedContest, sight: Sight) -> list[Doc]:
    types = judgement_types_json()
    return with_penalty(types) if server.contest.info.pass_fail else types


def languages(server: ServedContest, sight: Sight) -> list[Doc]:
    info = server.contest.info
    return [
        language_json(lang, info.time_factor(lang.id), info.allows_language(lang.id))
        for lang in server.languages.values()
    ]


def problems(server: ServedContest, sight: Sight) -> list[Doc]:
    return [problem_doc(p, server.contest.info.id, server.statements) for p in config.problems(server, sight)]


def groups(server: ServedContest, sight: Sight) -> list[Doc]:
    hidden = server.contest.hidden_groups
    return [dict(g) for g in server.contest.groups if sees_group(sight, g["id"] in hidden)]


def organizations(server: ServedContest, sight: Sight) -> list[Doc]:
    return [dict(o) for o in server.contest.organizations]


def teams(server: ServedContest, sight: Sight) -> list[Doc]:
    return [team_json(t) for t in server.contest.teams]


def accounts(server: ServedContest, sight: Sight) -> list[Doc]:
    return [account_json(a) for a in config.accounts(server, sight)]


# The live collections: ``submission_ids`` narrows them to those submissions (and their judgements and runs)


def submissions_doc(server: ServedContest, sight: Sight, submission_ids: list[int] | None = None) -> list[Doc]:
    info = server.contest.info
    return [submission_json(s, info) for s in submissions.submissions(server, sight, submission_ids)]


def judgements(server: ServedContest, sight: Sight, submission_ids: list[int] | None = None) -> list[Doc]:
    info = server.contest.info
    return [judgement_json(j, info) for j in results.judgements(server, sight, submission_ids)]


def runs(server: ServedContest, sight: Sight, submission_ids: list[int] | None = None) -> list[Doc]:
    info = server.contest.info
    return [run_json(r, info) for r in results.runs(server, sight, submission_ids)]


def clarifications(server: ServedContest, sight: Sight, ids: list[str] | None = None) -> list[Doc]:
    return [v.json(server) for v in clars.views(server, sight, ids)]


def scoreboard_doc(server: ServedContest, sight: Sight, group_id: str | None = None) -> Doc:
    return board.scoreboard(server, sight, group_id)


def scoreboard_bytes(server: ServedContest, sight: Sight, group_id: str | None = None) -> bytes:
    """``scoreboard_doc`` as the API's JSON, its rows serialized once per board."""
    return board.scoreboard_bytes(server, sight, group_id)


def scoreboard_bytes_made(
    server: ServedContest, sight: Sight, group_id: str | None = None
) -> tuple[bytes, board.Claim | None] | None:
    """``scoreboard_bytes`` when it needs no storage and no ranking (None otherwise), and a claim when it is
    behind (board.scoreboard_bytes_made: the caller runs ``remake_board`` in a thread)."""
    return board.scoreboard_bytes_made(server, sight, group_id)


def remake_board(server: ServedContest, claim: board.Claim, answer: Callable[[], object]) -> None:
    """board.remake: in a thread, after an answer that was behind."""
    board.remake(server, claim, answer)


def awards(server: ServedContest, sight: Sight) -> list[Doc]:
    return award_service.awards_json(server, sight)
