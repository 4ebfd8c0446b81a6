"""The awards (the spec's ``awards`` endpoint): computed by scoreboard/awards.py from the board the viewer
sees (frozen for public and teams during the freeze: board.ranked), with the admins' edits applied (the
spec's "Modifying awards": POST, PUT, PATCH, DELETE; kept in storage, as the admin left them, whatever the
board does afterwards). The final awards go on the event feed when the contest is finalized
(services/lifecycle/finalize.py), and each admin's edit when it is made: so an edit publishes no team the public's
board does not show (``_reveals_nothing``: a PATCH of the citation alone during the freeze)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from judge.scoreboard.awards import Award, AwardGroup, Problem, awards, merged
from judge.scoreboard.passfail import Standings
from judge.serve.model.contest import Contest, valid_id
from judge.serve.model.errors import Refused
from judge.serve.model.records import AwardEdit
from judge.serve.model.viewer import PUBLIC, Viewer
from judge.serve.services.board import board
from judge.serve.services.board.context import ServedBoard
from judge.serve.services.core.events import publish, sync_collection
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Reader, Writer
from judge.serve.visibility import Sight, board_view


def computed(contest: Contest, standings: Standings | None) -> list[Award]:
    """What the main board's standings award (a score contest: nothing yet). Group winners for the groups
    that are not hidden."""
    if standings is None:
        return []
    problems = [Problem(p.id, p.label) for p in contest.problems]
    groups = [
        AwardGroup(str(g["id"]), str(g["name"]), {t.id for t in contest.teams if g["id"] in t.group_ids})
        for g in contest.groups
        if g["id"] not in contest.hidden_groups
    ]
    return awards(standings, problems, contest.info.medals, groups)


def _edits(edits: Sequence[AwardEdit]) -> list[tuple[str, Award | None]]:
    return [(e.id, None if e.removed else Award(e.id, e.citation, e.team_ids)) for e in edits]


def current(server: ServedBoard, sight: Sight) -> list[Award]:
    """The awards as the viewer's board decides them, the admins' edits applied."""
    _, ranked = board.ranked(server, sight)
    mine = computed(server.contest, ranked.standings) if board_view(sight).show_problems else []
    with server.storage.read() as r:
        return merged(mine, _edits(r.award_edits()))


MEDALS = {"gold-medal": "gold", "silver-medal": "silver", "bronze-medal": "bronze"}


def medals(server: ServedBoard, standings: Standings | None) -> dict[str, str]:
    """Each medal holder's colour on the board whose standings these are (the awards as served: the
    computed ones with the admins' edits; a team in two medal awards gets the better)."""
    with server.storage.read() as r:
        served = merged(computed(server.contest, standings), _edits(r.award_edits()))
    out: dict[str, str] = {}
    for award_id in reversed(MEDALS):
        for a in served:
            if a.id == award_id:
                out.update(dict.fromkeys(a.team_ids or (), MEDALS[award_id]))
    return out


def ordered(awards_served: Sequence[Award], contest: Contest) -> list[Award]:
    """The awards in the order a ceremony gives them: the winner, the medals, the group winners, the first
    to solve each problem (in the problems' order), then the admins' own."""
    labels = [p.id for p in contest.problems]

    def place(a: Award) -> tuple[int, int, str]:
        if a.id == "winner":
            return (0, 0, "")
        if a.id in MEDALS:
            return (1, list(MEDALS).index(a.id), "")
        if a.id.startswith("group-winner-"):
            return (2, 0, a.citation)
        if a.id.startswith("first-to-solve-"):
            pid = a.id.removeprefix("first-to-solve-")
            return (3, labels.index(pid) if pid in labels else len(labels), "")
        return (4, 0, a.id)

    return sorted(awards_served, key=place)


def final(r: Reader, contest: Contest, *, hidden_teams: bool = False) -> list[Award]:
    """The awards of the live board (everything judged, no freeze), the admins' edits applied; ranked
    without the hidden teams (a jury's test account) unless ``hidden_teams`` (staff's view): the public's
    final awards never name one (visibility.sees_hidden_teams)."""
    main = board.main_contest(contest if hidden_teams else board.without_hidden(contest))
    st = board.ranked_rows(r, main, main, None, True).standings
    return merged(computed(contest, st), _edits(r.award_edits()))


def awards_json(server: ServedBoard, sight: Sight) -> list[dict[str, Any]]:
    return [a.json() for a in current(server, sight)]


# --------------------------------------------------------------------------------------------- editing


def _citation(body: dict[str, Any]) -> str:
    value = body.get("citation")
    if not isinstance(value, str) or not value.strip() or len(value) > 500:
        raise Refused(400, "`citation` must be a non-empty string (at most 500 characters)")
    return value


def _team_ids(contest: Contest, body: dict[str, Any]) -> tuple[str, ...]:
    value = body.get("team_ids")
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise Refused(400, "`team_ids` must be a list of team ids")
    unknown = sorted({t for t in value if contest.team(t) is None})
    if unknown:
        raise Refused(400, f"no team {unknown[0]!r}")
    return tuple(dict.fromkeys(value))


def _object(body: Any, award_id: str | None) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Refused(400, 'the body must be a JSON object like {"citation": ..., "team_ids": [...]}')
    unknown = sorted(set(body) - {"id", "citation", "team_ids"})
    if unknown:
        raise Refused(400, f"unknown property {unknown[0]!r} (an award has id, citation, team_ids)")
    if "id" in body and (award_id is None or body["id"] != award_id):
        raise Refused(400, "a POST must not give an id" if award_id is None else "the body's id is not the URL's")
    return body


def _new_id(existing: set[str]) -> str:
    n = 1
    while f"award-{n}" in existing:
        n += 1
    return f"award-{n}"


def edit(
    server: ServedBoard, viewer: Viewer, method: str, award_id: str | None, body: Callable[[], Any], now: float
) -> dict[str, Any] | None:
    """An admin's POST (``award_id`` None), PUT, PATCH or DELETE of an award. Returns the award as now
    served (None after a DELETE). Refused after the contest is finalized (un-finalize first)."""
    access.admin(viewer, "change awards")
    if server.timeline.phase.finalized_at is not None:
        raise Refused(409, "the contest is finalized: un-finalize it to change its awards")
    if award_id is not None and not valid_id(award_id):
        raise Refused(400, f"{award_id!r} is not a valid award id")
    obj = None if method == "DELETE" else _object(body(), award_id)
    with server.storage.write() as w:
        known = {a.id: a for a in final(w, server.contest, hidden_teams=True)}  # as an admin sees them: live
        new = _apply(server.contest, method, award_id, obj, known)
        if method == "PATCH" and obj is not None and "team_ids" not in obj:
            _reveals_nothing(new, _public(w, server, now).get(new.id))
        w.put_award_edit(new)
        publish(w, "awards", new.id, None if new.removed else _award(new).json(), now=now)
        action = {"POST": "award.create", "PUT": "award.replace", "PATCH": "award.change"}.get(method, "award.delete")
        audit(w, viewer, now, action, {"id": new.id, "citation": new.citation, "team_ids": list(new.team_ids or ())})
    server.bus.notify()
    return None if new.removed else _award(new).json()


def _public(r: Reader, server: ServedBoard, now: float) -> dict[str, Award]:
    """The awards as the public sees them now (the frozen board, without hidden teams), edits applied."""
    sight = server.sight(PUBLIC, now)
    standings = board.ranked_in(r, server, sight).standings
    mine = computed(server.contest, standings) if board_view(sight).show_problems else []
    return {a.id: a for a in merged(mine, _edits(r.award_edits()))}


def _reveals_nothing(new: AwardEdit, public: Award | None) -> None:
    """A PATCH that leaves ``team_ids`` out keeps the award's teams as the live board gives them, and the
    edit is published to everyone: refused (409) unless everyone sees those very teams already. During the
    freeze (or with a hidden team among them) they would tell what the frozen board hides (issue 43). An
    admin who gives ``team_ids`` publishes what they give."""
    seen = () if public is None or public.team_ids is None else public.team_ids
    if new.team_ids is not None and tuple(new.team_ids) != tuple(seen):
        raise Refused(
            409,
            f"award {new.id!r}: its teams on the live board are not those the public sees (the freeze hides "
            "results, or a team is hidden), and a PATCH without `team_ids` would publish them: give `team_ids` "
            "too (published as given), or edit it after the thaw",
        )


def _award(e: AwardEdit) -> Award:
    return Award(e.id, e.citation, e.team_ids)


def _apply(
    contest: Contest, method: str, award_id: str | None, obj: dict[str, Any] | None, known: dict[str, Award]
) -> AwardEdit:
    """The edit a request makes (pure once ``known``, the awards served now, is given)."""
    if award_id is None:
        assert obj is not None
        return AwardEdit(_new_id(set(known)), _citation(obj), _team_ids(contest, obj))
    if method == "PUT":
        assert obj is not None
        return AwardEdit(award_id, _citation(obj), _team_ids(contest, obj))
    old = known.get(award_id)
    if old is None:
        raise Refused(404, f"no award {award_id!r}")
    if method == "DELETE":
        return AwardEdit(award_id, old.citation, old.team_ids, removed=True)
    assert obj is not None
    citation = _citation(obj) if "citation" in obj else old.citation
    team_ids = _team_ids(contest, obj) if "team_ids" in obj else old.team_ids
    return AwardEdit(award_id, citation, team_ids)


def publish_final(w: Writer, server: ServedBoard, now: float) -> None:
    """The final awards on the event feed (at finalize), for everyone."""
    sync_collection(w, "awards", [a.json() for a in final(w, server.contest)], now=now)
